/// The identifier of a type that only the system's MIME data knows:
/// `org.freedesktop.mime.` + media + `.` + subtype, lower-cased; in the
/// subtype `+` is written `-plus-` and any byte outside `a-z 0-9 . -` is
/// written `-xHH-` (two hex digits). `application/x-zerosize` becomes
/// `org.freedesktop.mime.application.x-zerosize`, `application/vnd.api+json`
/// becomes `org.freedesktop.mime.application.vnd.api-plus-json`.
/// `mimeType(forIdentifier:)` reverses it.
public enum SystemTypeIdentifier {
    /// The start of every identifier of this scheme.
    public static let prefix = "org.freedesktop.mime."

    /// The identifier for `mimeType` (lower-cased, parameters dropped), or nil
    /// when it is not `media/subtype` with a media type of only `a-z`, `0-9`
    /// and `-`.
    public static func identifier(forMIMEType mimeType: String) -> String? {
        let lower = TagClass.mimeType.normalize(mimeType)
        guard let slash = lower.firstIndex(of: "/") else { return nil }
        let media = lower[..<slash], subtype = lower[lower.index(after: slash)...]
        guard !media.isEmpty, !subtype.isEmpty, media.utf8.allSatisfy(isPlain), !media.contains(".") else { return nil }
        // Built as bytes: the registry names thousands of types this way.
        var out: [UInt8] = []
        out.reserveCapacity(prefix.utf8.count + lower.utf8.count + 8)
        out += prefix.utf8
        out += media.utf8
        out.append(UInt8(ascii: "."))
        for byte in subtype.utf8 {
            if isPlain(byte) {
                out.append(byte)
            } else if byte == UInt8(ascii: "+") {
                out += "-plus-".utf8
            } else {
                let hex = Array("0123456789abcdef".utf8)
                out += [
                    UInt8(ascii: "-"), UInt8(ascii: "x"), hex[Int(byte >> 4)], hex[Int(byte & 15)], UInt8(ascii: "-"),
                ]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The MIME type an identifier of this scheme stands for, or nil.
    public static func mimeType(forIdentifier identifier: String) -> String? {
        let lower = identifier.lowercased()
        guard lower.hasPrefix(prefix) else { return nil }
        let rest = lower.dropFirst(prefix.count)
        guard let dot = rest.firstIndex(of: "."), dot != rest.startIndex else { return nil }
        let media = rest[..<dot]
        var subtype = Array(rest[rest.index(after: dot)...].utf8)
        guard !subtype.isEmpty else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < subtype.count {
            if subtype[i...].starts(with: "-plus-".utf8) {
                out.append(UInt8(ascii: "+"))
                i += 6
            } else if i + 4 < subtype.count, subtype[i] == UInt8(ascii: "-"), subtype[i + 1] == UInt8(ascii: "x"),
                subtype[i + 4] == UInt8(ascii: "-"),
                let byte = UInt8(String(decoding: subtype[(i + 2)...(i + 3)], as: UTF8.self), radix: 16)
            {
                out.append(byte)
                i += 5
            } else {
                out.append(subtype[i])
                i += 1
            }
        }
        subtype = out
        return String(media) + "/" + String(decoding: subtype, as: UTF8.self)
    }

    private static func isPlain(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }
}
