import SystemBase

/// The text forms of `<match>` attributes in shared-mime-info XML.
enum MagicValueSyntax {
    struct Failure: Error { var reason: String }

    /// `N` gives (N, 1); `START:END` gives (START, END - START + 1).
    static func offsetRange(_ text: String) -> (start: Int, length: Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let start = Int(parts[0]), start >= 0, start <= Int(Int32.max) else { return nil }
        guard parts.count == 2 else { return (start, 1) }
        guard let end = Int(parts[1]), end >= start, end <= Int(Int32.max) else { return nil }
        return (start, end - start + 1)
    }

    /// Byte width and order of a numeric match type; nil for `string`.
    static func numericLayout(_ type: String) -> (width: Int, bigEndian: Bool)? {
        switch type {
        case "byte": (1, true)
        case "big16": (2, true)
        case "big32": (4, true)
        case "little16": (2, false)
        case "little32": (4, false)
        // This machine's order, as the specification says and as GIO
        // compares a `magic` file compiled from the package when a folder
        // has no `mime.cache` (a cache stores them big-endian, and GIO
        // compares those bytes as stored: see `MIMECacheReader`).
        case "host16": (2, hostIsBigEndian)
        case "host32": (4, hostIsBigEndian)
        default: nil
        }
    }

    static let hostIsBigEndian = 1.bigEndian == 1

    static let knownTypes: Set<String> = [
        "string", "byte", "big16", "big32", "little16", "little32", "host16", "host32",
    ]

    /// The bytes to compare: a string with C escapes (`\x7f`, `\177`, `\n`,
    /// `\\`), or a number (decimal, `0x` hex or leading-`0` octal) laid out
    /// in the type's width and byte order.
    static func value(_ text: String, type: String) throws(Failure) -> [UInt8] {
        guard knownTypes.contains(type) else {
            throw Failure(
                reason:
                    "match type \"\(type)\" is not one of string, byte, big16, big32, little16, little32, host16, host32"
            )
        }
        if let layout = numericLayout(type) {
            guard let n = integer(text) else { throw Failure(reason: "value \"\(text)\" is not a number") }
            return try bytes(of: n, layout: layout, what: "value \"\(text)\"")
        }
        let result = unescape(text)
        guard !result.isEmpty else { throw Failure(reason: "string value is empty") }
        return result
    }

    /// A mask: for strings `0x` and two hex digits per value byte; for
    /// numbers a number of the same width.
    static func mask(_ text: String, type: String, length: Int) throws(Failure) -> [UInt8] {
        if let layout = numericLayout(type) {
            guard let n = integer(text) else { throw Failure(reason: "mask \"\(text)\" is not a number") }
            return try bytes(of: n, layout: layout, what: "mask \"\(text)\"")
        }
        let digits = Array(text.utf8)
        guard digits.count > 2, digits[0] == UInt8(ascii: "0"), digits[1] | 0x20 == UInt8(ascii: "x"),
            digits.count % 2 == 0
        else {
            throw Failure(reason: "string mask \"\(text)\" must be 0x followed by pairs of hex digits")
        }
        var result: [UInt8] = []
        var i = 2
        while i < digits.count {
            guard let high = hexDigit(digits[i]), let low = hexDigit(digits[i + 1]) else {
                throw Failure(reason: "string mask \"\(text)\" has a character that is not a hex digit")
            }
            result.append(high << 4 | low)
            i += 2
        }
        guard result.count == length else {
            throw Failure(reason: "string mask \"\(text)\" has \(result.count) bytes; the value has \(length)")
        }
        return result
    }

    static func bytes(of n: Int64, layout: (width: Int, bigEndian: Bool), what: String) throws(Failure) -> [UInt8] {
        let bits = Int64(layout.width * 8)
        let limit: Int64 = 1 << bits
        guard n < limit, n >= -(limit >> 1) else {
            throw Failure(reason: "\(what) does not fit in \(layout.width) byte(s)")
        }
        let unsigned = UInt64(bitPattern: n) & UInt64(limit - 1)
        var result = (0..<layout.width).map { UInt8(truncatingIfNeeded: unsigned >> (8 * UInt64($0))) }
        if layout.bigEndian { result.reverse() }
        return result
    }

    /// Parses like `strtol(text, NULL, 0)` but rejects trailing garbage.
    static func integer(_ text: String) -> Int64? {
        var s = Substring(text.trimmingWhitespace())
        var negative = false
        if s.hasPrefix("-") {
            negative = true
            s = s.dropFirst()
        } else if s.hasPrefix("+") {
            s = s.dropFirst()
        }
        guard !s.isEmpty else { return nil }
        let radix: Int
        if s.hasPrefix("0x") || s.hasPrefix("0X") {
            radix = 16
            s = s.dropFirst(2)
        } else if s.count > 1 && s.hasPrefix("0") {
            radix = 8
            s = s.dropFirst()
        } else {
            radix = 10
        }
        guard !s.isEmpty, let magnitude = Int64(s, radix: radix) else { return nil }
        return negative ? -magnitude : magnitude
    }

    static func unescape(_ text: String) -> [UInt8] {
        let input = Array(text.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < input.count {
            let b = input[i]
            guard b == UInt8(ascii: "\\"), i + 1 < input.count else {
                out.append(b)
                i += 1
                continue
            }
            i += 1
            let e = input[i]
            switch e {
            case UInt8(ascii: "x"):
                var value: UInt8 = 0, n = 0
                while n < 2, i + 1 < input.count, let d = hexDigit(input[i + 1]) {
                    value = value << 4 | d
                    i += 1
                    n += 1
                }
                out.append(n == 0 ? UInt8(ascii: "x") : value)
                i += 1
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var value = 0, n = 0
                while n < 3, i < input.count, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(input[i]) {
                    value = value * 8 + Int(input[i] - UInt8(ascii: "0"))
                    i += 1
                    n += 1
                }
                out.append(UInt8(truncatingIfNeeded: value))
            case UInt8(ascii: "n"):
                out.append(10)
                i += 1
            case UInt8(ascii: "r"):
                out.append(13)
                i += 1
            case UInt8(ascii: "t"):
                out.append(9)
                i += 1
            case UInt8(ascii: "a"):
                out.append(7)
                i += 1
            case UInt8(ascii: "b"):
                out.append(8)
                i += 1
            case UInt8(ascii: "f"):
                out.append(12)
                i += 1
            case UInt8(ascii: "v"):
                out.append(11)
                i += 1
            default:
                out.append(e)
                i += 1
            }
        }
        return out
    }

    static func hexDigit(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
