import ArgumentParser

/// Text for a person to read. What `uti` says itself is written as string
/// literals; every value interpolated into them is escaped (`Escaping`),
/// so that a name, description, identifier, path, URL or message that came
/// from outside can neither start a line of its own nor send a control
/// character to the terminal. The human forms of the commands are built of
/// these; machine forms (JSON, `-0` records, paths handed on as bytes) are not.
struct TerminalText: ExpressibleByStringInterpolation, Sendable {
    /// The text, its interpolated values escaped.
    private(set) var string: String

    init(stringLiteral literal: String) { string = literal }

    init(stringInterpolation: StringInterpolation) { string = stringInterpolation.string }

    struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var string = ""

        init(literalCapacity: Int, interpolationCount: Int) {
            string.reserveCapacity(literalCapacity + 16 * interpolationCount)
        }

        mutating func appendLiteral(_ literal: String) { string += literal }

        /// A value, escaped as `uti inbox` escapes names: `\n`, `\t`, `\r`,
        /// `\\`, other control characters `\xHH`.
        mutating func appendInterpolation(_ value: String) { string += Escaping.name(value) }

        /// A message that quotes values, or text another escaper already
        /// wrote (a name as `uti inbox` writes it): its control characters
        /// are escaped, its backslashes kept.
        mutating func appendInterpolation(keepingBackslashes text: String) { string += Escaping.line(text) }

        /// A command line, quoted so that a shell reads it back (`Escaping.command`).
        mutating func appendInterpolation(command argv: [String]) { string += Escaping.command(argv) }

        mutating func appendInterpolation(_ number: Int) { string += String(number) }

        mutating func appendInterpolation(_ text: TerminalText) { string += text.string }
    }

    /// `values`, each escaped, joined by `separator`.
    static func list(_ values: [String], separator: TerminalText = ", ") -> TerminalText {
        values.map { "\($0)" as TerminalText }.joined(separator: separator)
    }

    /// Characters, for lining up columns.
    var count: Int { string.count }

    /// The text followed by spaces up to `width` characters (at least one).
    func padding(_ width: Int) -> TerminalText { TerminalText(string: string.padding(width)) }

    static func + (lhs: TerminalText, rhs: TerminalText) -> TerminalText {
        TerminalText(string: lhs.string + rhs.string)
    }

    static func += (lhs: inout TerminalText, rhs: TerminalText) { lhs.string += rhs.string }

    /// Writes `text` and a line feed to standard output through `print`, in
    /// order with everything else a command prints that way.
    static func print(_ text: TerminalText) { Swift.print(text.string) }

    private init(string: String) { self.string = string }
}

extension Sequence where Element == TerminalText {
    func joined(separator: TerminalText = "") -> TerminalText {
        var result: TerminalText = ""
        for (index, text) in enumerated() {
            if index > 0 { result += separator }
            result += text
        }
        return result
    }
}

extension Console {
    /// Writes `message` and a line feed to standard error.
    static func error(_ message: TerminalText) { error(message.string) }

    /// Reports a failure and returns the exit code to throw.
    static func fail(_ message: TerminalText) -> ExitCode { fail(message.string) }
}
