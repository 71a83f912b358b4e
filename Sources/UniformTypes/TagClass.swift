import PropertyLists
import SystemBase

/// A kind of tag that names a type outside the identifier system: a filename
/// extension, a MIME type, an OSType, …
public struct TagClass: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The tag class identifier, e.g. `public.filename-extension`.
    public let identifier: String

    /// The tag class with `identifier`.
    public init(_ identifier: String) { self.identifier = identifier }
    /// The tag class whose identifier is the literal.
    public init(stringLiteral value: String) { self.identifier = value }

    /// The identifier.
    public var description: String { identifier }

    /// Filename extensions, without the dot (`public.filename-extension`).
    public static let filenameExtension = TagClass("public.filename-extension")
    /// MIME types (`public.mime-type`).
    public static let mimeType = TagClass("public.mime-type")
    /// Classic Mac OS four-character type codes (`com.apple.ostype`).
    public static let osType = TagClass("com.apple.ostype")
    /// Mac pasteboard type names (`com.apple.nspboard-type`).
    public static let pasteboardType = TagClass("com.apple.nspboard-type")
    /// URL schemes such as `http` (`public.url-scheme`).
    public static let urlScheme = TagClass("public.url-scheme")

    /// Whether `text` is a MIME type as RFC 6838 and HTTP (RFC 9110) write
    /// one: a type and a subtype, each a token (printable ASCII without
    /// spaces or any of the delimiters `()<>@,;:\"/[]?={}`), joined by one `/`, with parameters after
    /// `;` (which lookups ignore). White space may surround the essence; a
    /// type starting with `.` is refused, so `./a/b` or `/tmp/pic.dat` is
    /// never taken for one.
    public static func isMIMESyntax(_ text: String) -> Bool {
        if let answer = text.utf8.withContiguousStorageIfAvailable(isMIMESyntax(utf8:)) { return answer }
        var text = text
        return text.withUTF8(isMIMESyntax(utf8:))
    }

    /// `isMIMESyntax` over UTF-8 bytes, without allocating: the essence
    /// (before any `;`, white space trimmed) is a plain MIME type
    /// (`mimeSyntaxProblem` says what is wrong, this only whether).
    static func isMIMESyntax(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
        var start = 0
        while start < end, bytes[start] == 32 || bytes[start] == 9 { start += 1 }
        while end > start, bytes[end - 1] == 32 || bytes[end - 1] == 9 { end -= 1 }
        return isPlainMIMEType(utf8: UnsafeBufferPointer(rebasing: bytes[start..<end]))
    }

    /// Whether `bytes` is a MIME type with nothing to trim or drop: token
    /// bytes only, around one `/` that is neither first nor last, not
    /// starting with `.` (what `isMIMESyntax` accepts, less white space
    /// and parameters).
    @inline(__always)
    static func isPlainMIMEType(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var slash = -1
        for i in 0..<bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "/") {
                guard slash < 0 else { return false }
                slash = i
            } else if !isTokenByte(byte) {
                return false
            }
        }
        return slash > 0 && slash < bytes.count - 1 && bytes[0] != UInt8(ascii: ".")
    }

    /// What keeps `text` from being a MIME type (see `isMIMESyntax`), or nil
    /// when it is one.
    public static func mimeSyntaxProblem(_ text: String) -> String? {
        var essence =
            text.utf8.split(separator: UInt8(ascii: ";"), maxSplits: 1, omittingEmptySubsequences: false).first ?? []
        while let first = essence.first, first == 32 || first == 9 { essence = essence.dropFirst() }
        while let last = essence.last, last == 32 || last == 9 { essence = essence.dropLast() }
        let parts = essence.split(separator: UInt8(ascii: "/"), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            return parts.count < 2 ? "no \"/\" between type and subtype" : "more than one \"/\""
        }
        for (part, name) in [(parts[0], "type"), (parts[1], "subtype")] {
            if part.isEmpty { return "the \(name) is empty" }
            if let bad = part.first(where: { !isTokenByte($0) }) {
                let shown =
                    bad >= 33 && bad < 127
                    ? "\"\(Character(Unicode.Scalar(bad)))\"" : "the byte 0x" + String(bad, radix: 16)
                return "\(shown) may not stand in a MIME \(name) (RFC 9110 token)"
            }
        }
        if parts[0].first == UInt8(ascii: ".") { return "the type starts with \".\"" }
        return nil
    }

    /// Printable ASCII other than a space and RFC 2045's `tspecials`.
    @inline(__always)
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        // Bit n of the mask is set when byte 64 * word + n is a token byte:
        // 33...126 less `()<>@,;:\"/[]?={}`.
        byte < 64
            ? tokenBytesBelow64 >> UInt64(byte) & 1 != 0
            : byte < 128 && tokenBytesFrom64 >> UInt64(byte - 64) & 1 != 0
    }

    /// Bytes 0–63 that are token bytes, bit n for byte n (`!#$%&'*+-.`,
    /// digits).
    private static let tokenBytesBelow64: UInt64 = 0x03ff_6cfa_0000_0000
    /// Bytes 64–127 that are token bytes, bit n for byte 64 + n (letters and
    /// `^`, `_`, `` ` ``, `|`, `~`).
    private static let tokenBytesFrom64: UInt64 = 0x57ff_ffff_c7ff_fffe

    /// Whether tags of this class match regardless of case. Extensions and
    /// MIME types do; OSTypes and the others are exact.
    public var isCaseInsensitive: Bool {
        self == .filenameExtension || self == .mimeType
    }

    /// The form of `tag` used for matching: extensions lose a leading dot and
    /// are lowercased, MIME types lose parameters and white space and are
    /// lowercased; other classes are kept exactly.
    public func normalize(_ tag: String) -> String {
        switch self {
        case .filenameExtension:
            if let fast = Self.asciiLowercased(tag, dropLeadingDot: true) { return fast }
            // Unicode scalars, not Characters: a combining mark after the
            // dot or the ; does not hide it.
            let trimmed = tag.unicodeScalars.first == "." ? String(tag.unicodeScalars.dropFirst()) : tag
            return trimmed.lowercased()
        case .mimeType:
            if let fast = Self.asciiLowercased(tag, dropLeadingDot: false) { return fast }
            let scalars = tag.unicodeScalars
            let essence = scalars.firstIndex(of: ";").map { String(scalars[..<$0]) } ?? tag
            return essence.trimmingWhitespace().lowercased()
        default:
            return tag
        }
    }

    /// Whether `byte` may stand in a tag that normalizes by ASCII
    /// lower-casing alone: printable ASCII other than a space and `;`.
    @inline(__always)
    static func isPlainTagByte(_ byte: UInt8) -> Bool { byte > 32 && byte < 127 && byte != UInt8(ascii: ";") }

    /// The common case without allocation-heavy Unicode work: printable
    /// ASCII with no `;` or spaces, lower-cased byte by byte. Nil otherwise.
    private static func asciiLowercased(_ tag: String, dropLeadingDot: Bool) -> String? {
        var utf8 = tag.utf8[...]
        if dropLeadingDot, utf8.first == UInt8(ascii: ".") { utf8 = utf8.dropFirst() }
        var needsChange = false
        for byte in utf8 {
            if !isPlainTagByte(byte) { return nil }
            if byte >= 65 && byte <= 90 { needsChange = true }
        }
        if !needsChange { return utf8.count == tag.utf8.count ? tag : String(Substring(utf8)) }
        return String(Substring(utf8)).asciiLowercased
    }
}

/// The tags of one class in a declaration, in declared order (the first is
/// the preferred one).
public struct TagSpecification: Sendable, Equatable {
    /// The class of the tags.
    public var tagClass: TagClass
    /// The tags, the preferred one first.
    public var tags: [String]

    /// The tags `tags` of class `tagClass`, in the order given.
    public init(_ tagClass: TagClass, _ tags: [String]) {
        self.tagClass = tagClass
        self.tags = tags
    }
}
