import ArgumentParser
import UniformTypes

struct FileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "file",
        abstract: "The type of each path, from its name and, when the name leaves doubt, its first bytes.",
        discussion: """
        Names follow shared-mime-info's globs (literal names, then the longest suffix,
        then other patterns; case-sensitive globs only match their case), then the
        extensions declared types claim. When no glob or several match, the first
        bytes are read and matched against the magic rules, as GIO does: a strong
        match (priority 80 or more) wins, else the name that is a kind of the
        content's type; when the content says nothing, the name the registry's
        answer for the extension claims (x.ts: video/mp2t, as uti ts says); else
        the best name (both uncertain). An
        existing folder is public.folder or the package type its extension names;
        symbolic links (not followed unless --follow), FIFOs, sockets and devices are
        their own kinds and are never opened; an empty file is typed by its name when
        the name decides (empty.jpg is public.jpeg), else it is
        application/x-zerosize. Exit 1 when a path could not be typed.
        """)

    @OptionGroup var registryOptions: RegistryOptions
    @OptionGroup var output: OutputOptions
    @Flag(name: .shortAndLong, help: "Print only the identifier of each path.")
    var brief = false
    @Flag(name: .customLong("mime"), help: "Print only the MIME type of each path.")
    var mimeOnly = false
    @Flag(name: .customLong("no-sniff"), help: "Use the name alone; never read a file.")
    var noSniff = false
    @Flag(name: .customLong("follow"), help: "Type what symbolic links point to.")
    var follow = false
    @Flag(name: .customLong("tree"), help: "Also match folders against the tree rules (x-content/* types of volumes).")
    var tree = false
    @Argument(help: "Paths; they need not exist.")
    var paths: [String]

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give at least one path") }
        if paths.contains("") { throw ValidationError("an empty path was given") }
        if brief && mimeOnly { throw ValidationError("--brief and --mime cannot be used together") }
    }

    func run() throws {
        let typing = FileTyping(registry: try registryOptions.load())
        let options = FileTyping.Options(sniff: !noSniff, followSymbolicLinks: follow, treeMagic: tree)
        let status = Self.perform(typing: typing, paths: paths, options: options,
                                  form: output.json ? .json : brief ? .brief : mimeOnly ? .mime : .summary,
                                  language: output.language)
        if status != Status.success { throw ExitCode(status) }
    }

    /// What to print for each path.
    enum Form { case summary, brief, mime, json }

    /// Types each path and prints it; returns the exit status (1 when a
    /// path could not be typed).
    static func perform(typing: FileTyping, paths: [String], options: FileTyping.Options, form: Form, language: String?) -> Int32 {
        var results: [JSON] = []
        var failed = false
        var out = ""
        for path in paths {
            let result: FileTyping.Result
            do {
                result = try typing.type(forPath: path, options: options)
            } catch {
                failed = true
                StandardOutput.write(out)
                out = ""
                Console.error("uti: \(error)")
                if form == .json { results.append(.object([("path", .string(path)), ("error", .string(error.reason))])) }
                continue
            }
            switch form {
            case .json: results.append(Self.json(path: path, result, language: language))
            case .brief: out += result.type.identifier + "\n"
            case .mime: out += (result.mimeType ?? result.type.preferredMIMEType ?? "application/octet-stream") + "\n"
            case .summary: out += "\(Escaping.name(path)): \(Escaping.controls(Self.summary(result, language: language)))\n"
            }
        }
        if form == .json { out += JSON.array(results).serialized() + "\n" }
        StandardOutput.write(out)
        return failed ? Status.no : Status.success
    }

    static func json(path: String, _ result: FileTyping.Result, language: String? = nil) -> JSON {
        .object([
            ("path", .string(path)),
            ("mimeType", .optional(result.mimeType)),
            ("basis", .string(result.basis.rawValue)),
            ("certain", .bool(result.certain)),
            ("matchedExtension", .optional(result.matchedExtension)),
            ("nameCandidates", JSON.strings(result.nameCandidates)),
            ("sniffedType", .optional(result.sniffedType)),
            ("sniffPriority", result.sniffPriority.map { .int($0) } ?? .null),
            ("contentTypes", JSON.strings(result.contentTypes)),
            ("type", TypeFormatting.json(result.type, language: language)),
        ])
    }

    /// `public.jpeg (image/jpeg, JPEG image) by name`, with `, uncertain`
    /// and the folder's tree types when there are any.
    static func summary(_ result: FileTyping.Result, language: String? = nil) -> String {
        let type = result.type
        let mime = result.mimeType ?? type.preferredMIMEType
        let details = [mime, type.localizedDescription(language: language)].compactMap { $0 }
        var text = details.isEmpty ? type.identifier : "\(type.identifier) (\(details.joined(separator: ", ")))"
        text += " by \(result.basis.rawValue)"
        if !result.certain { text += ", uncertain" }
        if !result.contentTypes.isEmpty { text += "; contents: \(result.contentTypes.joined(separator: ", "))" }
        return text
    }
}
