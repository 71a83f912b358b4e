import DocumentHandlers

/// Text from names, arguments and other people's files made safe to print:
/// a control character never reaches the terminal as itself (an escape
/// sequence in a file name must not recolour or retitle it), and a name
/// stays on its line. A byte of a name that is not UTF-8 is written `\xHH`
/// too, as `uti inbox` writes it. Line and paragraph separators and the
/// bidirectional embeddings, overrides and isolates (U+2028, U+2029,
/// U+202A–U+202E, U+2066–U+2069), which would break a line or reorder it
/// on screen, count as control characters here.
enum Escaping {
    /// `text` with every control character but line feed and tab (C0, DEL,
    /// C1) written as `\xHH` (its UTF-8 bytes): for messages and blocks of
    /// several lines.
    static func controls(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) && $0 != "\n" && $0 != "\t" }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) && scalar != "\n" && scalar != "\t" {
                out += hex(scalar)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A name or argument for one line of output, escaped as `uti inbox`
    /// writes names: `\\`, `\n`, `\t`, `\r`, other control characters `\xHH`.
    static func name(_ text: String) -> String { oneLine(text, backslashes: true) }

    /// `text` on one line with its backslashes as they are, its control
    /// characters escaped as in `name(_:)`: for a message that quotes
    /// values, and for text another escaper already wrote.
    static func line(_ text: String) -> String { oneLine(text, backslashes: false) }

    /// `argv` quoted as `ExecCommand.shellQuoted` quotes it, so that a shell
    /// reads it back to the same bytes; a separator or bidirectional control
    /// is written in `$'…'` as its UTF-8 bytes (`\xe2\x80\xae`).
    static func command(_ argv: [String]) -> String {
        func quoted(_ argument: String) -> String { ExecCommand.shellQuoted([argument], rawByte: PathText.rawByte) }
        return argv.map { argument in
            guard argument.unicodeScalars.contains(where: isLayoutControl) else { return quoted(argument) }
            // Quoted pieces next to each other make one word.
            var word = ""
            var piece = String.UnicodeScalarView()
            for scalar in argument.unicodeScalars {
                if isLayoutControl(scalar) {
                    if !piece.isEmpty { word += quoted(String(piece)) }
                    piece = String.UnicodeScalarView()
                    word += "$'" + hex(scalar) + "'"
                } else {
                    piece.append(scalar)
                }
            }
            return piece.isEmpty ? word : word + quoted(String(piece))
        }.joined(separator: " ")
    }

    private static func oneLine(_ text: String, backslashes: Bool) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) || (backslashes && $0 == "\\") }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += backslashes ? "\\\\" : "\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default: if isControl(scalar) { out += hex(scalar) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    /// Control characters, the scalars that carry a byte of a name that is
    /// not UTF-8 (`PathText`), and separators and bidirectional controls:
    /// all are written as `\xHH`.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
            || PathText.isCarrier(scalar) || isLayoutControl(scalar)
    }

    /// U+2028, U+2029 and the bidirectional embeddings, overrides and isolates.
    private static func isLayoutControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x2028...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    private static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = Array("0123456789abcdef")
        let bytes = PathText.isCarrier(scalar) ? [PathText.byte(scalar)] : Array(String(scalar).utf8)
        return bytes.map { "\\x" + String(digits[Int($0 >> 4)]) + String(digits[Int($0 & 15)]) }.joined()
    }
}
