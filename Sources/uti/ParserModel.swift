import ArgumentParser

/// The argument parser's own description of a command, as
/// `--experimental-dump-help` prints it (`_dumpHelp()`): read, on the
/// parser's route only, for which of its options take a value.
enum ParserModel {
    /// The spellings (`--add`, `-t`) of `command`'s options that take a
    /// value, as the parser declares them.
    static func optionsTakingValues(of command: ParsableCommand.Type) -> Set<String> {
        var names: Set<String> = []
        guard let dump = JSON.parse(command._dumpHelp()) else { return names }
        for argument in dump["command"]?["arguments"]?.elements ?? [] where argument["kind"]?.text == "option" {
            for name in argument["names"]?.elements ?? [] {
                guard let word = name["name"]?.text else { continue }
                names.insert((name["kind"]?.text == "long" ? "--" : "-") + word)
            }
        }
        return names
    }
}

extension JSON {
    /// The value of `key` in an object; nil for anything else.
    subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// The items of an array; nil for anything else.
    var elements: [JSON]? {
        guard case .array(let items) = self else { return nil }
        return items
    }

    /// A string's text; nil for anything else.
    var text: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// `text` read as one JSON value; nil when it is not well formed. A
    /// number that is not a whole `Int` is read as 0 (nothing here reads one).
    static func parse(_ text: String) -> JSON? {
        var reader = Reader(bytes: Array(text.utf8))
        guard let value = reader.value() else { return nil }
        reader.skipSpace()
        return reader.index == reader.bytes.count ? value : nil
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        /// How deeply arrays and objects nest here.
        var depth = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        }

        mutating func take(_ literal: String) -> Bool {
            let expected = Array(literal.utf8)
            guard bytes[index...].starts(with: expected) else { return false }
            index += expected.count
            return true
        }

        mutating func value() -> JSON? {
            skipSpace()
            guard index < bytes.count, depth < 256 else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                return container(close: "}") { reader in
                    guard let key = reader.string() else { return nil }
                    reader.skipSpace()
                    guard reader.take(":"), let value = reader.value() else { return nil }
                    return (key, value)
                }.map { JSON.object($0) }
            case UInt8(ascii: "["):
                return container(close: "]") { reader in reader.value().map { ("", $0) } }
                    .map { JSON.array($0.map(\.1)) }
            case UInt8(ascii: "\""): return string().map(JSON.string)
            case UInt8(ascii: "t"): return take("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return take("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return take("null") ? .null : nil
            default:
                let start = index
                while index < bytes.count, Array("+-.0123456789eE".utf8).contains(bytes[index]) { index += 1 }
                guard index > start else { return nil }
                return .int(Int(String(decoding: bytes[start..<index], as: UTF8.self)) ?? 0)
            }
        }

        /// The members of an object or the items of an array, after its
        /// opening bracket.
        mutating func container(
            close: Unicode.Scalar, _ member: (inout Reader) -> (String, JSON)?
        ) -> [(String, JSON)]? {
            index += 1
            depth += 1
            defer { depth -= 1 }
            var members: [(String, JSON)] = []
            skipSpace()
            if take(String(close)) { return members }
            while true {
                skipSpace()
                guard let next = member(&self) else { return nil }
                members.append(next)
                skipSpace()
                if take(String(close)) { return members }
                guard take(",") else { return nil }
            }
        }

        mutating func string() -> String? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            index += 1
            var text: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") { return String(decoding: text, as: UTF8.self) }
                if byte == UInt8(ascii: "\\") {
                    guard let escaped = escape() else { return nil }
                    text.append(contentsOf: String(escaped).utf8)
                } else {
                    text.append(byte)
                }
            }
            return nil
        }

        /// The character a backslash escape stands for, after the backslash.
        mutating func escape() -> Unicode.Scalar? {
            guard index < bytes.count else { return nil }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                guard let high = hex() else { return nil }
                guard (0xD800..<0xDC00).contains(high) else { return Unicode.Scalar(high) }
                guard take("\\u"), let low = hex(), (0xDC00..<0xE000).contains(low) else { return nil }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            default: return nil
            }
        }

        /// Four hexadecimal digits.
        mutating func hex() -> UInt32? {
            guard index + 4 <= bytes.count,
                let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
            else { return nil }
            index += 4
            return value
        }
    }
}
