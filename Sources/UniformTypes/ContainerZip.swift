/// Names the format of a ZIP archive from its entry names, read from the
/// central directory (found through the end-of-central-directory record in
/// the archive's last 64 KiB + 22 bytes), or, when there is none (a prefix
/// of standard input, a damaged archive), from the local file headers
/// walked from the start.
///
/// - A first entry named `mimetype`, stored: its content is the MIME type
///   (OpenDocument, EPUB); only known ones and sane
///   `application/vnd.oasis.opendocument.*` names are accepted.
/// - A part every Office Open XML package holds (`[Content_Types].xml` or
///   `_rels/.rels`; either may come last, past a prefix) with entries under
///   `word/`, `xl/`, `ppt/` or `visio/`: an Office Open XML document.
/// - `AndroidManifest.xml` with `classes.dex`: an Android package.
/// - `META-INF/MANIFEST.MF`: a Java archive.
enum ZipDirectory {
    /// How many bytes of central directory are read at most.
    static let directoryLimit = 128 * 1024
    /// How many entries are looked at most, in the directory or walked.
    static let entryLimit = 4096
    /// How many bytes of an entry's name are kept.
    static let nameLimit = 1024

    private static let endSignature: [UInt8] = [0x50, 0x4B, 0x05, 0x06]
    private static let zip64LocatorSignature: [UInt8] = [0x50, 0x4B, 0x06, 0x07]
    private static let zip64EndSignature: [UInt8] = [0x50, 0x4B, 0x06, 0x06]
    private static let entrySignature: [UInt8] = [0x50, 0x4B, 0x01, 0x02]
    private static let localSignature: [UInt8] = [0x50, 0x4B, 0x03, 0x04]

    /// One entry: its name, and where its local header is.
    struct Entry {
        var name: [UInt8]
        var localOffset: Int
        var method: Int
        var compressedSize: Int
    }

    static func identify(_ reader: inout ContentReader) -> ContainerFormat.Identification? {
        let entries = centralDirectory(&reader) ?? localHeaders(&reader)
        return classify(entries, &reader)
    }

    /// The entries the central directory lists, or nil when no
    /// end-of-central-directory record points at a directory inside the file.
    static func centralDirectory(_ reader: inout ContentReader) -> [Entry]? {
        // Most archives have no comment: the last KiB holds the record.
        for reach in [1024 + 22, 0xFFFF + 22] {
            let tailStart = max(0, reader.size - reach)
            guard let tail = reader.read(at: tailStart, count: reader.size - tailStart) else { return nil }
            let bytes = ContainerBytes(tail)
            if let at = endRecord(in: bytes) { return centralDirectory(endingIn: bytes, at: at, tailStart, &reader) }
            if tailStart == 0 { break }
        }
        return nil
    }

    /// Where the last end-of-central-directory record in `bytes` is whose
    /// comment ends inside them.
    private static func endRecord(in bytes: ContainerBytes) -> Int? {
        var at = bytes.count - 22
        while at >= 0 {
            if bytes.matches(endSignature, at: at), at + 22 + bytes.little(at + 20, 2) <= bytes.count { return at }
            at -= 1
        }
        return nil
    }

    /// The entries the central directory lists, found through the record
    /// at `at` in `bytes`, which were read at `tailStart`.
    private static func centralDirectory(
        endingIn bytes: ContainerBytes, at: Int, _ tailStart: Int, _ reader: inout ContentReader
    ) -> [Entry]? {
        let endOffset = tailStart + at
        var count = bytes.little(at + 10, 2)
        var directorySize = bytes.little(at + 12, 4)
        var directoryOffset = bytes.little(at + 16, 4)
        var directoryEnd = endOffset
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF,
            at >= 20, bytes.matches(zip64LocatorSignature, at: at - 20)
        {
            let recordOffset = bytes.little(at - 20 + 8, 8)
            guard recordOffset >= 0, recordOffset <= endOffset - 20 - 56,
                let record = reader.read(at: recordOffset, count: 56)
            else { return nil }
            let zip64 = ContainerBytes(record)
            guard zip64.matches(zip64EndSignature, at: 0) else { return nil }
            count = zip64.little(32, 8)
            directorySize = zip64.little(40, 8)
            directoryOffset = zip64.little(48, 8)
            directoryEnd = recordOffset
        }
        guard count >= 0, directorySize >= 0, directoryOffset >= 0, directorySize <= directoryEnd else { return nil }
        // Bytes before the archive (a self-extractor) shift every offset by
        // as much as the directory is found past where the record says.
        let shift = directoryEnd - directorySize - directoryOffset
        guard shift >= 0 else { return nil }
        let start = directoryEnd - directorySize
        // What is left after the directory pays for reading a `mimetype` entry.
        let affordable = max(reader.remaining - 512, 0)
        guard let directory = reader.read(at: start, count: min(directorySize, directoryLimit, affordable)) else {
            return nil
        }
        let list = ContainerBytes(directory)
        var entries: [Entry] = []
        var p = 0
        while entries.count < min(count, entryLimit), p + 46 <= list.count, list.matches(entrySignature, at: p) {
            let nameLength = list.little(p + 28, 2)
            let next = p + 46 + nameLength + list.little(p + 30, 2) + list.little(p + 32, 2)
            guard p + 46 + nameLength <= list.count else { break }
            entries.append(
                Entry(
                    name: list.slice(p + 46, min(nameLength, nameLimit)),
                    localOffset: list.little(p + 42, 4) + shift,
                    method: list.little(p + 10, 2),
                    compressedSize: list.little(p + 20, 4)))
            p = next
        }
        return entries.isEmpty ? nil : entries
    }

    /// The entries whose local headers follow one another from the start,
    /// as far as the budget, the entry limit and the sizes the headers state
    /// allow. An entry whose size follows its data (a data descriptor) is
    /// stepped over by finding the next local header's signature.
    static func localHeaders(_ reader: inout ContentReader) -> [Entry] {
        var entries: [Entry] = []
        // A spanned archive's marker may come before the first header.
        var offset = reader.read(at: 0, count: 4) == [0x50, 0x4B, 0x07, 0x08] ? 4 : 0
        while entries.count < entryLimit, offset + 30 <= reader.size {
            guard let header = reader.read(at: offset, count: 30) else { break }
            let bytes = ContainerBytes(header)
            guard bytes.matches(localSignature, at: 0) else { break }
            let nameLength = bytes.little(26, 2)
            let dataStart = offset + 30 + nameLength + bytes.little(28, 2)
            guard let name = reader.read(at: offset + 30, count: min(nameLength, nameLimit)),
                name.count == min(nameLength, nameLimit)
            else { break }
            let flags = bytes.little(6, 2)
            let size = bytes.little(18, 4)
            entries.append(Entry(name: name, localOffset: offset, method: bytes.little(8, 2), compressedSize: size))
            if flags & 0x08 != 0 && size == 0 {
                guard let next = nextLocalHeader(after: dataStart, &reader) else { break }
                offset = next
            } else {
                offset = dataStart + size
            }
        }
        return entries
    }

    /// The offset of the next local header's signature at or after `start`,
    /// searched in chunks growing from 256 bytes to 4 KiB while the budget pays.
    private static func nextLocalHeader(after start: Int, _ reader: inout ContentReader) -> Int? {
        var offset = start
        var chunkSize = 256
        while offset < reader.size {
            guard let chunk = reader.read(at: offset, count: min(chunkSize, reader.remaining)), chunk.count >= 4
            else { return nil }
            let bytes = ContainerBytes(chunk)
            for i in 0...(chunk.count - 4) where bytes.matches(localSignature, at: i) { return offset + i }
            if offset + chunk.count >= reader.size { return nil }
            offset += chunk.count - 3
            chunkSize = min(chunkSize * 2, 4096)
        }
        return nil
    }

    /// The format `entries` name.
    static func classify(_ entries: [Entry], _ reader: inout ContentReader) -> ContainerFormat.Identification? {
        guard let first = entries.first else { return nil }
        if first.name == Array("mimetype".utf8) {
            if let found = declaredType(first, &reader) { return found }
        }
        var isPackage = false, manifest = false, dex = false, javaManifest = false
        var office: ContainerFormat.Identification?
        for entry in entries {
            let name = entry.name
            if name == Array("[Content_Types].xml".utf8) || name == Array("_rels/.rels".utf8) { isPackage = true }
            if name == Array("AndroidManifest.xml".utf8) { manifest = true }
            if name == Array("classes.dex".utf8) { dex = true }
            if name == Array("META-INF/MANIFEST.MF".utf8) { javaManifest = true }
            if office == nil, let slash = name.firstIndex(of: UInt8(ascii: "/")) {
                office = officeTypes[String(decoding: name[..<slash], as: UTF8.self)]
            }
        }
        if isPackage, let office { return office }
        if manifest && dex { return found("application/vnd.android.package-archive", nil) }
        if javaManifest { return found("application/x-java-archive", "com.sun.java-archive") }
        return nil
    }

    /// The Office Open XML document whose parts sit in each top folder.
    private static let officeTypes: [String: ContainerFormat.Identification] = [
        "word": found(
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "org.openxmlformats.wordprocessingml.document"),
        "xl": found(
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "org.openxmlformats.spreadsheetml.sheet"),
        "ppt": found(
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
            "org.openxmlformats.presentationml.presentation"),
        "visio": found("application/vnd.ms-visio.drawing.main+xml", nil),
    ]

    /// The MIME type a stored `mimetype` entry holds, when it names a
    /// format this knows.
    private static func declaredType(_ entry: Entry, _ reader: inout ContentReader) -> ContainerFormat.Identification? {
        guard entry.method == 0, let header = reader.read(at: entry.localOffset, count: 30) else { return nil }
        let bytes = ContainerBytes(header)
        guard bytes.matches(localSignature, at: 0), bytes.little(8, 2) == 0 else { return nil }
        let stated = bytes.little(18, 4)
        let size = stated != 0 ? stated : entry.compressedSize
        guard size > 0, size <= 128 else { return nil }
        let start = entry.localOffset + 30 + bytes.little(26, 2) + bytes.little(28, 2)
        guard var content = reader.read(at: start, count: size), content.count == size else { return nil }
        while let last = content.last, last <= 0x20 { content.removeLast() }
        let text = String(decoding: content, as: UTF8.self)
        if let known = declaredTypes[text] { return known }
        let odfPrefix = "application/vnd.oasis.opendocument."
        let rest = content.dropFirst(odfPrefix.utf8.count)
        if text.hasPrefix(odfPrefix), !rest.isEmpty,
            rest.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x2E })
        {
            return found(text, nil)
        }
        return nil
    }

    /// The MIME types a `mimetype` entry may hold, with Apple's identifiers.
    private static let declaredTypes: [String: ContainerFormat.Identification] = {
        var table = ["application/epub+zip": found("application/epub+zip", "org.idpf.epub-container")]
        let documents = [
            "text", "text-template", "text-master", "text-web", "graphics", "graphics-template", "presentation",
            "presentation-template", "spreadsheet", "spreadsheet-template", "chart", "chart-template", "image",
            "image-template", "formula", "formula-template", "database",
        ]
        for kind in documents {
            let mime = "application/vnd.oasis.opendocument." + kind
            table[mime] = found(mime, "org.oasis-open.opendocument." + kind)
        }
        let openOffice = [
            "writer": "text", "calc": "spreadsheet", "impress": "presentation", "draw": "graphics", "math": "formula",
        ]
        for (kind, apple) in openOffice {
            let mime = "application/vnd.sun.xml." + kind
            table[mime] = found(mime, "org.openoffice." + apple)
        }
        return table
    }()

    private static func found(_ mimeType: String, _ identifier: String?) -> ContainerFormat.Identification {
        ContainerFormat.Identification(mimeType: mimeType, identifier: identifier, container: .zip)
    }
}
