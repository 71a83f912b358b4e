import ArgumentParser
import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

struct FileCommand: FastCommand {
    static let configuration = CommandConfiguration(
        commandName: CommandName.file.rawValue,
        abstract: "The type of each path, from its name and, when the name leaves doubt, its first bytes.",
        discussion: """
            Names follow shared-mime-info's globs (literal names, then the longest
            suffix, then other patterns; case-sensitive globs only match their
            case), then the extensions declared types claim. When no glob or
            several match, the first bytes are read and matched against the magic
            rules, as GIO does: a strong match (priority 80 or more) wins, else the
            name that is a kind of the content's type; when the content says
            nothing, the name the registry's answer for the extension claims (x.ts:
            video/mp2t, as uti ts says); else the best name (both uncertain).
            Where no shared-mime-info database is found, the content of every file
            is read and matched against uti's built-in signatures (a warning says
            sniffing is reduced), and a name whose format the content lacks is not
            believed.

            An existing folder is public.folder or the package type its extension
            names; symbolic links (not followed unless --follow), FIFOs, sockets
            and devices are their own kinds and are never opened; an empty file is
            typed by its name when the name decides (empty.jpg is public.jpeg),
            else it is application/x-zerosize. A path where nothing is gets the
            type its name gives, marked "no such file". "-" reads standard input
            (printed as /dev/stdin, as file(1) does; ./- is a file named "-"), so
            it is refused with --no-sniff.

            Exit 1 when a path could not be typed (it cannot be read, or nothing
            is there and its name gives no type) and when nothing is at a path
            (its name is typed all the same, marked "no such file", on standard
            error for -b, --mime and -i) unless --no-sniff asked for names alone.
            With -b and --mime a path that could not be typed prints an empty line,
            so the lines stay one per path.

            -0 (--print0) writes a NUL after each path, as file -0 does, and the
            rest of its line (": TYPE ...") as without it. The path is printed as
            its bytes, a line feed and all, unless standard output is a terminal,
            where it is escaped as without -0. With -b and --mime, which print no
            path, each answer (or the empty answer of a path that could not be
            typed) ends with a NUL instead of a line feed (file -0 -b keeps the line
            feed). -0 cannot be combined with --json.
              find . -type f -print0 | xargs -0 uti file -0 --mime
            """)

    @OptionGroup var registryOptions: RegistryOptions
    @OptionGroup var output: OutputOptions
    @Flag var flags: [FileFlag] = []
    @Argument(help: "Paths; they need not exist.", completion: .file())
    var paths: [String]

    /// `uti file`'s own flags.
    enum FileFlag: FastFlag {
        case brief, mime, mimeCharset, content, noSniff, follow, tree, print0

        var declaration: FlagDeclaration {
            switch self {
            case .brief: FlagDeclaration(.long("brief"), .short("b"), help: "Print only the identifier of each path.")
            case .mime: FlagDeclaration(.long("mime"), help: "Print only the MIME type of each path.")
            case .mimeCharset:
                FlagDeclaration(
                    .short("i"), .long("mime-charset"),
                    help:
                        "Print \"PATH: MIME-TYPE; charset=CHARSET\", as file -i does (the charset from the first 64 KiB)."
                )
            case .content:
                FlagDeclaration(
                    .long("content"),
                    help: "Type by content alone, as file does, naming the format inside a container.")
            case .noSniff: FlagDeclaration(.long("no-sniff"), help: "Use the name alone; never read a file.")
            case .follow: FlagDeclaration(.long("follow"), .short("L"), help: "Type what symbolic links point to.")
            case .tree:
                FlagDeclaration(
                    .long("tree"), help: "Also match folders against the tree rules (x-content/* types of volumes).")
            case .print0:
                FlagDeclaration(
                    .short("0"), .long("print0"),
                    help: "Write a NUL after each path (with -b and --mime, after each answer instead of a line feed).")
            }
        }
    }

    /// What is asked, from the parsed command or from `FastPath`.
    struct Request {
        var flags: [FileFlag]
        var paths: [String]
        var json = false
        var language: String?

        init(flags: [FileFlag], paths: [String], json: Bool = false, language: String? = nil) throws {
            self.flags = flags
            self.paths = paths
            self.json = json
            self.language = language
            if paths.isEmpty { throw ValidationError("give at least one path") }
            if paths.contains("") { throw ValidationError("an empty path was given") }
            if [flags.contains(.brief), flags.contains(.mime), flags.contains(.mimeCharset), json]
                .filter({ $0 }).count > 1
            {
                throw ValidationError("choose one of --brief, --mime, -i and --json")
            }
            if json && flags.contains(.print0) {
                throw ValidationError("-0 separates paths of the text forms; --json quotes each path itself")
            }
            if paths.filter({ $0 == "-" }).count > 1 {
                throw ValidationError("\"-\" (standard input) can be given once")
            }
            if flags.contains(.content) && flags.contains(.noSniff) {
                throw ValidationError("--content reads only the content, and --no-sniff reads nothing; choose one")
            }
            if paths.contains("-") && flags.contains(.noSniff) {
                throw ValidationError(
                    "\"-\" (standard input) has no name to type, and --no-sniff reads nothing; "
                        + "for a file named \"-\", give ./-")
            }
        }

        /// What to print for each path.
        var form: Form {
            json
                ? .json
                : flags.contains(.brief)
                    ? .brief : flags.contains(.mime) ? .mime : flags.contains(.mimeCharset) ? .mimeCharset : .summary
        }

        /// Whether paths (or, with -b and --mime, answers) end with NUL.
        var nulSeparated: Bool { flags.contains(.print0) }

        var options: FileTyping.Options {
            var options = FileTyping.Options(
                sniff: !flags.contains(.noSniff), followSymbolicLinks: flags.contains(.follow),
                treeMagic: flags.contains(.tree))
            options.contentAlone = flags.contains(.content)
            // The forms with room to say so tell when the content contradicts the answer.
            options.checkContent = !options.contentAlone && (form == .summary || form == .json)
            return options
        }
    }

    private var request: Request {
        get throws { try Request(flags: flags, paths: paths, json: output.json, language: output.language) }
    }

    func validate() throws { _ = try request }

    func run() throws {
        let status = Self.perform(try request, typing: FileTyping(registry: try registryOptions.load()))
        if status != Status.success { throw ExitCode(status) }
    }

    static func request(flags: [FileFlag], words: [String]) -> Request? { try? Request(flags: flags, paths: words) }

    static func answer(_ request: Request, registry: TypeRegistry) -> Int32 {
        perform(request, typing: FileTyping(registry: registry))
    }

    /// What to print for each path.
    enum Form { case summary, brief, mime, mimeCharset, json }

    /// How standard input is named in the output, as file(1) names it.
    static let standardInputLabel = "/dev/stdin"

    /// Types each path and prints it; returns the exit status (1 when a
    /// path could not be typed).
    static func perform(_ request: Request, typing: FileTyping) -> Int32 {
        let form = request.form, options = request.options
        // -0: the path ends with NUL, or with -b and --mime the answer does.
        let nul = request.nulSeparated
        let answerEnd: UInt8 = nul && (form == .brief || form == .mime) ? 0 : 10
        // A path goes to a terminal escaped, -0 or not: its control characters never reach one.
        let rawPaths = nul && isatty(1) != 1
        var results: [JSON] = []
        var failed = false
        var out = BufferedOutput()
        for path in request.paths {
            let label = path == "-" ? standardInputLabel : path
            let result: FileTyping.Result
            let content: [UInt8]?
            do throws(FileTyping.Failure) {
                (result, content) = try type(path, label: label, typing: typing, options: options)
            } catch {
                failed = true
                out.flush()
                Console.error("uti: \(Escaping.name(label)): \(error.reason)")
                if form == .json {
                    results.append(
                        .object(JSON.path("path", bytes: PathText.bytes(label)) + [("error", .string(error.reason))]))
                }
                // The forms without the path keep one answer per path, as `uti batch` does.
                if form == .brief || form == .mime { out.record("", terminator: answerEnd) }
                continue
            }
            // A path where nothing is was typed by its name alone: every form
            // says so (the short ones on standard error), and the status says
            // so unless names alone were asked for.
            if !result.exists {
                if options.sniff { failed = true }
                if form == .brief || form == .mime || form == .mimeCharset {
                    out.flush()
                    Console.error("uti: \(Escaping.name(label)): no such file; typed by its name")
                }
            }
            if form == .json {
                results.append(Self.json(path: label, result, language: request.language))
                continue
            }
            let answer = Self.answer(path: path, result, content: content, form: form, request: request)
            switch form {
            case .brief, .mime: out.record(answer.string, terminator: answerEnd)
            case .summary, .mimeCharset, .json:
                if nul {
                    // As file -0: the path, a NUL, then the rest of the line as without -0.
                    out.record(
                        bytes: rawPaths ? PathText.bytes(label) : Array(Escaping.name(label).utf8), terminator: 0)
                    out.record(": " + answer.string, terminator: 10)
                } else {
                    out.line(("\(label): " + answer).string)
                }
            }
        }
        if form == .json { out.line(JSON.array(results).serialized()) }
        out.flush()
        return failed ? Status.no : Status.success
    }

    /// The type of standard input, by its first bytes (returned too), as
    /// `uti file -` types it.
    static func typeOfStandardInput(
        _ typing: FileTyping, label: String = standardInputLabel, contentAlone: Bool = false
    ) throws(FileTyping.Failure) -> (result: FileTyping.Result, content: [UInt8]) {
        let limit = max(typing.registry.mimeDatabase?.sniffLength ?? 0, TextCharset.defaultLimit)
        let content = try FileTyping.readPrefix(of: 0, count: limit, label: label)
        var options = FileTyping.Options()
        options.contentAlone = contentAlone
        return (typing.type(ofContent: content, options: options), content)
    }

    /// The type of `path` (standard input for "-", whose first bytes are
    /// returned too); a path where nothing is and whose name gives no type
    /// is a failure.
    private static func type(
        _ path: String, label: String, typing: FileTyping, options: FileTyping.Options
    ) throws(FileTyping.Failure) -> (FileTyping.Result, content: [UInt8]?) {
        var content: [UInt8]?
        let result: FileTyping.Result
        if path == "-" {
            (result, content) = try typeOfStandardInput(typing, label: label, contentAlone: options.contentAlone)
        } else {
            result = try typing.type(forPath: PathText.bytes(path), options: options)
        }
        if !result.exists && result.givesNoType {
            throw FileTyping.Failure(path: PathText.bytes(path), reason: "no such file, and the name gives no type")
        }
        return (result, content)
    }

    /// What a form other than JSON prints for one path, after its path and
    /// ": " in the forms that print the path.
    private static func answer(
        path: String, _ result: FileTyping.Result, content: [UInt8]?, form: Form, request: Request
    ) -> TerminalText {
        switch form {
        case .brief: "\(result.type.identifier)"
        case .mime: "\(mimeType(result))"
        case .mimeCharset:
            "\(mimeType(result))"
                + (charset(path: path, result, content: content, follow: request.options.followSymbolicLinks).map {
                    "; charset=\($0)"
                } ?? "")
        case .summary, .json: Self.summary(result, language: request.language)
        }
    }

    static func mimeType(_ result: FileTyping.Result) -> String {
        result.mimeType ?? result.type.preferredMIMEType ?? "application/octet-stream"
    }

    /// The charset `file -i` would print: read from regular files whose type
    /// is text, `binary` for everything else that exists, nil for a path
    /// where nothing is (or that can no longer be read).
    static func charset(path: String, _ result: FileTyping.Result, content: [UInt8]?, follow: Bool) -> String? {
        guard result.exists else { return nil }
        let textType = result.type.registry.declaredType("public.text")
        let text = mimeType(result).hasPrefix("text/") || textType.map(result.type.conforms(to:)) ?? false
        if let content {
            return text ? TextCharset.name(of: content, truncated: content.count == TextCharset.defaultLimit) : "binary"
        }
        guard text, result.basis != .fileSystem else { return "binary" }
        return try? FileTyping.charset(ofFileAt: PathText.bytes(path), follow: follow)
    }

    /// The JSON of one path; `exists` is null for names typed without
    /// asking the file system (`nameOnly`).
    static func json(path: String, _ result: FileTyping.Result, language: String? = nil, nameOnly: Bool = false) -> JSON
    {
        .object(
            JSON.path("path", bytes: PathText.bytes(path)) + [
                ("exists", nameOnly ? .null : .bool(result.exists)),
                ("mimeType", .optional(result.mimeType)),
                ("basis", .string(result.basis.rawValue)),
                ("certain", .bool(result.certain)),
                ("matchedExtension", .optional(result.matchedExtension)),
                ("nameCandidates", JSON.strings(result.nameCandidates)),
                ("sniffedType", .optional(result.sniffedType)),
                ("sniffPriority", result.sniffPriority.map { .int($0) } ?? .null),
                ("contentTypes", JSON.strings(result.contentTypes)),
                ("content", result.contentCheck.map(contentJSON) ?? .null),
                ("type", TypeFormatting.json(result.type, language: language)),
            ])
    }

    /// What the content alone says, beside the answer: its type, its MIME
    /// type, and whether it bears the answer out.
    static func contentJSON(_ check: FileTyping.ContentCheck) -> JSON {
        .object([
            ("identifier", .string(check.content.type.identifier)),
            ("mimeType", .string(mimeType(check.content))),
            ("agreement", .string(check.agreement.name)),
            ("reason", .optional(check.reason)),
        ])
    }

    /// `public.jpeg (image/jpeg, JPEG image) by name`, with `, uncertain`
    /// and the folder's tree types when there are any.
    static func summary(_ result: FileTyping.Result, language: String? = nil) -> TerminalText {
        let type = result.type
        let mime = result.mimeType ?? type.preferredMIMEType
        let details = [mime, type.localizedDescription(language: language)].compactMap { $0 }
        var text: TerminalText = "\(type.identifier)"
        if !details.isEmpty { text += " (\(TerminalText.list(details)))" }
        text += " by \(result.basis.rawValue)"
        if !result.certain { text += ", uncertain" }
        if !result.exists { text += "; no such file" }
        if let check = result.contentCheck, check.agreement == .contradicts, let reason = check.reason {
            text += "; \(reason)"
        }
        if !result.contentTypes.isEmpty {
            text += "; contents: \(TerminalText.list(result.contentTypes))"
        }
        return text
    }
}
