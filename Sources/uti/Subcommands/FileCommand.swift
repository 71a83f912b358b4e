import ArgumentParser
import UniformTypes

struct FileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "file",
        abstract: "The type of each path, from its name (the longest claimed extension wins).",
        discussion: """
        An existing folder is public.folder, or the package type its extension names
        (an .app folder is com.apple.application-bundle); symbolic links (not followed),
        FIFOs, sockets and devices are their own kinds. Contents are not read.
        """)

    @OptionGroup var registryOptions: RegistryOptions
    @OptionGroup var output: OutputOptions
    @Flag(name: .shortAndLong, help: "Print only the identifier of each path.")
    var brief = false
    @Argument(help: "Paths; they need not exist.")
    var paths: [String]

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give at least one path") }
        if paths.contains("") { throw ValidationError("an empty path was given") }
    }

    func run() throws {
        let typing = PathTyping(registry: try registryOptions.load())
        var results: [JSON] = []
        for path in paths {
            let result = typing.type(forPath: path)
            if output.json {
                results.append(Self.json(path: path, result))
            } else if brief {
                print(result.type.identifier)
            } else {
                print("\(path): \(Self.summary(result.type))")
            }
        }
        if output.json { print(JSON.array(results).serialized()) }
    }

    static func json(path: String, _ result: PathTyping.Result) -> JSON {
        .object([
            ("path", .string(path)),
            ("basis", .string(result.basis.rawValue)),
            ("matchedExtension", .optional(result.matchedExtension)),
            ("type", TypeFormatting.json(result.type)),
        ])
    }

    /// `public.jpeg (image/jpeg, JPEG image)`.
    static func summary(_ type: UTType) -> String {
        let details = [type.preferredMIMEType, type.localizedDescription].compactMap { $0 }
        return details.isEmpty ? type.identifier : "\(type.identifier) (\(details.joined(separator: ", ")))"
    }
}
