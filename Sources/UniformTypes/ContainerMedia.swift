/// Names a Matroska file from its EBML header's DocType: `webm` is WebM,
/// `matroska` Matroska. The header is read from the first
/// ``headerLimit`` bytes.
enum MatroskaHeader {
    static let headerLimit = 256
    private static let docTypeID = 0x4282

    static func identify(_ reader: inout ContentReader) -> ContainerFormat.Identification? {
        guard let head = reader.read(at: 0, count: headerLimit) else { return nil }
        let bytes = ContainerBytes(head)
        guard let (headerSize, sizeLength) = number(bytes, at: 4, keepingMarker: false) else { return nil }
        var p = 4 + sizeLength
        let end = headerSize.map { min(p + $0, bytes.count) } ?? bytes.count
        while p < end {
            guard let (id, idLength) = number(bytes, at: p, keepingMarker: true), idLength <= 4, let id,
                let (size, sizeLength) = number(bytes, at: p + idLength, keepingMarker: false), let size
            else { return nil }
            p += idLength + sizeLength
            guard size <= end - p else { return nil }
            if id == docTypeID {
                var docType = bytes.slice(p, size)
                while docType.last == 0 { docType.removeLast() }
                switch String(decoding: docType, as: UTF8.self) {
                case "webm": return found("video/webm", "org.webmproject.webm")
                case "matroska": return found("video/x-matroska", "org.matroska.mkv")
                default: return nil
                }
            }
            p += size
        }
        return nil
    }

    /// The variable-length number at `offset` and its length in bytes (1
    /// to 8, told by the first byte's leading zeros); the number is nil
    /// when all its bits are ones (an unknown size). An element ID keeps
    /// its length marker.
    private static func number(_ bytes: ContainerBytes, at offset: Int, keepingMarker: Bool) -> (Int?, Int)? {
        guard offset < bytes.count else { return nil }
        let first = bytes[offset]
        guard first != 0 else { return nil }
        let length = first.leadingZeroBitCount + 1
        guard offset + length <= bytes.count else { return nil }
        let marker = 1 << (7 * length)
        let value = bytes.big(offset, length)
        if keepingMarker { return (value, length) }
        let number = value & (marker - 1)
        return (number == marker - 1 ? nil : number, length)
    }

    private static func found(_ mimeType: String, _ identifier: String?) -> ContainerFormat.Identification {
        ContainerFormat.Identification(mimeType: mimeType, identifier: identifier, container: .matroska)
    }
}

/// Names an ISO base media file (MP4, QuickTime, HEIF, AVIF, 3GPP) from
/// its first box, `ftyp`: its major brand, then its compatible brands.
///
/// A major brand this knows names the format, unless it is only
/// `mif1`/`msf1`/`miaf` (HEIF's structure, saying nothing of the coding).
/// Otherwise the compatible brand of the earliest group in this order
/// names it, the first listed within a group: HEIC and AVIF images and
/// sequences; Apple's M4A, M4B, M4P and M4V; QuickTime; 3GPP2 and 3GPP.
/// The generic MPEG-4 brands (`isom`, `iso2`…, `mp41`, `mp42`, `avc1`,
/// `dash`) name MPEG-4 only as the major brand: as compatible brands they
/// say only how the boxes are laid out. Failing those, a weak major brand
/// names HEIF (a HEIF sequence for `msf1`), and any other names nothing.
enum FileTypeBox {
    /// How many bytes of the box are read: 16 of header and brands, 250 brands.
    static let boxLimit = 1024

    private struct Brand {
        let identification: ContainerFormat.Identification
        /// The group's place in the order; lower comes first.
        let group: Int
    }

    static func identify(_ reader: inout ContentReader) -> ContainerFormat.Identification? {
        guard let head = reader.read(at: 0, count: boxLimit) else { return nil }
        let bytes = ContainerBytes(head)
        let stated = bytes.big(0, 4)
        let headerLength = stated == 1 ? 16 : 8
        // A 64-bit size past what a signed number holds, or past the file,
        // is read as far as the file goes.
        let given = stated == 1 ? bytes.big(8, 8) : stated == 0 ? reader.size : stated
        let boxSize = given < 0 || given > reader.size ? reader.size : given
        guard boxSize >= headerLength + 8, headerLength + 8 <= bytes.count else { return nil }
        let major = brand(bytes, headerLength)
        let weak: Set<String> = ["mif1", "msf1", "miaf"]
        if let known = brands(major), !weak.contains(major) { return known.identification }
        var best: Brand?
        for offset in stride(from: headerLength + 8, through: min(boxSize, bytes.count) - 4, by: 4) {
            guard let candidate = brands(brand(bytes, offset)), candidate.group <= 3 else { continue }
            if candidate.group < best?.group ?? Int.max { best = candidate }
        }
        // A weak major brand names HEIF when no compatible brand says more.
        if best == nil { best = brands(major) }
        return best?.identification
    }

    private static func brand(_ bytes: ContainerBytes, _ offset: Int) -> String {
        String(decoding: bytes.slice(offset, 4), as: UTF8.self)
    }

    /// What `brand` names, and its group.
    private static func brands(_ brand: String) -> Brand? {
        let heic = found("image/heif", "public.heic"), heics = found("image/heif", "public.heics")
        let avif = found("image/avif", "public.avif")
        switch brand {
        case "heic", "heix", "heim", "heis": return Brand(identification: heic, group: 0)
        case "hevc", "hevx", "hevm", "hevs": return Brand(identification: heics, group: 0)
        case "avif", "avis": return Brand(identification: avif, group: 0)
        case "M4A ": return Brand(identification: found("audio/mp4", "com.apple.m4a-audio"), group: 1)
        case "M4B ": return Brand(identification: found("audio/x-m4b", "com.apple.protected-mpeg-4-audio-b"), group: 1)
        case "M4P ": return Brand(identification: found("audio/mp4", "com.apple.protected-mpeg-4-audio"), group: 1)
        case "M4V ", "M4VH", "M4VP": return Brand(identification: found("video/mp4", "com.apple.m4v-video"), group: 1)
        case "qt  ": return Brand(identification: found("video/quicktime", "com.apple.quicktime-movie"), group: 2)
        case "isom", "iso2", "iso3", "iso4", "iso5", "iso6", "iso7", "iso8", "iso9", "mp41", "mp42", "mp71", "avc1",
            "dash":
            return Brand(identification: found("video/mp4", "public.mpeg-4"), group: 4)
        case "mif1", "miaf": return Brand(identification: found("image/heif", "public.heif"), group: 5)
        case "msf1": return Brand(identification: found("image/heif", "public.heifs"), group: 5)
        default: break
        }
        if brand.hasPrefix("3g2") { return Brand(identification: found("video/3gpp2", "public.3gpp2"), group: 3) }
        if ["3gp", "3ge", "3gg", "3gr", "3gs"].contains(where: brand.hasPrefix) {
            return Brand(identification: found("video/3gpp", "public.3gpp"), group: 3)
        }
        return nil
    }

    private static func found(_ mimeType: String, _ identifier: String?) -> ContainerFormat.Identification {
        ContainerFormat.Identification(mimeType: mimeType, identifier: identifier, container: .isoMedia)
    }
}

/// Names a RIFF file by its form type (`WAVE`, `AVI `, `WEBP`), or an IFF
/// one (`FORM`) by its own (`AIFF`, `AIFC`).
enum RIFFForm {
    static func identify(_ head: [UInt8]) -> ContainerFormat.Identification? {
        let bytes = ContainerBytes(head)
        let form = String(decoding: bytes.slice(8, 4), as: UTF8.self)
        let table: [String: (String, String)] =
            bytes.matches(Array("RIFF".utf8), at: 0)
            ? [
                "WAVE": ("audio/x-wav", "com.microsoft.waveform-audio"),
                "AVI ": ("video/x-msvideo", "public.avi"),
                "WEBP": ("image/webp", "org.webmproject.webp"),
            ]
            : [
                "AIFF": ("audio/x-aiff", "public.aiff-audio"),
                "AIFC": ("audio/x-aifc", "public.aifc-audio"),
            ]
        guard let (mimeType, identifier) = table[form] else { return nil }
        return ContainerFormat.Identification(mimeType: mimeType, identifier: identifier, container: .riff)
    }
}
