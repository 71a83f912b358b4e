/// A name in a folder as the file system holds it: bytes, which need not be
/// UTF-8. Two names are equal only when their bytes are (NFC and NFD forms
/// of the same text are different names, as they are on ext4).
public struct FileName: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The name's bytes, without a terminating NUL.
    public var bytes: [UInt8]

    /// The longest name Linux file systems accept (NAME_MAX), in bytes.
    public static let maximumLength = 255

    /// The name made of these bytes, as they are.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    /// The name made of `text`'s UTF-8 bytes, not normalized.
    public init(_ text: String) { self.bytes = Array(text.utf8) }

    /// The name as text, when its bytes are valid UTF-8.
    public var text: String? { String(validating: bytes, as: UTF8.self) }

    /// A printable, unambiguous form for a terminal: valid UTF-8 as is, a
    /// backslash doubled, control characters as `\n`, `\t` or `\xHH`, and
    /// bytes that are not UTF-8 as `\xHH`.
    public var escaped: String {
        // Printable ASCII other than a backslash stands for itself.
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x5C }) { return String(decoding: bytes, as: UTF8.self) }
        var out = ""
        var index = 0
        while index < bytes.count {
            let length = Self.scalarLength(bytes, at: index)
            if length == 0 {
                out += Self.hexEscape(bytes[index])
                index += 1
                continue
            }
            let scalarBytes = bytes[index..<(index + length)]
            index += length
            let scalar = String(decoding: scalarBytes, as: UTF8.self).unicodeScalars.first!
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) {
                    for byte in scalarBytes { out += Self.hexEscape(byte) }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// The `escaped` form.
    public var description: String { escaped }

    /// Whether `a` sorts before `b`, comparing bytes as unsigned numbers
    /// (no locale or Unicode ordering); a prefix sorts first.
    public static func < (a: FileName, b: FileName) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }

    private static func hexEscape(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return "\\x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
    }

    /// The length of the well-formed UTF-8 sequence at `index`, or 0.
    static func scalarLength(_ bytes: [UInt8], at index: Int) -> Int {
        let lead = bytes[index]
        let length: Int
        let lowest: UInt32
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF:
            length = 2
            lowest = 0x80
        case 0xE0...0xEF:
            length = 3
            lowest = 0x800
        case 0xF0...0xF4:
            length = 4
            lowest = 0x10000
        default: return 0
        }
        guard index + length <= bytes.count else { return 0 }
        var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard byte & 0xC0 == 0x80 else { return 0 }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard value >= lowest, value <= 0x10FFFF, !(0xD800...0xDFFF).contains(value) else { return 0 }
        return length
    }
}

/// A name cut into the part a counter follows and the extension it goes
/// before: `archive.tar.gz` is `archive` + `tar.gz` when `tar.gz` is a known
/// extension, `notes` has no extension, and a leading dot starts none
/// (`.profile`).
public struct NumberedName: Sendable {
    /// The name before the extension's dot, which the counter follows; the
    /// whole name when it has no extension.
    public let stem: [UInt8]
    /// Without its dot; empty when the name has none.
    public let pathExtension: [UInt8]

    /// Splits `name` before the longest extension `isKnownExtension` accepts,
    /// or before the last one when none is known.
    public init(_ name: FileName, isKnownExtension: (ArraySlice<UInt8>) -> Bool) {
        let bytes = name.bytes
        let dot = UInt8(ascii: ".")
        var starts: [Int] = []  // where each extension begins, longest first
        // The last dot of a run starts an extension (`a..pdf` is `a.` and
        // `pdf`); a leading dot does not (`.profile`).
        for i in 1..<max(bytes.count - 1, 1) where bytes[i] == dot && bytes[i + 1] != dot {
            starts.append(i + 1)
        }
        guard let last = starts.last else {
            stem = bytes
            pathExtension = []
            return
        }
        let start = starts.first { isKnownExtension(bytes[$0...]) } ?? last
        stem = Array(bytes[..<(start - 1)])
        pathExtension = Array(bytes[start...])
    }

    /// The name with `counter` before its extension (`archive-3.tar.gz`),
    /// the stem shortened on a UTF-8 boundary when the result would pass
    /// `FileName.maximumLength` bytes. When even a one-byte stem cannot
    /// make room, the counter ends the shortened whole name.
    public func numbered(_ counter: Int) -> FileName {
        let tail = Array("-\(counter)".utf8)
        let suffix = pathExtension.isEmpty ? [] : [UInt8(ascii: ".")] + pathExtension
        let room = FileName.maximumLength - tail.count - suffix.count
        if room >= 1 {
            return FileName(Self.prefix(stem, fitting: room) + tail + suffix)
        }
        let whole = pathExtension.isEmpty ? stem : stem + suffix
        return FileName(Self.prefix(whole, fitting: FileName.maximumLength - tail.count) + tail)
    }

    /// The longest prefix of at most `limit` bytes that does not end inside
    /// a UTF-8 sequence.
    static func prefix(_ bytes: [UInt8], fitting limit: Int) -> [UInt8] {
        guard bytes.count > limit else { return bytes }
        var end = limit
        while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
        if end == 0 { end = limit }  // no boundary at all: not UTF-8, cut anywhere
        return Array(bytes[..<end])
    }
}
