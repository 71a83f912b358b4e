import ArgumentParser
import UniformTypes

struct Lookup: FastCommand {
    static let configuration = CommandConfiguration(
        commandName: CommandName.lookup.rawValue,
        abstract: "Describe the types of extensions, MIME types or identifiers (the default command).",
        discussion: """
            A query with a "/" is a MIME type (TYPE/SUBTYPE; a path is refused), a
            declared identifier or dyn.a... is an identifier, anything else a filename
            extension. A dotted name that is neither a declared identifier nor an
            extension some type claims (public.imgae, report.pdf) is not found (exit 1)
            with the identifiers it may mean; --as-extension reads it as an extension.
            --mime prints only the preferred MIME type of each query, as uti file --mime
            prints a file's. For an extension whose type has none, it is what uti file
            --no-sniff --mime prints for x.EXT (application/octet-stream for unknown
            data) when that names the same type or a narrower one; a type without one is
            otherwise not found. With -b and --mime, a query not found prints an empty
            line, so that each query has its line.
            --unfiltered drops the default conformance to public.data (Apple's
            conformingTo: nil): xlv gives dyn.age81u5d0.
            """)

    @OptionGroup var registryOptions: RegistryOptions
    @OptionGroup var queryOptions: QueryOptions
    @OptionGroup var output: OutputOptions
    @Flag var flags: [LookupFlag] = []
    @Argument(
        help: "Extensions (jpg, .tar), MIME types (image/png) or identifiers (public.jpeg, dyn.a...).",
        completion: .typeNames)
    var queries: [String] = []

    /// `uti lookup`'s own flags.
    enum LookupFlag: FastFlag {
        case brief, mime

        var declaration: FlagDeclaration {
            switch self {
            case .brief: FlagDeclaration(.long("brief"), .short("b"), help: "Print only the identifier.")
            case .mime: FlagDeclaration(.long("mime"), help: "Print only the MIME type.")
            }
        }
    }

    /// What is asked, from the parsed command or from `FastPath`.
    struct Request {
        var flags: [LookupFlag]
        var queries: [String]
        var json = false
        var language: String?

        init(flags: [LookupFlag], queries: [String], json: Bool = false, language: String? = nil) throws {
            if queries.isEmpty { throw ValidationError("give at least one query (uti --help lists the commands)") }
            if [flags.contains(.brief), flags.contains(.mime), json].filter({ $0 }).count > 1 {
                throw ValidationError("choose one of --brief, --mime and --json")
            }
            self.flags = flags
            self.queries = queries
            self.json = json
            self.language = language
        }
    }

    func run() throws {
        // Checked here rather than in validate(), which the parser runs
        // before it reports an unknown option (`uti --verison`).
        let request = try Request(flags: flags, queries: queries, json: output.json, language: output.language)
        let status = Self.perform(request, resolver: try queryOptions.resolver(try registryOptions.load()))
        if status != Status.success { throw ExitCode(status) }
    }

    static func request(flags: [LookupFlag], words: [String]) -> Request? {
        try? Request(flags: flags, queries: words)
    }

    static func answer(_ request: Request, registry: TypeRegistry) -> Int32 {
        perform(request, resolver: QueryResolver(registry: registry))
    }

    /// Describes each query on standard output; returns the exit status
    /// (1 when a query names no type).
    static func perform(_ request: Request, resolver: QueryResolver) -> Int32 {
        let brief = request.flags.contains(.brief), json = request.json, language = request.language
        let mime = request.flags.contains(.mime)
        var results: [JSON] = []
        var blocks: [TerminalText] = []
        var failed = false, misread = false
        for query in request.queries {
            do throws(QueryError) {
                let resolution = try resolver.resolve(query)
                if json {
                    results.append(TypeFormatting.json(resolution, language: language))
                } else if mime {
                    guard let mimeType = TypeFormatting.mimeType(resolution, registry: resolver.registry) else {
                        throw QueryError(description: "has no MIME type")
                    }
                    blocks.append("\(mimeType)")
                } else {
                    blocks.append(
                        brief ? "\(resolution.type.identifier)" : TypeFormatting.text(resolution, language: language))
                }
            } catch {
                failed = true
                misread = misread || error.isMisread
                if json {
                    results.append(.object([("query", .string(query)), ("error", .string(error.description))]))
                } else {
                    Console.error("uti: \(Escaping.name(query)): \(error)")
                    // One line a query, as `uti file -b` and `uti batch` print them.
                    if brief || mime { blocks.append("") }
                }
            }
        }
        if json {
            StandardOutput.line(JSON.array(results).serialized())
        } else if !blocks.isEmpty {
            StandardOutput.line(blocks.joined(separator: brief || mime ? "\n" : "\n\n").string)
        }
        return misread ? Status.error : failed ? Status.no : Status.success
    }
}
