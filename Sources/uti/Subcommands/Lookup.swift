import ArgumentParser
import UniformTypes

struct Lookup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe the types of extensions, MIME types or identifiers (the default command).",
        discussion: """
            A query with a "/" is a MIME type (TYPE/SUBTYPE; a path is refused), a
            declared identifier or dyn.a... is an identifier, anything else a filename
            extension. A dotted name that is neither a declared identifier nor an
            extension some type claims (public.imgae, report.pdf) is not found (exit 1)
            with the identifiers it may mean; --extension reads it as an extension.
            --unfiltered drops the default conformance to public.data (Apple's
            conformingTo: nil): xlv gives dyn.age81u5d0.
            """)

    @OptionGroup var registryOptions: RegistryOptions
    @OptionGroup var queryOptions: QueryOptions
    @OptionGroup var output: OutputOptions
    @Flag(name: .shortAndLong, help: "Print only the identifier.")
    var brief = false
    @Argument(help: "Extensions (jpg, .tar), MIME types (image/png) or identifiers (public.jpeg, dyn.a...).")
    var queries: [String] = []

    func run() throws {
        // Checked here rather than in validate(), which the parser runs
        // before it reports an unknown option (`uti --verison`).
        if queries.isEmpty { throw ValidationError("give at least one query (uti --help lists the commands)") }
        let registry = try registryOptions.load()
        let status = Self.perform(
            resolver: try queryOptions.resolver(registry), queries: queries, brief: brief,
            json: output.json, language: output.language)
        if status != Status.success { throw ExitCode(status) }
    }

    /// Describes each query on standard output; returns the exit status
    /// (1 when a query names no type).
    static func perform(resolver: QueryResolver, queries: [String], brief: Bool, json: Bool, language: String?) -> Int32
    {
        var results: [JSON] = []
        var blocks: [TerminalText] = []
        var failed = false
        for query in queries {
            do {
                let resolution = try resolver.resolve(query)
                if json {
                    results.append(TypeFormatting.json(resolution, language: language))
                } else {
                    blocks.append(
                        brief ? "\(resolution.type.identifier)" : TypeFormatting.text(resolution, language: language))
                }
            } catch {
                failed = true
                if json {
                    results.append(.object([("query", .string(query)), ("error", .string(error.description))]))
                } else {
                    Console.error("uti: \(Escaping.name(query)): \(error)")
                }
            }
        }
        if json {
            StandardOutput.line(JSON.array(results).serialized())
        } else if !blocks.isEmpty {
            StandardOutput.line(blocks.joined(separator: brief ? "\n" : "\n\n").string)
        }
        return failed ? Status.no : Status.success
    }
}
