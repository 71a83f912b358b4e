import ArgumentParser
import UniformTypes

struct Tags: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: CommandName.tags.rawValue,
        abstract: "The tags of a type: all of them, one class, or the preferred one.",
        discussion: """
            With --class, prints one tag a line. --descendants adds the tags of every type
            that conforms to TYPE (every extension that is an image: uti tags public.image
            --class extension --descendants).
            """)

    @OptionGroup var registryOptions: RegistryOptions
    @OptionGroup var queryOptions: QueryOptions
    @OptionGroup var renamedMIME: RenamedMIMEFlag
    @OptionGroup var output: OutputOptions
    @Option(
        name: .customLong("class"),
        help: ArgumentHelp("Only this tag class: extension, mime, ostype, or a class identifier.", valueName: "class"),
        completion: .list(["extension", "mime", "ostype"]))
    var tagClass: String?
    @Flag(help: "Only the preferred (first declared) tag; needs --class.")
    var preferred = false
    @Flag(help: "Include the tags of every type that conforms to TYPE.")
    var descendants = false
    @Argument(help: "The type (any query form).", completion: .typeNames)
    var type: String

    func validate() throws {
        if preferred && tagClass == nil { throw ValidationError("--preferred needs --class") }
        if preferred && descendants { throw ValidationError("--preferred and --descendants exclude each other") }
    }

    func run() throws {
        let registry = try registryOptions.load()
        let resolver = try queryOptions.resolver(registry)
        let target = descendants ? try resolver.declaredArgument(type, "TYPE") : try resolver.argument(type, "TYPE")
        var table: [(TagClass, [String])]
        if let tagClass {
            let only: TagClass
            do { only = try TagClass.parse(tagClass, registry: registry) } catch {
                throw Console.fail("--class \(error)")
            }
            table = [(only, registry.tags(of: target, tagClass: only, includingDescendants: descendants))]
        } else {
            table = registry.tagSpecification(of: target, includingDescendants: descendants).map {
                ($0.tagClass, $0.tags)
            }
        }
        if preferred { table = table.map { ($0.0, Array($0.1.prefix(1))) } }
        if output.json {
            print(
                JSON.object([
                    ("identifier", .string(target.identifier)),
                    ("includesDescendants", .bool(descendants)),
                    ("tags", .object(table.map { ($0.0.identifier, JSON.strings($0.1)) })),
                ]).serialized())
        } else if tagClass != nil {
            for tag in table[0].1 { TerminalText.print("\(tag)") }
        } else {
            for (tagClass, tags) in table where !tags.isEmpty {
                TerminalText.print("\(tagClass.identifier): \(TerminalText.list(tags, separator: " "))")
            }
        }
        if table.allSatisfy({ $0.1.isEmpty }) { throw ExitCode(Status.no) }
    }
}
