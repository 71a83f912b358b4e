import ArgumentParser
import UniformTypes

struct Conforms: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Exit 0 when TYPE conforms to SUPERTYPE, 1 when not, 2 on error; silent unless --verbose.",
        discussion: "if uti conforms \"${file##*.}\" public.image; then …; fi")

    @OptionGroup var registryOptions: RegistryOptions
    @OptionGroup var queryOptions: QueryOptions
    @Flag(name: .shortAndLong, help: "Say the answer.")
    var verbose = false
    @Argument(help: "The type to test (any query form).") var type: String
    @Argument(help: "The supertype (any query form).") var supertype: String

    func run() throws {
        let status = try Self.perform(resolver: try queryOptions.resolver(try registryOptions.load()), type: type,
                                      supertype: supertype, verbose: verbose)
        if status != Status.success { throw ExitCode(status) }
    }

    /// 0 when `type` conforms to `supertype`, 1 when not; throws exit
    /// status 2 for an argument that names no type.
    static func perform(resolver: QueryResolver, type: String, supertype: String, verbose: Bool) throws -> Int32 {
        let a = try resolver.argument(type, "TYPE")
        let b = try QueryResolver(registry: resolver.registry).argument(supertype, "SUPERTYPE")
        let yes = a.conforms(to: b)
        if verbose { StandardOutput.line("\(a.identifier) \(yes ? "conforms" : "does not conform") to \(b.identifier)") }
        return yes ? Status.success : Status.no
    }
}

struct Equal: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Exit 0 when both queries name the same type, 1 when not, 2 on error.")

    @OptionGroup var registryOptions: RegistryOptions
    @Flag(name: .shortAndLong, help: "Say the answer.")
    var verbose = false
    @Argument(help: "First type (any query form).") var first: String
    @Argument(help: "Second type (any query form).") var second: String

    func run() throws {
        let resolver = QueryResolver(registry: try registryOptions.load())
        let a = try resolver.argument(first, "FIRST"), b = try resolver.argument(second, "SECOND")
        if verbose { print("\(a.identifier) \(a == b ? "==" : "!=") \(b.identifier)") }
        if a != b { throw ExitCode(Status.no) }
    }
}

struct Supertypes: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Every type TYPE conforms to, nearest first, one a line.")

    @OptionGroup var registryOptions: RegistryOptions
    @OptionGroup var queryOptions: QueryOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The type (any query form).") var type: String

    func run() throws {
        let target = try queryOptions.resolver(try registryOptions.load()).argument(type, "TYPE")
        IdentifierList.print(target, target.orderedSupertypes, json: output.json, key: "supertypes")
    }
}

struct Descendants: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Every declared type that conforms to TYPE, nearest first, one a line.")

    @OptionGroup var registryOptions: RegistryOptions
    @OptionGroup var queryOptions: QueryOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The type (any query form).") var type: String

    func run() throws {
        let registry = try registryOptions.load()
        let target = try queryOptions.resolver(registry).argument(type, "TYPE")
        IdentifierList.print(target, registry.descendants(of: target), json: output.json, key: "descendants")
    }
}

enum IdentifierList {
    static func print(_ type: UTType, _ list: [UTType], json: Bool, key: String) {
        if json {
            Swift.print(JSON.object([
                ("identifier", .string(type.identifier)),
                (key, JSON.strings(list.map(\.identifier))),
            ]).serialized())
        } else {
            for t in list { Swift.print(t.identifier) }
        }
    }
}

struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode dynamic identifiers (dyn.a…) into the tags and conformance they carry.")

    @OptionGroup var output: OutputOptions
    @Argument(help: "Dynamic identifiers.") var identifiers: [String]

    func validate() throws {
        if identifiers.isEmpty { throw ValidationError("give at least one dynamic identifier") }
    }

    func run() throws {
        var results: [JSON] = []
        for identifier in identifiers {
            guard let contents = DynamicIdentifier.decode(identifier) else {
                throw Console.fail("\"\(identifier)\" is not a well-formed dynamic identifier (dyn.a followed by base-32)")
            }
            if output.json {
                results.append(.object([
                    ("identifier", .string(identifier)),
                    ("conformsTo", JSON.strings(contents.conformsTo)),
                    ("tags", .object(contents.tags.map { ($0.tagClass.identifier, JSON.strings($0.tags)) })),
                ]))
            } else {
                print(identifier)
                for parent in contents.conformsTo { print("  conforms to: \(parent)") }
                for spec in contents.tags { print("  \(spec.tagClass.identifier): \(spec.tags.joined(separator: ", "))") }
            }
        }
        if output.json { print(JSON.array(results).serialized()) }
    }
}
