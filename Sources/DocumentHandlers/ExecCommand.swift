import SystemBase

#if canImport(Glibc)
    import Glibc
#endif

/// A desktop entry's `Exec` value, split into arguments with its field codes
/// found, ready to be expanded for files. Never passed through a shell.
///
/// Quoting follows the Desktop Entry spec: arguments are separated by
/// spaces, double quotes group an argument and inside them `\"`, `\$`,
/// `\\` and a backslash before a backtick are escapes. As GLib does, a
/// backslash outside quotes escapes the next character and single quotes
/// group literally.
public struct ExecCommand: Sendable, Equatable {
    /// A part of one argument.
    public enum Piece: Sendable, Equatable {
        /// Literal text, with quotes and escapes removed.
        case text(String)
        /// A field code letter (`f`, `F`, `u`, `U`, `i`, `c`, `k`, or a
        /// deprecated one, which expands to nothing).
        case field(Character)
    }

    /// Why an `Exec` value cannot be parsed, or a command cannot be made or run: a URL for a command that takes
    /// only files, or no terminal for an entry with `Terminal=true`.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// What kind of problem it is, for a caller to switch on.
        public enum Code: Sendable, Hashable {
            /// The `Exec` value cannot be parsed: an unclosed quote, a bad
            /// escape, an unknown or misplaced field code, nothing at all.
            case malformed
            /// The command takes only local files (`%f`, `%F`), and a URL was to be opened.
            case urlNotAccepted
            /// The entry runs in a terminal (`Terminal=true`), and none was found.
            case noTerminal
            /// The entry has no `Exec` line that can be used.
            case noCommand
            /// The app bundle has no executable that can be run.
            case notExecutable
        }

        /// What kind of problem it is.
        public var code: Code
        /// What is wrong, for a person to read.
        public var message: String
        /// The same as `message`.
        public var description: String { message }
    }

    /// How the command takes files.
    public enum FileArgument: Sendable, Equatable {
        /// No file code: the file is not passed.
        case none
        /// `%f` or `%u`: one command per file.
        case single(uri: Bool)
        /// `%F` or `%U`: one command for all files.
        case list(uri: Bool)
    }

    /// The arguments, the program first, each as its pieces of text and field codes.
    public let arguments: [[Piece]]
    /// How the command takes files, from its `%f`, `%F`, `%u` or `%U` code.
    public let fileArgument: FileArgument

    /// Field codes the spec deprecates; they expand to nothing.
    static let deprecatedCodes: Set<Character> = ["d", "D", "n", "N", "v", "m"]

    /// Parses an `Exec` value (already unescaped as a key-file string).
    public init(_ value: String) throws(Problem) {
        var arguments: [[Piece]] = []
        var pieces: [Piece] = []
        var text = ""
        var inArgument = false
        // Unicode scalars, not Characters: a combining mark after a blank,
        // a quote or a % must not hide it (GLib reads bytes).
        var iterator = value.unicodeScalars.makeIterator()
        var column = 0
        func flushText() {
            if !text.isEmpty {
                pieces.append(.text(text))
                text = ""
            }
        }
        func endArgument() {
            flushText()
            if inArgument { arguments.append(pieces) }
            pieces = []
            inArgument = false
        }
        while let c = iterator.next() {
            column += 1
            switch c {
            case " ", "\t", "\n":
                endArgument()
            case "\"":
                inArgument = true
                let start = column
                var closed = false
                while let q = iterator.next() {
                    column += 1
                    if q == "\"" {
                        closed = true
                        break
                    }
                    if q == "\\" {
                        guard let next = iterator.next() else { break }
                        column += 1
                        guard "\"`$\\".unicodeScalars.contains(next) else {
                            throw Problem(
                                code: .malformed,
                                message:
                                    "Exec: \"\\\(next)\" inside quotes at column \(column - 1); only \\\", \\`, \\$ and \\\\ are escapes there"
                            )
                        }
                        text.unicodeScalars.append(next)
                    } else if q == "%" {
                        if let next = iterator.next() {
                            column += 1
                            if next == "%" {
                                text.append("%")
                                continue
                            }
                        }
                        throw Problem(
                            code: .malformed,
                            message:
                                "Exec: a field code inside a quoted argument at column \(column); the spec leaves its expansion undefined"
                        )
                    } else {
                        text.unicodeScalars.append(q)
                    }
                }
                if !closed {
                    throw Problem(
                        code: .malformed, message: "Exec: the double quote at column \(start) is never closed")
                }
            case "'":
                inArgument = true
                let start = column
                var closed = false
                while let q = iterator.next() {
                    column += 1
                    if q == "'" {
                        closed = true
                        break
                    }
                    text.unicodeScalars.append(q)
                }
                if !closed {
                    throw Problem(
                        code: .malformed, message: "Exec: the single quote at column \(start) is never closed")
                }
            case "\\":
                inArgument = true
                guard let next = iterator.next() else {
                    throw Problem(code: .malformed, message: "Exec: a \"\\\" ends the command")
                }
                column += 1
                text.unicodeScalars.append(next)
            case "%":
                inArgument = true
                guard let code = iterator.next() else {
                    throw Problem(
                        code: .malformed, message: "Exec: a \"%\" ends the command (write %% for a percent sign)")
                }
                column += 1
                switch code {
                case "%": text.append("%")
                case "f", "F", "u", "U", "i", "c", "k":
                    flushText()
                    pieces.append(.field(Character(code)))
                default:
                    if Self.deprecatedCodes.contains(Character(code)) {
                        flushText()
                        pieces.append(.field(Character(code)))
                        continue
                    }
                    throw Problem(
                        code: .malformed, message: "Exec: unknown field code \"%\(code)\" at column \(column - 1)")
                }
            default:
                inArgument = true
                text.unicodeScalars.append(c)
            }
        }
        endArgument()
        guard !arguments.isEmpty else { throw Problem(code: .malformed, message: "Exec is empty") }
        if arguments[0].contains(where: { if case .field = $0 { true } else { false } }) {
            throw Problem(code: .malformed, message: "Exec: the program name holds a field code")
        }
        var fileArgument = FileArgument.none
        for argument in arguments {
            for piece in argument {
                guard case .field(let code) = piece, "fFuU".contains(code) else { continue }
                if fileArgument != .none {
                    throw Problem(code: .malformed, message: "Exec: more than one of %f, %F, %u, %U")
                }
                if (code == "F" || code == "U") && argument.count != 1 {
                    throw Problem(code: .malformed, message: "Exec: %\(code) must be an argument on its own")
                }
                fileArgument = code == "f" || code == "u" ? .single(uri: code == "u") : .list(uri: code == "U")
            }
            if argument.contains(.field("i")) && argument.count != 1 {
                throw Problem(code: .malformed, message: "Exec: %i must be an argument on its own")
            }
        }
        self.arguments = arguments
        self.fileArgument = fileArgument
    }

    /// The program: the first argument.
    public var program: String {
        arguments[0].map { if case .text(let t) = $0 { t } else { "" } }.joined()
    }

    /// What the desktop entry supplies for `%i`, `%c` and `%k`.
    public struct EntryDetails: Sendable {
        /// The entry's `Icon`, which `%i` passes as `--icon ICON`; nothing when nil or empty.
        public var icon: String?
        /// The entry's name, which `%c` becomes; empty when nil.
        public var name: String?
        /// The path of the desktop entry file, which `%k` becomes; empty when nil.
        public var location: String?
        /// Details for `%i`, `%c` and `%k`; each one left out expands to nothing.
        public init(icon: String? = nil, name: String? = nil, location: String? = nil) {
            self.icon = icon
            self.name = name
            self.location = location
        }
    }

    /// The argument vectors that open `files` (absolute paths): one for all
    /// of them with `%F`/`%U`, one per file with `%f`/`%u`, and a single one
    /// without the files when the command takes none.
    public func commands(for files: [String], entry: EntryDetails = EntryDetails()) -> [[String]] {
        // Files never meet the %f/%F refusal, which is for URLs.
        (try? commands(opening: files.map(OpenTarget.file), entry: entry)) ?? []
    }

    /// The argument vectors that open `targets`, as `commands(for:entry:)`
    /// does for files. `%u`/`%U` take a URL as it is and a file as its
    /// `file://` URI; `%f`/`%F` take only files, so a URL among the
    /// targets is refused.
    public func commands(
        opening targets: [OpenTarget], entry: EntryDetails = EntryDetails()
    ) throws(Problem) -> [[String]] {
        switch fileArgument {
        case .single(uri: false), .list(uri: false):
            if case .url(let url, _)? = targets.first(where: { if case .url = $0 { true } else { false } }) {
                let code = fileArgument == .single(uri: false) ? "%f" : "%F"
                throw Problem(
                    code: .urlNotAccepted,
                    message: "its command takes local files (\(code)), so it cannot open the URL \(url)")
            }
        default:
            break
        }
        switch fileArgument {
        case .none, .list:
            return [expand(targets, entry)]
        case .single:
            return targets.isEmpty ? [expand([], entry)] : targets.map { expand([$0], entry) }
        }
    }

    private func expand(_ targets: [OpenTarget], _ entry: EntryDetails) -> [String] {
        func uri(_ target: OpenTarget) -> String {
            switch target {
            case .file(let path): Self.fileURI(path)
            case .url(let url, _): url
            }
        }
        var result: [String] = []
        for argument in arguments {
            if argument == [.field("F")] || argument == [.field("U")] {
                let asURI = argument == [.field("U")]
                result += targets.map { asURI ? uri($0) : $0.argument }
                continue
            }
            if argument == [.field("i")] {
                if let icon = entry.icon, !icon.isEmpty { result += ["--icon", icon] }
                continue
            }
            var text = ""
            var dropped = false
            for piece in argument {
                switch piece {
                case .text(let t): text += t
                case .field("f"): if let target = targets.first { text += target.argument } else { dropped = true }
                case .field("u"): if let target = targets.first { text += uri(target) } else { dropped = true }
                case .field("c"): text += entry.name ?? ""
                case .field("k"): text += entry.location ?? ""
                case .field: dropped = true
                }
            }
            // An argument that was only a missing %f/%u or a deprecated code disappears, as in GLib.
            if dropped && text.isEmpty { continue }
            result.append(text)
        }
        return result
    }

    private static let hexDigits = Array("0123456789ABCDEF")

    /// `file://` and the path with every byte outside RFC 3986's unreserved
    /// set and `/` percent-encoded.
    public static func fileURI(_ path: String) -> String {
        var uri = "file://"
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                uri.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                uri += "%\(hexDigits[Int(byte >> 4)])\(hexDigits[Int(byte & 15)])"
            }
        }
        return uri
    }

    /// `argv` written so a shell reads it back to the same bytes: each
    /// argument with anything but `A-Za-z0-9_@%+=:,./-` in single quotes,
    /// and one holding a control character, or a byte `rawByte` says is not
    /// text, in bash's and zsh's `$'…'` (`\n`, `\t`, `\xHH`, `\\`, `\'`),
    /// which single quotes cannot carry visibly.
    public static func shellQuoted(_ argv: [String], rawByte: (Unicode.Scalar) -> UInt8? = { _ in nil }) -> String {
        argv.map { argument in
            let plain =
                !argument.isEmpty
                && argument.unicodeScalars.allSatisfy { c in
                    switch c {
                    case "A"..."Z", "a"..."z", "0"..."9", "_", "@", "%", "+", "=", ":", ",", ".", "/", "-": true
                    default: false
                    }
                }
            if plain { return argument }
            let isControl = { (c: Unicode.Scalar) in c.value < 0x20 || (0x7F...0x9F).contains(c.value) }
            guard argument.unicodeScalars.contains(where: { isControl($0) || rawByte($0) != nil }) else {
                return "'" + argument.replacing("'", with: "'\\''") + "'"
            }
            var out = "$'"
            func hex(_ byte: UInt8) -> String {
                let digits = Array("0123456789abcdef")
                return "\\x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
            }
            for c in argument.unicodeScalars {
                if let byte = rawByte(c) {
                    out += hex(byte)
                    continue
                }
                switch c {
                case "\\": out += "\\\\"
                case "'": out += "\\'"
                case "\n": out += "\\n"
                case "\t": out += "\\t"
                case "\r": out += "\\r"
                default:
                    if isControl(c) {
                        // C1 controls as their UTF-8 bytes.
                        for byte in String(c).utf8 { out += hex(byte) }
                    } else {
                        out.unicodeScalars.append(c)
                    }
                }
            }
            return out + "'"
        }.joined(separator: " ")
    }

    /// What goes before a command that runs in a terminal (`Terminal=true`),
    /// the way desktops find one: `xdg-terminal-exec` on `PATH` (given the
    /// command as it is), else `$TERMINAL -e`, else Debian's
    /// `x-terminal-emulator -e`. A `TERMINAL` that names no program is
    /// passed over for the next. A failure names what was looked for.
    public static func terminal(environment: [String: String]) -> Result<[String], Problem> {
        let searchPath = EnvironmentVariable.path.value(in: environment)
        if let program = locate("xdg-terminal-exec", searchPath: searchPath) { return .success([program]) }
        let name = EnvironmentVariable.terminal.value(in: environment).flatMap { $0.isEmpty ? nil : $0 }
        if let name, let program = locate(name, searchPath: searchPath) { return .success([program, "-e"]) }
        if let program = locate("x-terminal-emulator", searchPath: searchPath) { return .success([program, "-e"]) }
        let terminal = name.map { "TERMINAL=\($0) is not a program on PATH" } ?? "TERMINAL is not set"
        return .failure(
            Problem(
                code: .noTerminal,
                message: "the entry runs in a terminal (Terminal=true), and none was found: "
                    + "no xdg-terminal-exec or x-terminal-emulator on PATH, and \(terminal)"))
    }

    /// The path of `program` as `execvp` would find it in `searchPath`
    /// (`PATH`), or nil. A name with a `/` is taken as it is.
    public static func locate(_ program: String, searchPath: String?) -> String? {
        if program.isEmpty { return nil }
        if program.utf8.contains(UInt8(ascii: "/")) {
            return access(program, X_OK) == 0 && !PathKind.isFolder(program) ? program : nil
        }
        for dir in (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(
            separator: ":", omittingEmptySubsequences: false)
        {
            let candidate = (dir.isEmpty ? "." : String(dir)) + "/" + program
            if access(candidate, X_OK) == 0 && !PathKind.isFolder(candidate) { return candidate }
        }
        return nil
    }
}
