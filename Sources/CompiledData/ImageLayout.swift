/// What an image holds and in which layout: a tag naming the contents
/// (`UTIR` for a registry) and the version of their layout. A reader opens
/// only images of the kind and layout version it knows.
public struct ImageKind: Sendable, Equatable, CustomStringConvertible {
    public let tag: UInt32
    /// Raised whenever the words the kind's writer lays out change, so that
    /// an image of another layout is refused rather than misread
    /// (docs/compiled-image.md).
    public let layoutVersion: UInt32

    public init(tag: UInt32, layoutVersion: UInt32) {
        self.tag = tag
        self.layoutVersion = layoutVersion
    }

    public var description: String { "kind \(String(tag, radix: 16)) layout \(layoutVersion)" }
}

/// Byte offsets of the 40-byte header every image starts with, all
/// little-endian; `ImageView` reads them and `ImageWriter` writes them.
public enum ImageHeader {
    /// 8 bytes: `UTIIMAGE`.
    public static let magic = 0
    /// UInt32: the container format, `ImageView.formatVersion`.
    public static let formatVersion = 8
    /// UInt32: `ImageKind.tag`.
    public static let kind = 12
    /// UInt32: the word index the kind's reader starts from.
    public static let root = 16
    /// UInt32: how many 32-bit words follow the header.
    public static let wordCount = 20
    /// UInt32: how many pool bytes follow the words.
    public static let poolCount = 24
    /// UInt32: `ImageKind.layoutVersion`.
    public static let layoutVersion = 28
    /// UInt64: `ImageHash.checksum` of everything after the header.
    public static let checksum = 32
    /// Where the words start.
    public static let size = 40
}
