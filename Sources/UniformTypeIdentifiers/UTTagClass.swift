/// A kind of tag: a label that names a type in another type system, such
/// as a filename extension (`"txt"`) or a MIME type (`"text/plain"`).
///
/// The raw value is the tag class identifier, `public.filename-extension`
/// or `public.mime-type` for the two Apple names; the registry also knows
/// `com.apple.ostype`, `com.apple.nspboard-type` and `public.url-scheme`.
public struct UTTagClass: RawRepresentable, Hashable, Sendable {
    /// A tag class identifier is a string.
    public typealias RawValue = String

    /// The tag class identifier.
    public let rawValue: String

    /// The tag class with this identifier, whether or not the registry knows it.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Filename extensions, without the leading dot.
    public static var filenameExtension: UTTagClass { UTTagClass(rawValue: "public.filename-extension") }

    /// MIME types such as `text/plain`.
    public static var mimeType: UTTagClass { UTTagClass(rawValue: "public.mime-type") }
}

extension UTTagClass: CustomStringConvertible, CustomDebugStringConvertible {
    /// The tag class identifier.
    public var description: String { rawValue }
    /// The identifier, marked as a tag class: `UTTagClass(public.mime-type)`.
    public var debugDescription: String { "UTTagClass(\(rawValue))" }
}

extension UTTagClass: Codable {
    /// Encodes the tag class identifier as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Decodes a tag class identifier written as a single string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }
}
