import ArgumentParser
import PropertyLists
import SystemBase
import UniformTypes

struct Conforms: FastCommand {
    static let configuration = CommandConfiguration(
        commandName: CommandName.conforms.rawValue,
        abstract: "Exit 0 when TYPE conforms to SUPERTYPE, 1 when not, 2 on error; silent unless --verbose.",
        discussion: """
            TYPE is any query form, or a file: with --file, or when TYPE is an existing
            path that names no type as written (/tmp/pic.dat, photo.jpg in the current
            folder), the file is typed as `uti file` types it, by name and content; "-"
            is standard input, typed by its content. SUPERTYPE must be a declared type
            (public.image, an extension or MIME type a declared type claims).
            --content types the file by its content alone, as file does. --strict
            also reads the content, and answers no when it contradicts the file's
            type and is itself no kind of SUPERTYPE: a text file named x.jpg is no
            public.image, a JPEG named x.png is one but no public.png.
              if uti conforms "${file##*.}" public.image; then ...; fi
              if uti conforms --file --strict "$path" public.image; then ...; fi
            """)

    @OptionGroup var registryOptions: RegistryOptions
    @OptionGroup var queryOptions: QueryOptions
    @OptionGroup var renamedMIME: RenamedMIMEFlag
    @Flag var flags: [ConformsFlag] = []
    @Argument(
        help: "The type to test (any query form), or a file (- for standard input).", completion: .typeNamesOrPaths)
    var type: String
    @Argument(help: "The supertype (a declared type, any query form).", completion: .typeNames)
    var supertype: String

    /// `uti conforms`' own flags.
    enum ConformsFlag: FastFlag {
        case verbose, file, content, strict, follow

        var declaration: FlagDeclaration {
            switch self {
            case .verbose: FlagDeclaration(.long("verbose"), .short("v"), help: "Say the answer.")
            case .file:
                FlagDeclaration(.long("file"), help: "TYPE is a file to type by name and content (it must exist).")
            case .content:
                FlagDeclaration(.long("content"), help: "TYPE is a file to type by its content alone (as --file).")
            case .strict:
                FlagDeclaration(
                    .long("strict"), help: "TYPE is a file (as --file); no when its content contradicts its type.")
            case .follow:
                FlagDeclaration(.short("L"), .long("follow"), help: "With a file, type what a symbolic link points to.")
            }
        }
    }

    /// What is asked, from the parsed command or from `FastPath`.
    struct Request {
        var flags: [ConformsFlag]
        var type: String
        var supertype: String
    }

    func run() throws {
        let status = try Self.perform(
            Request(flags: flags, type: type, supertype: supertype),
            resolver: try queryOptions.resolver(try registryOptions.load()))
        if status != Status.success { throw ExitCode(status) }
    }

    static func request(flags: [ConformsFlag], words: [String]) -> Request? {
        words.count == 2 ? Request(flags: flags, type: words[0], supertype: words[1]) : nil
    }

    static func answer(_ request: Request, registry: TypeRegistry) -> Int32 {
        (try? perform(request, resolver: QueryResolver(registry: registry))) ?? Status.error
    }

    /// 0 when the type conforms to the supertype, 1 when not; throws exit
    /// status 2 for an argument that names no type, a missing file or one
    /// that cannot be read.
    static func perform(_ request: Request, resolver: QueryResolver) throws -> Int32 {
        let type = request.type
        let b = try QueryResolver(registry: resolver.registry).declaredArgument(request.supertype, "SUPERTYPE")
        let a: UniformType
        let path = PathText.bytes(type)
        let flags = request.flags
        let contentAlone = flags.contains(.content), strict = flags.contains(.strict)
        var contradiction: String?
        var yes: Bool
        if type == "-" {
            // Standard input, typed by content as `uti file -` types it.
            let typing = FileTyping(registry: resolver.registry)
            do {
                a = try FileCommand.typeOfStandardInput(typing, contentAlone: contentAlone).result.type
            } catch {
                throw Console.fail("TYPE -: \(error.reason)")
            }
            yes = a.conforms(to: b)
        } else if flags.contains(.file) || contentAlone || strict || PathText.isRaw(type)
            || (!resolver.knows(type) && FileStatus.exists(path))
        {
            let typing = FileTyping(registry: resolver.registry)
            var options = FileTyping.Options(followSymbolicLinks: flags.contains(.follow))
            options.contentAlone = contentAlone
            options.checkContent = strict && !contentAlone
            let result: FileTyping.Result
            do {
                result = try typing.type(ofExistingPath: path, options: options)
            } catch {
                throw Console.fail("TYPE \(Escaping.name(type)): \(error.reason)")
            }
            a = result.type
            yes = typing.strictlyConforms(result, to: b)
            if a.conforms(to: b) && !yes { contradiction = result.contentCheck?.reason }
        } else {
            var resolver = resolver
            resolver.fileCommand = (["uti", "conforms", "--file"], [request.supertype])
            a = try resolver.argument(type, "TYPE")
            yes = a.conforms(to: b)
        }
        if flags.contains(.verbose) {
            let answer: TerminalText =
                if let contradiction {
                    "\(a.identifier) conforms to \(b.identifier) by name, but \(contradiction)"
                } else {
                    "\(a.identifier) \(yes ? "conforms" : "does not conform") to \(b.identifier)"
                }
            StandardOutput.line(answer.string)
        }
        return yes ? Status.success : Status.no
    }
}

struct Equal: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: CommandName.equal.rawValue,
        abstract: "Exit 0 when both queries name the same type, 1 when not, 2 on error.")

    @OptionGroup var registryOptions: RegistryOptions
    @Flag(name: .shortAndLong, help: "Say the answer.")
    var verbose = false
    @Argument(help: "First type (any query form).", completion: .typeNames) var first: String
    @Argument(help: "Second type (any query form).", completion: .typeNames) var second: String

    func run() throws {
        let resolver = QueryResolver(registry: try registryOptions.load())
        let a = try resolver.argument(first, "FIRST"), b = try resolver.argument(second, "SECOND")
        if verbose { TerminalText.print("\(a.identifier) \(a == b ? "==" : "!=") \(b.identifier)") }
        if a != b { throw ExitCode(Status.no) }
    }
}

struct Supertypes: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: CommandName.supertypes.rawValue,
        abstract: "Every type TYPE conforms to, nearest first, one a line.")

    @OptionGroup var registryOptions: RegistryOptions
    @OptionGroup var queryOptions: QueryOptions
    @OptionGroup var renamedMIME: RenamedMIMEFlag
    @OptionGroup var output: OutputOptions
    @Argument(help: "The type (any query form).", completion: .typeNames) var type: String

    func run() throws {
        let target = try queryOptions.resolver(try registryOptions.load()).argument(type, "TYPE")
        IdentifierList.print(target, target.orderedSupertypes, json: output.json, key: "supertypes")
    }
}

struct Descendants: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: CommandName.descendants.rawValue,
        abstract: "Every declared type that conforms to TYPE, nearest first, one a line.")

    @OptionGroup var registryOptions: RegistryOptions
    @OptionGroup var queryOptions: QueryOptions
    @OptionGroup var renamedMIME: RenamedMIMEFlag
    @OptionGroup var output: OutputOptions
    @Argument(help: "The type (any query form).", completion: .typeNames) var type: String

    func run() throws {
        let registry = try registryOptions.load()
        let target = try queryOptions.resolver(registry).declaredArgument(type, "TYPE")
        IdentifierList.print(target, registry.descendants(of: target), json: output.json, key: "descendants")
    }
}

enum IdentifierList {
    static func print(_ type: UniformType, _ list: [UniformType], json: Bool, key: String) {
        if json {
            Swift.print(
                JSON.object([
                    ("identifier", .string(type.identifier)),
                    (key, JSON.strings(list.map(\.identifier))),
                ]).serialized())
        } else {
            for t in list { TerminalText.print("\(t.identifier)") }
        }
    }
}

struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: CommandName.decode.rawValue,
        abstract: "Decode dynamic identifiers (dyn.a...) into the tags and conformance they carry.")

    @OptionGroup var output: OutputOptions
    @Argument(help: "Dynamic identifiers.") var identifiers: [String]

    func validate() throws {
        if identifiers.isEmpty { throw ValidationError("give at least one dynamic identifier") }
    }

    /// Each identifier in order: what it carries, or (as lookups do) an
    /// error in its place; exit status 2 when any is not well formed.
    func run() throws {
        var results: [JSON] = []
        var failed = false
        for identifier in identifiers {
            guard let contents = DynamicIdentifier.decode(identifier) else {
                let problem = "is not a well-formed dynamic identifier (dyn.a followed by base-32)"
                failed = true
                if output.json {
                    results.append(.object([("identifier", .string(identifier)), ("error", .string(problem))]))
                } else {
                    Console.error("uti: \"\(identifier)\" \(problem)")
                }
                continue
            }
            if output.json {
                results.append(
                    .object([
                        ("identifier", .string(identifier)),
                        ("conformsTo", JSON.strings(contents.conformsTo)),
                        ("tags", .object(contents.tags.map { ($0.tagClass.identifier, JSON.strings($0.tags)) })),
                    ]))
            } else {
                // A dynamic identifier can carry any bytes: escaped for the terminal.
                var lines: [TerminalText] = ["\(identifier)"]
                for parent in contents.conformsTo { lines.append("  conforms to: \(parent)") }
                for spec in contents.tags {
                    lines.append("  \(spec.tagClass.identifier): \(TerminalText.list(spec.tags))")
                }
                TerminalText.print(lines.joined(separator: "\n"))
            }
        }
        if output.json { print(JSON.array(results).serialized()) }
        if failed { throw ExitCode(Status.error) }
    }
}
