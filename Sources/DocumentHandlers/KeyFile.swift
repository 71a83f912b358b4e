import PropertyLists
import SystemBase
import UniformTypes

/// A file in the freedesktop key-file format (desktop entries,
/// `mimeapps.list`): `[Group]` headers, `Key=Value` and `Key[locale]=Value`
/// entries, `#` comments. Values keep their escapes until read with
/// `string`/`strings`.
public struct KeyFile: Sendable {
    /// One `Key=Value` line.
    public struct Entry: Sendable, Equatable {
        /// The key without its locale.
        public var key: String
        /// The locale in brackets (`de` of `Name[de]`); nil for an unlocalized key.
        public var locale: String?
        /// The value as written, escapes untouched.
        public var rawValue: String
        /// The line number, from 1.
        public var line: Int
    }

    /// A `[Group]` header and its entries.
    public struct Group: Sendable {
        /// The name between the brackets.
        public var name: String
        /// The line number of the header, from 1 (the first one when the group is repeated).
        public var line: Int
        /// The entries in file order, those after a repeat of the header included.
        public var entries: [Entry]

        /// The last unlocalized entry for `key` (later lines win, as in GLib).
        public func entry(_ key: String) -> Entry? {
            entries.last { $0.key == key && $0.locale == nil }
        }

        /// The entry for `key` best matching `language` (`de_DE` tries
        /// `de_DE`, then `de`), else the unlocalized one.
        public func entry(_ key: String, language: String?) -> Entry? {
            if let language, !language.isEmpty {
                var tries = [language]
                if let cut = language.firstIndex(where: { $0 == "_" || $0 == "." || $0 == "@" }) {
                    tries.append(String(language[..<cut]))
                }
                for tag in tries {
                    if let found = entries.last(where: { $0.key == key && $0.locale == tag }) { return found }
                }
            }
            return entry(key)
        }
    }

    /// The largest key file read (desktop entries are a few kilobytes).
    public static let maximumBytes = 4 << 20

    /// The file's path, which diagnostics name.
    public let path: String
    /// The groups in the order they first appear; a repeated group is merged into the first.
    public private(set) var groups: [Group] = []
    /// Lines that could not be read; they are skipped.
    public private(set) var diagnostics: [Diagnostic] = []

    /// The first group named `name` (a repeated group is merged into it).
    public func group(_ name: String) -> Group? { groups.first { $0.name == name } }

    /// How lines that GLib's `GKeyFile` cannot parse are read.
    public enum Parsing: Sendable {
        /// Each bad line is a diagnostic and is skipped, so one mistake
        /// does not hide the rest.
        case lineByLine
        /// As `GKeyFile` loads the file (GIO's reading of `mimeapps.list`):
        /// a line that is not blank, a `#` comment, a valid `[Group]` or a
        /// valid `Key=Value` in a group makes the whole file unread (no
        /// groups, one diagnostic naming the line); a key given again in a
        /// group replaces the earlier entry. Other bad lines are skipped as
        /// `lineByLine` skips them.
        case asGKeyFile
    }

    /// Parses `bytes`, read from `path`. Never fails: bad lines become
    /// diagnostics and are skipped, so one mistake does not hide the rest.
    public init(bytes: [UInt8], path: String) { self.init(bytes: bytes, path: path, parsing: .lineByLine) }

    /// Parses `bytes`, read from `path`, as `parsing` says. Never fails:
    /// bad lines become diagnostics; with `.asGKeyFile`, a line GLib
    /// cannot parse makes the whole file unread, as GLib leaves it.
    public init(bytes: [UInt8], path: String, parsing: Parsing) {
        self.path = path
        var bytes = bytes
        if parsing == .asGKeyFile, String(validating: bytes, as: UTF8.self) == nil {
            bytes = Self.withoutUndecodableLines(bytes, path: path, diagnostics: &diagnostics)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            let offset = Self.firstInvalidUTF8(bytes)
            let line = bytes[..<offset].reduce(1) { $0 + ($1 == 10 ? 1 : 0) }
            diagnostics.append(
                Diagnostic(
                    .error, file: path, position: .line(line),
                    "not UTF-8 (byte \(offset)); the file is ignored"))
            return
        }
        var lineNumber = 0
        var groupIndex: [String: Int] = [:]
        var current: Int?
        var inGKeyFileGroup = false
        for rawLine in Self.lines(of: text) {
            lineNumber += 1
            if parsing == .asGKeyFile,
                let refusal = Self.gKeyFileRefusal(rawLine, inGroup: &inGKeyFileGroup)
            {
                groups = []
                diagnostics.append(
                    Diagnostic(
                        .error, file: path, position: .line(lineNumber),
                        refusal + "; GLib reads no line of a file with such a line, and the whole file is ignored"))
                return
            }
            switch Line(rawLine) {
            case .blank, .comment:
                continue
            case .control(let column, let scalar):
                // Values are text: a control character (a NUL most of all)
                // cannot reach a command line or a name intact.
                let hex = String(scalar.value, radix: 16, uppercase: true)
                report(
                    lineNumber,
                    "control character U+\(String(repeating: "0", count: 4 - hex.count) + hex) at column \(column)")
            case .header(nil):
                report(lineNumber, "group header without a closing \"]\"")
                current = nil
            case .header(let name?):
                if name.isEmpty
                    || name.unicodeScalars.contains(where: {
                        $0 == "[" || $0 == "]" || $0.value < 0x20 || $0.value == 0x7F
                    })
                {
                    report(lineNumber, "invalid group name \"[\(name)]\"")
                    current = nil
                } else if let existing = groupIndex[name] {
                    diagnostics.append(
                        Diagnostic(
                            .warning, file: path, position: .line(lineNumber),
                            "group [\(name)] repeats the one on line \(groups[existing].line); merged"))
                    current = existing
                } else {
                    groupIndex[name] = groups.count
                    current = groups.count
                    groups.append(Group(name: name, line: lineNumber, entries: []))
                }
            case .noEquals:
                report(lineNumber, "expected \"Key=Value\", a [Group] or a # comment")
            case .entry(let keyPart, let key, let locale, let value):
                guard let index = current else {
                    report(
                        lineNumber,
                        groups.isEmpty ? "entry before the first [Group]" : "entry in a group that could not be read")
                    continue
                }
                guard !key.isEmpty, key.unicodeScalars.allSatisfy(Self.isKeyCharacter) else {
                    report(lineNumber, "invalid key \"\(keyPart)\" (keys are letters, digits, -, /, ., +, _ and *)")
                    continue
                }
                if let locale, locale.isEmpty {
                    report(lineNumber, "empty locale in \"\(keyPart)\"")
                    continue
                }
                if parsing == .asGKeyFile {
                    // GLib keeps the last value of a key, in a group given once or repeated.
                    groups[index].entries.removeAll { $0.key == key && $0.locale == locale }
                }
                groups[index].entries.append(Entry(key: key, locale: locale, rawValue: value, line: lineNumber))
            }
        }
    }

    /// `bytes` with each line that is not UTF-8 put as GLib reads it: a
    /// comment stays a comment, a group header stays a group, but one
    /// named as no group uti reads (its keys are read by no one), and a
    /// key's line gives no value (a warning names it). GLib loads such a
    /// file and fails only on reading that key's value.
    static func withoutUndecodableLines(
        _ bytes: [UInt8], path: String, diagnostics: inout [Diagnostic]
    ) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        for (index, line) in bytes.split(separator: 10, omittingEmptySubsequences: false).enumerated() {
            if index > 0 { result.append(10) }
            guard String(validating: line, as: UTF8.self) == nil else {
                result.append(contentsOf: line)
                continue
            }
            let start = line.drop { $0 == 32 || $0 == 9 }
            switch start.first {
            case UInt8(ascii: "#"): result.append(UInt8(ascii: "#"))
            case UInt8(ascii: "["): result.append(contentsOf: Array("[\u{FFFD}]".utf8))
            default:
                diagnostics.append(
                    Diagnostic(
                        .warning, file: path, position: .line(index + 1),
                        "not UTF-8; GLib reads no value from this line, and it is skipped"))
            }
        }
        return result
    }

    /// The lines of `text`, split at line feeds and not at Characters: CR LF
    /// is one Character, so a file with CR LF endings would otherwise be one
    /// long line. Each line keeps a CR that ends it.
    static func lines(of text: String) -> [Substring.UnicodeScalarView] {
        text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// One line taken apart on Unicode scalars, as GLib takes it apart on
    /// bytes: in Characters, a combining mark after `=`, `[`, `]` or a blank
    /// would hide it.
    enum Line: Equatable {
        /// Only blanks (spaces, tabs, a final CR).
        case blank
        /// A `#` comment.
        case comment
        /// A control character other than tab, at a 1-based column.
        case control(column: Int, scalar: Unicode.Scalar)
        /// `[NAME]` with only blanks after the last `]`; nil when there is
        /// no such `]`.
        case header(String?)
        /// Neither a header nor a `Key=Value` line.
        case noEquals
        /// `KEY[LOCALE]=VALUE`: the key part as written (blanks trimmed),
        /// split into key and locale, and the value without leading blanks.
        case entry(keyPart: String, key: String, locale: String?, value: String)

        init(_ raw: Substring.UnicodeScalarView) {
            var line = raw
            if line.last == "\r" { line.removeLast() }
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.first == "#" {
                self = trimmed.isEmpty ? .blank : .comment
                return
            }
            if let control = line.firstIndex(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) {
                self = .control(column: line.distance(from: line.startIndex, to: control) + 1, scalar: line[control])
                return
            }
            if trimmed.first == "[" {
                guard let close = trimmed.lastIndex(of: "]"),
                    trimmed[trimmed.index(after: close)...].allSatisfy({ $0 == " " || $0 == "\t" })
                else {
                    self = .header(nil)
                    return
                }
                self = .header(String(trimmed[trimmed.index(after: trimmed.startIndex)..<close]))
                return
            }
            guard let eq = trimmed.firstIndex(of: "=") else {
                self = .noEquals
                return
            }
            let keyPart = trimmed[..<eq].trimmingBlanks
            var value = trimmed[trimmed.index(after: eq)...]
            while value.first == " " || value.first == "\t" { value.removeFirst() }
            var key = keyPart
            var locale: String?
            if keyPart.last == "]", let open = keyPart.firstIndex(of: "[") {
                key = keyPart[..<open]
                locale = String(keyPart[keyPart.index(after: open)..<keyPart.index(before: keyPart.endIndex)])
            }
            self = .entry(keyPart: String(keyPart), key: String(key), locale: locale, value: String(value))
        }
    }

    /// Reads and parses the file at `path`, each bad line skipped.
    public static func read(path: String) throws(FileContents.ReadError) -> KeyFile {
        try read(path: path, parsing: .lineByLine)
    }

    /// Reads and parses the file at `path` as `parsing` says.
    public static func read(path: String, parsing: Parsing) throws(FileContents.ReadError) -> KeyFile {
        KeyFile(bytes: try FileContents.read(path, limit: maximumBytes), path: path, parsing: parsing)
    }

    /// Why GLib's `GKeyFile` (2.74) refuses to load a file holding `raw`,
    /// or nil when it parses the line; `inGroup` says whether a group was
    /// opened before, and becomes true at a group header. Measured with
    /// `gio mime` against `mimeapps.list` files: blanks are spaces, tabs,
    /// CR, LF and form feeds (not vertical tabs); a `[` line is a group
    /// only when its first `]` is followed by blanks alone; a group name
    /// is not empty and holds no `[` or control character; a key is not
    /// empty, begins and ends with no space, holds no `[` or `]` but an
    /// optional `[locale]` of letters, digits, `-`, `_`, `.` and `@` at its
    /// end; a key before the first group is refused; a NUL ends the line.
    static func gKeyFileRefusal(_ raw: Substring.UnicodeScalarView, inGroup: inout Bool) -> String? {
        var line = raw
        if let nul = line.firstIndex(of: "\u{0}") { line = line[..<nul] }
        if line.last == "\r" { line.removeLast() }
        let start = line.drop { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\u{0C}" }
        if start.isEmpty || start.first == "#" { return nil }
        func isControl(_ c: Unicode.Scalar) -> Bool { c.value < 0x20 || c.value == 0x7F }
        if start.first == "[", let close = start.firstIndex(of: "]"),
            start[start.index(after: close)...].allSatisfy({ $0 == " " || $0 == "\t" })
        {
            let name = start[start.index(after: start.startIndex)..<close]
            if name.isEmpty || name.contains("[") || name.contains(where: isControl) {
                return "invalid group name \"[\(String(name))]\""
            }
            inGroup = true
            return nil
        }
        guard let equals = start.firstIndex(of: "="), equals != start.startIndex else {
            return "expected \"Key=Value\", a [Group] or a # comment"
        }
        guard inGroup else { return "entry before the first [Group]" }
        var key = start[..<equals]
        while let last = key.last, last == " " || last == "\t" || last == "\r" || last == "\n" || last == "\u{0C}" {
            key.removeLast()
        }
        let invalid = "invalid key \"\(String(key))\""
        let base = key.prefix { $0 != "[" && $0 != "]" }
        guard !base.isEmpty, base.first != " ", base.last != " " else { return invalid }
        var rest = key[base.endIndex...]
        guard let opening = rest.first else { return nil }
        guard opening == "[" else { return invalid }
        rest.removeFirst()
        let locale = rest.prefix {
            $0.properties.isAlphabetic || $0.properties.numericType != nil || "-_.@".unicodeScalars.contains($0)
        }
        let after = rest[locale.endIndex...]
        return after.count == 1 && after.first == "]" ? nil : invalid
    }

    /// The key names of a group as the spec allows them, plus `/`, `.`
    /// and `+`, which MIME types used as keys in `mimeapps.list` need.
    static func isKeyCharacter(_ c: Unicode.Scalar) -> Bool {
        switch c {
        // `*`: wildcard MIME keys (`image/*`) of mimeapps.list, as handlr writes them.
        case "A"..."Z", "a"..."z", "0"..."9", "-", "/", ".", "+", "_", "*": true
        default: false
        }
    }

    private mutating func report(_ line: Int, _ message: String) {
        diagnostics.append(Diagnostic(.error, file: path, position: .line(line), message + "; the line is skipped"))
    }

    /// The offset of the first byte that does not start a valid UTF-8 sequence.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int {
        var offset = 0
        while offset < bytes.count {
            var end = offset + 1
            while end < bytes.count && end - offset < 4 && (bytes[end] & 0xC0) == 0x80 { end += 1 }
            if String(validating: bytes[offset..<end], as: UTF8.self) == nil { return offset }
            offset = end
        }
        return bytes.count
    }
}

/// Reading values: the escapes of the key-file format.
public enum KeyFileValue {
    /// A problem in a value; the message names the column.
    public struct Problem: Error, Sendable, Equatable {
        /// What kind of problem it is, for a caller to switch on.
        public enum Code: Sendable, Hashable {
            /// A `\` is the last character of the value.
            case trailingBackslash
            /// A `\` is followed by a character that makes no escape.
            case unknownEscape
        }

        /// What kind of problem it is.
        public var code: Code
        /// What is wrong, with the column.
        public var message: String
    }

    /// The value with `\s`, `\n`, `\t`, `\r` and `\\` replaced.
    public static func string(_ raw: String) throws(Problem) -> String {
        try unescape(raw, separator: nil).joined()
    }

    /// The `;`-separated list in the value, `\;` kept as `;`; a final `;`
    /// ends the list, and empty items are dropped.
    public static func strings(_ raw: String) throws(Problem) -> [String] {
        try unescape(raw, separator: ";").filter { !$0.isEmpty }
    }

    /// GLib's booleans: `true`/`false` (and `1`/`0`).
    public static func boolean(_ raw: String) -> Bool? {
        switch raw.trimmingSpaces {
        case "true", "1": true
        case "false", "0": false
        default: nil
        }
    }

    private static func unescape(_ raw: String, separator: Unicode.Scalar?) throws(Problem) -> [String] {
        var items: [String] = []
        var current = String.UnicodeScalarView()
        var iterator = raw.unicodeScalars.makeIterator()
        var column = 0
        while let c = iterator.next() {
            column += 1
            if c == "\\" {
                guard let next = iterator.next() else {
                    throw Problem(code: .trailingBackslash, message: "a \"\\\" ends the value (column \(column))")
                }
                column += 1
                switch next {
                case "s": current.append(" ")
                case "n": current.append("\n")
                case "t": current.append("\t")
                case "r": current.append("\r")
                case "\\": current.append("\\")
                case ";" where separator != nil: current.append(";")
                case ";": current.append(contentsOf: "\\;".unicodeScalars)
                default:
                    throw Problem(code: .unknownEscape, message: "unknown escape \"\\\(next)\" (column \(column - 1))")
                }
            } else if let separator, c == separator {
                items.append(String(current))
                current = String.UnicodeScalarView()
            } else {
                current.append(c)
            }
        }
        items.append(String(current))
        return items
    }
}

extension Substring.UnicodeScalarView {
    /// Without leading and trailing spaces and tabs.
    var trimmingBlanks: Substring.UnicodeScalarView {
        var s = self
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return s
    }
}

extension StringProtocol {
    var trimmingSpaces: Substring {
        var s = self[...]
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return Substring(s)
    }
}
