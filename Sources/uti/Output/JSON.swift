/// A JSON value with object keys kept in insertion order, and its
/// serialization. Enough for `uti`'s output, and for reading the argument
/// parser's description of a command (`JSON.parse`, `ParserModel`).
enum JSON {
    case null
    case bool(Bool)
    case int(Int)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    static func optional(_ value: String?) -> JSON { value.map(JSON.string) ?? .null }
    static func strings(_ values: [String]) -> JSON { .array(values.map(JSON.string)) }

    /// Compact when `indent` is nil, else pretty-printed with that many spaces.
    func serialized(indent: Int? = 2) -> String {
        var out = ""
        write(into: &out, indent: indent, level: 0)
        return out
    }

    private func write(into out: inout String, indent: Int?, level: Int) {
        func newline(_ level: Int) {
            guard let indent else { return }
            out += "\n" + String(repeating: " ", count: indent * level)
        }
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let n): out += String(n)
        case .string(let s): JSON.quote(s, into: &out)
        case .array(let items):
            if items.isEmpty {
                out += "[]"
                return
            }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                newline(level + 1)
                item.write(into: &out, indent: indent, level: level + 1)
            }
            newline(level)
            out += "]"
        case .object(let members):
            if members.isEmpty {
                out += "{}"
                return
            }
            out += "{"
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out += "," }
                newline(level + 1)
                JSON.quote(key, into: &out)
                out += indent == nil ? ":" : ": "
                value.write(into: &out, indent: indent, level: level + 1)
            }
            newline(level)
            out += "}"
        }
    }

    static func quote(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

extension JSON {
    /// A path or name under `key`: as it is when it is UTF-8; else escaped as
    /// `uti inbox` escapes names, with its bytes in hex under `key` + `Hex`.
    static func path(_ key: String, bytes: [UInt8]) -> [(String, JSON)] {
        if let text = String(validating: bytes, as: UTF8.self) { return [(key, .string(text))] }
        let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        return [(key, .string(Escaping.name(PathText.text(bytes)))), (key + "Hex", .string(hex))]
    }
}
