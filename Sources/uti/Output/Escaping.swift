/// Text from names, arguments and other people's files made safe to print:
/// a control character never reaches the terminal as itself (an escape
/// sequence in a file name must not recolour or retitle it), and a name
/// stays on its line. A byte of a name that is not UTF-8 is written `\xHH`
/// too, as `uti inbox` writes it.
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
    static func name(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) || $0 == "\\" }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default: if isControl(scalar) { out += hex(scalar) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    /// Control characters, and the scalars that carry a byte of a name that
    /// is not UTF-8 (`PathText`): both are written as `\xHH`.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
            || PathText.isCarrier(scalar)
    }

    private static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = Array("0123456789abcdef")
        let bytes = PathText.isCarrier(scalar) ? [PathText.byte(scalar)] : Array(String(scalar).utf8)
        return bytes.map { "\\x" + String(digits[Int($0 >> 4)]) + String(digits[Int($0 & 15)]) }.joined()
    }
}
