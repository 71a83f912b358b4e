import ArgumentParser
import UniformTypes

struct Lookup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe the types of extensions, MIME types or identifiers (the default command).")

    @OptionGroup var registryOptions: RegistryOptions
    @OptionGroup var queryOptions: QueryOptions
    @OptionGroup var output: OutputOptions
    @Flag(name: .shortAndLong, help: "Print only the identifier.")
    var brief = false
    @Argument(help: "Extensions (jpg, .tar), MIME types (image/png) or identifiers (public.jpeg, dyn.a…).")
    var queries: [String]

    func validate() throws {
        if queries.isEmpty { throw ValidationError("give at least one query") }
    }

    func run() throws {
        let registry = try registryOptions.load()
        let resolver = try queryOptions.resolver(registry)
        var results: [JSON] = []
        var blocks: [String] = []
        var failed = false
        for query in queries {
            do {
                let resolution = try resolver.resolve(query)
                if output.json {
                    results.append(TypeFormatting.json(resolution, language: output.language))
                } else {
                    blocks.append(brief ? resolution.type.identifier : TypeFormatting.text(resolution, language: output.language))
                }
            } catch {
                failed = true
                if output.json {
                    results.append(.object([("query", .string(query)), ("error", .string(error.description))]))
                } else {
                    Console.error("uti: \(query): \(error)")
                }
            }
        }
        if output.json {
            print(JSON.array(results).serialized())
        } else if !blocks.isEmpty {
            print(blocks.joined(separator: brief ? "\n" : "\n\n"))
        }
        if failed { throw ExitCode(Status.no) }
    }
}
