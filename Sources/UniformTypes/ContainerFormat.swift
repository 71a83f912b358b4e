/// The format inside a container file, named from the container's own
/// index: a ZIP archive's entry names (OOXML, OpenDocument, EPUB, JAR, APK),
/// a Compound File's root entry and streams (Word, Excel, PowerPoint, MSI),
/// a Matroska file's DocType (WebM), an ISO media file's brands (MP4,
/// QuickTime, HEIC, AVIF, 3GPP, M4A) and a RIFF or IFF form (WAV, AVI, WebP,
/// AIFF).
///
/// It reads through a ``ContentReader`` and only what names the format:
/// headers, a ZIP central directory or its local headers, a Compound File's
/// directory sectors. Nothing is decompressed; no size or offset a file
/// states is trusted beyond the file's size; every chain and list is walked
/// a bounded number of steps; and every read is paid from the reader's
/// budget, so a forged file costs at most that budget.
public enum ContainerFormat {
    /// The kind of container a format was found in.
    public enum Container: String, Sendable {
        /// A ZIP archive.
        case zip
        /// A Compound File Binary (OLE2) file.
        case compoundFile
        /// A Matroska (EBML) file.
        case matroska
        /// An ISO base media file (MP4, QuickTime, HEIF): its `ftyp` box.
        case isoMedia
        /// A RIFF file, or its big-endian forebear IFF (`FORM`).
        case riff
    }

    /// A format named from inside its container.
    public struct Identification: Sendable, Equatable {
        /// The MIME type, as shared-mime-info names it (its canonical name,
        /// not an alias: `image/heif` for HEIC, `audio/mp4` for M4A).
        public var mimeType: String
        /// Apple's type identifier, when Apple declares the format.
        public var identifier: String?
        /// The container the format was found in.
        public var container: Container

        /// An identification of `mimeType` and `identifier` in `container`.
        public init(mimeType: String, identifier: String?, container: Container) {
            self.mimeType = mimeType
            self.identifier = identifier
            self.container = container
        }
    }

    /// The format inside the container `reader` holds, or nil when the
    /// content is no container this knows, or its inside names nothing known.
    public static func identify(_ reader: inout ContentReader) -> Identification? {
        guard let head = reader.read(at: 0, count: 16), head.count >= 12 else { return nil }
        let bytes = ContainerBytes(head)
        if bytes.matches([0x50, 0x4B], at: 0), [[3, 4], [5, 6], [7, 8]].contains(Array(head[2..<4])) {
            return ZipDirectory.identify(&reader)
        }
        if bytes.matches(CompoundFile.signature, at: 0) { return CompoundFile.identify(&reader) }
        if bytes.matches([0x1A, 0x45, 0xDF, 0xA3], at: 0) { return MatroskaHeader.identify(&reader) }
        if bytes.matches(Array("ftyp".utf8), at: 4) { return FileTypeBox.identify(&reader) }
        if bytes.matches(Array("RIFF".utf8), at: 0) || bytes.matches(Array("FORM".utf8), at: 0) {
            return RIFFForm.identify(head)
        }
        return nil
    }
}

/// Bytes read from a container, with fixed-width integers read at offsets;
/// a byte outside them reads as zero, so a short read never traps.
struct ContainerBytes {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var count: Int { bytes.count }

    subscript(_ i: Int) -> UInt8 { i >= 0 && i < bytes.count ? bytes[i] : 0 }

    /// The `width` bytes at `offset`, least significant first.
    func little(_ offset: Int, _ width: Int) -> Int {
        var value = 0
        for k in stride(from: width - 1, through: 0, by: -1) { value = value << 8 | Int(self[offset + k]) }
        return value
    }

    /// The `width` bytes at `offset`, most significant first.
    func big(_ offset: Int, _ width: Int) -> Int {
        var value = 0
        for k in 0..<width { value = value << 8 | Int(self[offset + k]) }
        return value
    }

    /// Whether `pattern` is at `offset`.
    func matches(_ pattern: [UInt8], at offset: Int) -> Bool {
        guard offset >= 0, offset + pattern.count <= bytes.count else { return false }
        return bytes[offset..<offset + pattern.count].elementsEqual(pattern)
    }

    /// The bytes `offset..<offset + length`, cut to what is held.
    func slice(_ offset: Int, _ length: Int) -> [UInt8] {
        let start = min(max(offset, 0), bytes.count)
        let end = min(start + max(length, 0), bytes.count)
        return Array(bytes[start..<end])
    }
}
