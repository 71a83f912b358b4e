import PropertyLists

/// A kind of tag that names a type outside the identifier system: a filename
/// extension, a MIME type, an OSType, …
public struct TagClass: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The tag class identifier, e.g. `public.filename-extension`.
    public let identifier: String

    public init(_ identifier: String) { self.identifier = identifier }
    public init(stringLiteral value: String) { self.identifier = value }

    public var description: String { identifier }

    public static let filenameExtension = TagClass("public.filename-extension")
    public static let mimeType = TagClass("public.mime-type")
    public static let osType = TagClass("com.apple.ostype")
    public static let pasteboardType = TagClass("com.apple.nspboard-type")
    public static let urlScheme = TagClass("public.url-scheme")

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
            let trimmed = tag.hasPrefix(".") ? String(tag.dropFirst()) : tag
            return trimmed.lowercased()
        case .mimeType:
            let essence = tag.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return String(essence).trimmingWhitespace().lowercased()
        default:
            return tag
        }
    }
}

/// The tags of one class in a declaration, in declared order (the first is
/// the preferred one).
public struct TagSpecification: Sendable, Equatable {
    public var tagClass: TagClass
    public var tags: [String]

    public init(_ tagClass: TagClass, _ tags: [String]) {
        self.tagClass = tagClass
        self.tags = tags
    }
}
