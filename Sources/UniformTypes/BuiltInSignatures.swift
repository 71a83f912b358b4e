import SystemBase

/// The signatures of common formats, written from each format's public
/// specification, that type a file's content when the system has no
/// shared-mime-info database (slim container images often lack it): images,
/// documents, archives and compressors, audio and video containers, office
/// files, fonts, executables and a few text formats. Where a database is
/// found, its magic rules are used instead and these are not.
///
/// Each signature gives a MIME type; the registry turns it into a type.
public enum BuiltInSignatures {
    /// How many of a file's first bytes the signatures look at.
    public static let length = 4096

    /// The MIME types the signatures can give, each once.
    public static var mimeTypes: [String] {
        var seen = Set<String>()
        return signatures.flatMap(\.mimeTypes).filter { seen.insert($0).inserted }
    }

    /// The MIME type the first bytes of a file (`data`, up to `length` of
    /// them) have the signature of, or nil when none matches.
    public static func mimeType(of data: UnsafeRawBufferPointer) -> String? {
        let bytes = Bytes(data)
        let text = looksLikeText(data)
        for signature in signatures where signature.isText || !text {
            if let answer = signature.match(bytes) { return answer }
        }
        return nil
    }

    /// The declared type a signature's MIME type stands for where Apple's
    /// own data claims no such MIME type (without shared-mime-info nothing
    /// else ties them): an ELF executable is `public.unix-executable`.
    public static func identifier(for mimeType: String) -> String? {
        switch mimeType {
        case "application/x-executable": "public.unix-executable"
        case "application/x-mach-binary": "com.apple.mach-o-binary"
        case "application/x-shellscript": "public.shell-script"
        case "text/x-python3": "public.python-script"
        case "audio/x-vorbis+ogg": "org.xiph.ogg-audio"
        case "audio/x-opus+ogg": "org.xiph.opus"
        default: nil
        }
    }

    /// Declared types whose files start with the signature of `mimeType`
    /// although they are not that type or a kind of it in Apple's tree: the
    /// formats built on a container (a `.docx` is a ZIP archive, a `.doc`
    /// an OLE2 file, an `.m4a` an MPEG-4 file).
    public static let formatsInside: [String: [String]] = [
        "application/zip": [
            "org.openxmlformats.wordprocessingml.document", "org.openxmlformats.spreadsheetml.sheet",
            "org.openxmlformats.presentationml.presentation", "org.oasis-open.opendocument.text",
            "org.oasis-open.opendocument.spreadsheet", "org.oasis-open.opendocument.presentation",
            "org.oasis-open.opendocument.graphics", "org.idpf.epub-container", "com.sun.java-archive",
            "com.apple.iWork.Pages.sffpages", "com.apple.iWork.Numbers.sffnumbers",
            "com.apple.iWork.Keynote.sffkey",
        ],
        "application/x-ole-storage": [
            "com.microsoft.word.doc", "com.microsoft.excel.xls", "com.microsoft.powerpoint.ppt",
        ],
        "video/mp4": ["public.mpeg-4", "public.mpeg-4-audio", "com.apple.m4a-audio", "com.apple.m4v-video"],
        "video/3gpp": ["public.3gpp"],
        "application/vnd.microsoft.portable-executable": [
            "com.microsoft.windows-executable", "com.microsoft.windows-dynamic-link-library",
        ],
        "video/mp2t": ["public.mpeg-2-transport-stream"],
        "application/x-mach-binary": ["com.apple.mach-o-dylib", "com.apple.mach-o-binary"],
        "application/x-executable": ["public.unix-executable"],
        "application/x-object": ["public.object-code"],
    ]

    /// The MIME types of the binary formats' signatures (each once).
    public static let binaryMIMETypes: [String] = {
        var seen = Set<String>()
        return signatures.filter { !$0.isText }.flatMap(\.mimeTypes).filter { seen.insert($0).inserted }
    }()

    /// Whether `data` looks like text: UTF-8 without NUL or control
    /// characters other than tab, line feed, form feed, carriage return and
    /// escape (a cut-off character at the end is allowed).
    public static func looksLikeText(_ data: UnsafeRawBufferPointer) -> Bool {
        guard !data.isEmpty else { return false }
        var end = data.count
        // A multi-byte character cut at the end of the sample is not an error.
        var back = 0
        while back < 3 && end - back - 1 >= 0 && data[end - back - 1] & 0xC0 == 0x80 { back += 1 }
        if end - back - 1 >= 0, data[end - back - 1] >= 0xC0 { end = end - back - 1 }
        let sample = UnsafeRawBufferPointer(rebasing: data[0..<end])
        guard String(validating: sample, as: UTF8.self) != nil else { return false }
        return !sample.contains { $0 < 0x20 && ![0x09, 0x0A, 0x0C, 0x0D, 0x1B].contains($0) || $0 == 0x7F }
    }

    // MARK: The signatures

    /// A file's first bytes, read safely past their end.
    struct Bytes {
        let data: UnsafeRawBufferPointer
        init(_ data: UnsafeRawBufferPointer) { self.data = data }
        var count: Int { data.count }
        subscript(_ i: Int) -> UInt8? { i >= 0 && i < data.count ? data[i] : nil }
        /// Whether `text`'s bytes (ASCII) stand at `offset`.
        func has(_ text: String, at offset: Int = 0) -> Bool { has(Array(text.utf8), at: offset) }
        func has(_ expected: [UInt8], at offset: Int = 0) -> Bool {
            guard offset >= 0, offset + expected.count <= data.count else { return false }
            for (i, byte) in expected.enumerated() where data[offset + i] != byte { return false }
            return true
        }
        /// The little-endian unsigned integer of `size` bytes at `offset`.
        func littleEndian(_ offset: Int, _ size: Int) -> Int? {
            guard offset >= 0, offset + size <= data.count else { return nil }
            var value = 0
            for i in (0..<size).reversed() { value = value << 8 | Int(data[offset + i]) }
            return value
        }
        /// The ASCII text of `length` bytes at `offset`, if there are that many.
        func text(_ offset: Int, _ length: Int) -> String? {
            guard offset >= 0, length >= 0, offset + length <= data.count else { return nil }
            return String(decoding: UnsafeRawBufferPointer(rebasing: data[offset..<offset + length]), as: UTF8.self)
        }
        /// Whether `text` occurs anywhere in the bytes.
        func contains(_ text: String) -> Bool {
            let needle = Array(text.utf8)
            guard let first = needle.first, needle.count <= data.count else { return false }
            var i = 0
            while i + needle.count <= data.count {
                if data[i] == first && has(needle, at: i) { return true }
                i += 1
            }
            return false
        }
    }

    struct Signature: Sendable {
        /// The MIME types the signature can give (lower case), the usual one first.
        let mimeTypes: [String]
        /// A text format (XML, HTML, PostScript, a script): its signature is
        /// text. Every other signature is of a binary format, and content that
        /// looks like text never has it ("OTTO von Bismarck" is no font).
        let isText: Bool
        /// Gives one of `mimeTypes` when the bytes have the signature.
        let match: @Sendable (Bytes) -> String?

        init(_ mimeType: String, text: Bool = false, _ test: @escaping @Sendable (Bytes) -> Bool) {
            self.mimeTypes = [mimeType]
            self.isText = text
            self.match = { test($0) ? mimeType : nil }
        }

        init(_ mimeTypes: [String], refining: @escaping @Sendable (Bytes) -> String?) {
            self.mimeTypes = mimeTypes
            self.isText = false
            self.match = refining
        }
    }

    /// The ISO base media file format's major brand (bytes 8–11, after
    /// `ftyp` at 4): MP4, QuickTime, 3GPP, HEIF and AVIF files start so.
    static func brand(_ b: Bytes) -> String? { b.has("ftyp", at: 4) ? b.text(8, 4) : nil }

    /// A ZIP file's first entry: its name and, when it is stored
    /// uncompressed, the start and length of its data.
    static func firstZipEntry(_ b: Bytes) -> (name: String, stored: (start: Int, length: Int)?)? {
        guard b.has([0x50, 0x4B, 0x03, 0x04]), let nameLength = b.littleEndian(26, 2),
            let extraLength = b.littleEndian(28, 2), let method = b.littleEndian(8, 2),
            let size = b.littleEndian(18, 4), let name = b.text(30, nameLength)
        else { return nil }
        return (name, method == 0 ? (30 + nameLength + extraLength, size) : nil)
    }

    /// The MIME types EPUB and OpenDocument files name in their first entry.
    static let openContainerTypes: [String] = [
        "application/epub+zip", "application/vnd.oasis.opendocument.text",
        "application/vnd.oasis.opendocument.spreadsheet", "application/vnd.oasis.opendocument.presentation",
        "application/vnd.oasis.opendocument.graphics", "application/vnd.oasis.opendocument.text-template",
        "application/vnd.oasis.opendocument.spreadsheet-template",
        "application/vnd.oasis.opendocument.presentation-template",
        "application/vnd.oasis.opendocument.graphics-template", "application/vnd.oasis.opendocument.formula",
        "application/vnd.oasis.opendocument.chart", "application/vnd.oasis.opendocument.database",
        "application/vnd.oasis.opendocument.text-master",
    ]

    /// In order: a more precise signature before the one it refines (EPUB
    /// and Office before ZIP, WebP and WAVE before RIFF's others).
    static let signatures: [Signature] = [
        // Images
        Signature("image/png") { $0.has([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) },
        Signature("image/jpeg") { $0.has([0xFF, 0xD8, 0xFF]) },
        Signature("image/gif") { $0.has("GIF87a") || $0.has("GIF89a") },
        Signature("image/webp") { $0.has("RIFF") && $0.has("WEBP", at: 8) },
        Signature("image/tiff") { $0.has([0x49, 0x49, 0x2A, 0x00]) || $0.has([0x4D, 0x4D, 0x00, 0x2A]) },
        // BITMAPFILEHEADER: "BM", the file size, two reserved words that are zero.
        Signature("image/bmp") { $0.has("BM") && $0.has([0, 0, 0, 0], at: 6) && $0.count >= 26 },
        // ICONDIR: reserved 0, type 1 (icon), at least one image.
        Signature("image/vnd.microsoft.icon") { $0.has([0, 0, 1, 0]) && ($0.littleEndian(4, 2) ?? 0) > 0 },
        Signature("image/vnd.adobe.photoshop") { $0.has("8BPS") && ($0.has([0, 1], at: 4) || $0.has([0, 2], at: 4)) },
        Signature("image/jp2") { $0.has([0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) },
        Signature("image/jxl") { $0.has([0xFF, 0x0A]) || $0.has([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) },
        Signature("image/x-exr") { $0.has([0x76, 0x2F, 0x31, 0x01]) },
        Signature("image/avif") { ["avif", "avis"].contains(brand($0) ?? "") },
        Signature("image/heic") { ["heic", "heix", "heim", "heis", "hevc", "hevx"].contains(brand($0) ?? "") },
        Signature("image/heif") { ["mif1", "msf1"].contains(brand($0) ?? "") },
        // Documents
        Signature("application/pdf", text: true) { $0.has("%PDF-") },
        Signature("application/postscript", text: true) { $0.has("%!PS") },
        Signature("text/rtf", text: true) { $0.has("{\\rtf") },
        // ZIP-based formats, then ZIP. EPUB and OpenDocument store their MIME
        // type first, uncompressed, in an entry named "mimetype".
        Signature(
            openContainerTypes,
            refining: { b in
                guard let entry = firstZipEntry(b), entry.name == "mimetype", let stored = entry.stored,
                    stored.length <= 100, let text = b.text(stored.start, stored.length)
                else { return nil }
                // Only a type the signature lists: the entry's bytes are the sender's, never a MIME type to pass on.
                return openContainerTypes.contains(text) ? text : nil
            }),
        // Office Open XML: "[Content_Types].xml" first, the parts in word/, xl/ or ppt/.
        Signature(
            [
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                "application/vnd.openxmlformats-officedocument.presentationml.presentation",
            ],
            refining: { b in
                guard let entry = firstZipEntry(b),
                    ["[Content_Types].xml", "_rels/.rels", "docProps/app.xml", "docProps/core.xml"].contains(entry.name)
                else { return nil }
                if b.contains("word/") {
                    return "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
                }
                if b.contains("xl/") { return "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" }
                if b.contains("ppt/") {
                    return "application/vnd.openxmlformats-officedocument.presentationml.presentation"
                }
                return nil
            }),
        Signature("application/zip") {
            $0.has([0x50, 0x4B, 0x03, 0x04]) || $0.has([0x50, 0x4B, 0x05, 0x06]) || $0.has([0x50, 0x4B, 0x07, 0x08])
        },
        // The OLE2 compound file of the older Office formats and MSI.
        Signature("application/x-ole-storage") { $0.has([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) },
        // Archives and compressors
        Signature("application/gzip") { $0.has([0x1F, 0x8B, 0x08]) },
        Signature("application/x-bzip2") { $0.has("BZh") && (0x31...0x39).contains($0[3] ?? 0) },
        Signature("application/x-xz") { $0.has([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) },
        Signature("application/zstd") { $0.has([0x28, 0xB5, 0x2F, 0xFD]) },
        Signature("application/x-7z-compressed") { $0.has([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]) },
        Signature("application/vnd.rar") { $0.has("Rar!\u{1A}\u{07}\u{00}") || $0.has("Rar!\u{1A}\u{07}\u{01}\u{00}") },
        Signature("application/x-lzip") { $0.has("LZIP") },
        // POSIX and GNU tar: "ustar" in the header at 257.
        Signature("application/x-tar") { $0.has("ustar", at: 257) },
        Signature("application/x-rpm") { $0.has([0xED, 0xAB, 0xEE, 0xDB]) },
        Signature("application/vnd.debian.binary-package") { $0.has("!<arch>\ndebian-binary") },
        Signature("application/x-archive") { $0.has("!<arch>\n") },
        Signature("application/x-cpio") { $0.has("07070") || $0.has([0xC7, 0x71]) || $0.has([0x71, 0xC7]) },
        // Audio and video
        Signature("audio/flac") { $0.has("fLaC") },
        Signature(
            ["audio/ogg", "audio/x-vorbis+ogg", "audio/x-opus+ogg", "video/x-theora+ogg"],
            refining: { b in
                guard b.has("OggS") else { return nil }
                if b.has("\u{01}vorbis", at: 28) { return "audio/x-vorbis+ogg" }
                if b.has("OpusHead", at: 28) { return "audio/x-opus+ogg" }
                if b.has([0x80] + Array("theora".utf8), at: 28) { return "video/x-theora+ogg" }
                return "audio/ogg"
            }),
        Signature("audio/x-wav") { $0.has("RIFF") && $0.has("WAVE", at: 8) },
        Signature("video/x-msvideo") { $0.has("RIFF") && $0.has("AVI ", at: 8) },
        Signature("audio/x-aiff") { $0.has("FORM") && ($0.has("AIFF", at: 8) || $0.has("AIFC", at: 8)) },
        Signature("audio/midi") { $0.has("MThd") && $0.has([0, 0, 0, 6], at: 4) },
        Signature("audio/mp4") { ["M4A ", "M4B ", "M4P "].contains(brand($0) ?? "") },
        Signature("video/quicktime") { brand($0) == "qt  " },
        Signature("video/3gpp") { (brand($0) ?? "").hasPrefix("3gp") || (brand($0) ?? "").hasPrefix("3ge") },
        Signature("video/x-m4v") { brand($0) == "M4V " },
        Signature("video/mp4") {
            ["isom", "iso2", "iso3", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "dash", "MSNV", "mmp4"]
                .contains(brand($0) ?? "")
        },
        // EBML: WebM when its DocType says so, else Matroska.
        Signature(
            ["video/x-matroska", "video/webm"],
            refining: { b in
                guard b.has([0x1A, 0x45, 0xDF, 0xA3]) else { return nil }
                return b.text(0, min(b.count, 64)).map { $0.contains("webm") } == true
                    ? "video/webm" : "video/x-matroska"
            }),
        Signature("video/x-flv") { $0.has("FLV\u{01}") },
        Signature("video/mpeg") { $0.has([0, 0, 1, 0xBA]) || $0.has([0, 0, 1, 0xB3]) },
        // MPEG transport stream: a sync byte every 188 bytes.
        Signature("video/mp2t") { $0[0] == 0x47 && $0[188] == 0x47 && ($0.count < 377 || $0[376] == 0x47) },
        Signature("audio/mpeg") { b in
            if b.has("ID3") { return true }
            // An MPEG audio frame header: sync, MPEG-1 or -2, layer III, a bit rate and sample rate that exist.
            guard let first = b[0], let second = b[1], let third = b[2] else { return false }
            return first == 0xFF && second & 0xE6 == 0xE2 && third >> 4 != 0x0F && third & 0x0C != 0x0C
        },
        Signature("audio/aac") { b in
            guard let first = b[0], let second = b[1] else { return false }
            return first == 0xFF && second & 0xF6 == 0xF0  // ADTS: sync, layer 0
        },
        // Fonts
        Signature("font/ttf") { $0.has([0, 1, 0, 0]) && ($0.littleEndian(4, 1) ?? 0) == 0 && ($0[5] ?? 0) > 0 },
        Signature("font/otf") { $0.has("OTTO") },
        Signature("font/woff") { $0.has("wOFF") },
        Signature("font/woff2") { $0.has("wOF2") },
        Signature("font/collection") { $0.has("ttcf") },
        // Programs and data
        Signature(
            ["application/x-executable", "application/x-object", "application/x-sharedlib", "application/x-core"],
            refining: { b in
                guard b.has([0x7F, 0x45, 0x4C, 0x46]), let type = b[16] else { return nil }
                // e_type, in the file's byte order (EI_DATA at 5: 1 little-endian, 2 big-endian).
                let kind = b[5] == 2 ? b[17] ?? 0 : type
                switch kind {
                case 1: return "application/x-object"
                // A position-independent executable is a shared object that names its loader (.interp).
                case 3:
                    return b.contains("/ld-linux") || b.contains("/ld-musl")
                        ? "application/x-executable"
                        : "application/x-sharedlib"
                case 4: return "application/x-core"
                default: return "application/x-executable"
                }
            }),
        Signature("application/wasm") { $0.has([0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00]) },
        // A PE file: "MZ", and "PE\0\0" where the DOS header's last word points.
        Signature("application/vnd.microsoft.portable-executable") { b in
            guard b.has("MZ"), let offset = b.littleEndian(0x3C, 4) else { return false }
            return b.has([0x50, 0x45, 0, 0], at: offset)
        },
        Signature("application/x-mach-binary") {
            $0.has([0xFE, 0xED, 0xFA, 0xCE]) || $0.has([0xFE, 0xED, 0xFA, 0xCF]) || $0.has([0xCE, 0xFA, 0xED, 0xFE])
                || $0.has([0xCF, 0xFA, 0xED, 0xFE])
        },
        Signature("application/vnd.sqlite3") { $0.has("SQLite format 3\u{0}") },
        // Text with a signature of its own
        Signature("image/svg+xml", text: true) { b in
            (b.has("<?xml") || b.has("<svg")) && b.text(0, min(b.count, 1024)).map { $0.contains("<svg") } == true
        },
        Signature("application/xml", text: true) { $0.has("<?xml") },
        Signature("text/html", text: true) { b in
            let start = (b.text(0, min(b.count, 64)) ?? "").drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
            let lowered = String(start.prefix(15)).asciiLowercased
            return lowered.hasPrefix("<!doctype html") || lowered.hasPrefix("<html")
        },
        Signature("application/x-shellscript", text: true) { b in
            guard b.has("#!") else { return false }
            let line = (b.text(0, min(b.count, 128)) ?? "").prefix { $0 != "\n" }
            return ["/sh", "/bash", "/dash", "/zsh", "/ksh", "env sh", "env bash", "env zsh"].contains {
                line.hasSuffix($0) || line.contains($0 + " ")
            }
        },
        Signature("text/x-python3", text: true) { b in
            guard b.has("#!") else { return false }
            return (b.text(0, min(b.count, 128)) ?? "").prefix { $0 != "\n" }.contains("python")
        },
    ]
}
