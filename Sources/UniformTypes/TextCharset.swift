/// The character set of text, named as `file -i` (`file --mime`) names it:
/// `us-ascii`, `utf-8`, `utf-16le`, `utf-16be`, `utf-32le`, `utf-32be`,
/// `iso-8859-1`, `unknown-8bit`, or `binary` for bytes that are not text.
public enum TextCharset {
    /// How many leading bytes `uti file -i` reads to name a charset.
    public static let defaultLimit = 65_536

    /// The charset of `bytes`. `truncated` says the bytes are a prefix, so a
    /// UTF-8 sequence cut at the end still counts as UTF-8.
    public static func name(of bytes: [UInt8], truncated: Bool = false) -> String {
        if bytes.isEmpty { return "binary" }
        if let bom = byteOrderMark(bytes) { return bom }
        if bytes.contains(0) { return "binary" }
        if !bytes.contains(where: { $0 >= 0x80 }) { return hasControlBytes(bytes) ? "binary" : "us-ascii" }
        if isUTF8(bytes, truncated: truncated) { return hasControlBytes(bytes) ? "binary" : "utf-8" }
        if hasControlBytes(bytes) { return "binary" }
        // Latin-1 text: no C1 controls (0x80-0x9F), which ISO 8859-1 does not print.
        return bytes.contains { $0 >= 0x80 && $0 < 0xA0 } ? "unknown-8bit" : "iso-8859-1"
    }

    private static func byteOrderMark(_ b: [UInt8]) -> String? {
        if b.count >= 4 && b[0] == 0xFF && b[1] == 0xFE && b[2] == 0 && b[3] == 0 { return "utf-32le" }
        if b.count >= 4 && b[0] == 0 && b[1] == 0 && b[2] == 0xFE && b[3] == 0xFF { return "utf-32be" }
        if b.count >= 2 && b[0] == 0xFF && b[1] == 0xFE { return "utf-16le" }
        if b.count >= 2 && b[0] == 0xFE && b[1] == 0xFF { return "utf-16be" }
        return nil
    }

    /// Control bytes text does not hold: C0 controls other than tab, line
    /// feed, vertical tab, form feed, carriage return, escape and backspace.
    private static func hasControlBytes(_ bytes: [UInt8]) -> Bool {
        bytes.contains { $0 < 0x20 && ![0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1B].contains($0) || $0 == 0x7F }
    }

    /// Well-formed UTF-8 (no overlong forms, surrogates or values beyond
    /// U+10FFFF); a sequence cut off at the end is allowed when `truncated`.
    static func isUTF8(_ bytes: [UInt8], truncated: Bool) -> Bool {
        var i = 0
        let n = bytes.count
        while i < n {
            let lead = bytes[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                low = 0xA0
            case 0xE1...0xEC, 0xEE, 0xEF: length = 3
            case 0xED:
                length = 3
                high = 0x9F
            case 0xF0:
                length = 4
                low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                high = 0x8F
            default: return false
            }
            for k in 1..<length {
                guard i + k < n else { return truncated }
                let byte = bytes[i + k]
                let (lo, hi): (UInt8, UInt8) = k == 1 ? (low, high) : (0x80, 0xBF)
                if byte < lo || byte > hi { return false }
            }
            i += length
        }
        return true
    }
}
