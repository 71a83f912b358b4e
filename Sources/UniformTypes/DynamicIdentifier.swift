/// Dynamic type identifiers (`dyn.a…`): the identifiers Apple's system gives
/// a tag no declared type claims, and their decoding back to tags.
///
/// The identifier is `dyn.a` followed by the payload's UTF-8 bytes in base 32
/// (alphabet `abcdefghkmnpqrstuvwxyz0123456789`, five bits a character, most
/// significant first, the last group padded with zero bits, no padding
/// characters). The payload is clauses joined by `:`, each `key=value`:
/// `?0=<type>` for the conforming-to type, `<tag class>=<tag>` for tags.
///
/// Confirmed against Apple's output: the encoding, `?0=` with 6
/// (public.data) and 13 (public.content), and tag class 1 (filename
/// extension). The other codes in `tagClassCodes` and `typeCodes`, writing
/// unlisted classes and types out in full, and escaping `:`, `=` and `\`
/// with `\` come from public reimplementations and are not confirmed.
public enum DynamicIdentifier {
    /// The start of every identifier `make` writes.
    public static let prefix = "dyn.a"
    static let alphabet = Array("abcdefghkmnpqrstuvwxyz0123456789".utf8)

    static let tagClassCodes: [(code: String, tagClass: TagClass)] = [
        ("1", .filenameExtension), ("2", .osType), ("3", .mimeType),
        ("4", .pasteboardType), ("5", .urlScheme),
    ]

    static let typeCodes: [(code: String, identifier: String)] = [
        ("6", "public.data"), ("7", "public.text"), ("8", "public.plain-text"),
        ("B", "public.image"), ("C", "public.movie"), ("D", "public.audio"),
        ("E", "public.directory"), ("F", "public.folder"), ("10", "com.apple.package"),
        ("11", "public.url"), ("12", "public.utf16-external-plain-text"), ("13", "public.content"),
    ]

    /// A decoded dynamic identifier.
    public struct Contents: Sendable, Equatable {
        /// The types it conforms to, as identifiers.
        public var conformsTo: [String]
        /// Its tags, by class, in payload order.
        public var tags: [TagSpecification]
    }

    /// The dynamic identifier for `tag` of `tagClass`, conforming to the type
    /// `conformingTo` when given.
    public static func make(tag: String, tagClass: TagClass, conformingTo: String? = nil) -> String {
        var clauses: [String] = []
        if let parent = conformingTo {
            let lowered = parent.lowercased()
            let code = typeCodes.first { $0.identifier == lowered }?.code ?? escape(parent)
            clauses.append("?0=\(code)")
        }
        let classCode = tagClassCodes.first { $0.tagClass == tagClass }?.code ?? escape(tagClass.identifier)
        clauses.append("\(classCode)=\(escape(tag))")
        return prefix + encode(Array(clauses.joined(separator: ":").utf8))
    }

    /// Whether `identifier` has the dynamic form (it may still fail to decode).
    public static func isDynamic(_ identifier: String) -> Bool {
        identifier.utf8.count >= 4 && identifier.prefix(4).lowercased() == "dyn."
    }

    /// The tags and conformance `identifier` encodes, or nil when it is not a
    /// well-formed dynamic identifier.
    public static func decode(_ identifier: String) -> Contents? {
        guard identifier.hasPrefix(prefix), let bytes = decodeBase32(identifier.utf8.dropFirst(prefix.utf8.count)),
            let payload = String(validating: bytes, as: UTF8.self), !payload.isEmpty
        else { return nil }
        var contents = Contents(conformsTo: [], tags: [])
        for clause in split(payload, on: ":") {
            let parts = split(clause, on: "=")
            guard parts.count == 2, !parts[0].isEmpty else { return nil }
            let key = unescape(parts[0]), value = unescape(parts[1])
            if key.unicodeScalars.first == "?" {
                let code = value.uppercased()
                contents.conformsTo.append(typeCodes.first { $0.code == code }?.identifier ?? value)
                continue
            }
            let tagClass = tagClassCodes.first { $0.code == key.uppercased() }?.tagClass ?? TagClass(key)
            if let index = contents.tags.firstIndex(where: { $0.tagClass == tagClass }) {
                contents.tags[index].tags.append(value)
            } else {
                contents.tags.append(TagSpecification(tagClass, [value]))
            }
        }
        return contents.tags.isEmpty && contents.conformsTo.isEmpty ? nil : contents
    }

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[Int((buffer >> UInt32(bits)) & 31)])
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: out, as: UTF8.self)
    }

    static func decodeBase32<S: Sequence>(_ characters: S) -> [UInt8]? where S.Element == UInt8 {
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for c in characters {
            guard let value = alphabet.firstIndex(of: c) else { return nil }
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((buffer >> UInt32(bits)) & 0xFF))
            }
        }
        // Leftover bits are padding and must be zero.
        guard bits < 5, buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }

    // Escaping, unescaping and splitting work on Unicode scalars, not
    // characters: a combining mark after `=` or `:` must not hide it.

    private static func escape(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for c in text.unicodeScalars {
            if c == ":" || c == "=" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return String(out)
    }

    private static func unescape(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var escaped = false
        for c in text.unicodeScalars {
            if !escaped && c == "\\" {
                escaped = true
                continue
            }
            escaped = false
            out.append(c)
        }
        return String(out)
    }

    /// Splits on `separator` where it is not escaped with `\`.
    private static func split(_ text: String, on separator: Unicode.Scalar) -> [String] {
        var parts: [String.UnicodeScalarView] = [String.UnicodeScalarView()]
        var escaped = false
        for c in text.unicodeScalars {
            if escaped {
                parts[parts.count - 1].append(c)
                escaped = false
                continue
            }
            if c == "\\" {
                parts[parts.count - 1].append(c)
                escaped = true
                continue
            }
            if c == separator {
                parts.append(String.UnicodeScalarView())
                continue
            }
            parts[parts.count - 1].append(c)
        }
        return parts.map(String.init)
    }
}
