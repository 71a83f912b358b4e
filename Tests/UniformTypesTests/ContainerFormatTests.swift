import Foundation
import Testing
import UniformTypes

private typealias Build = ContainerBytesBuilder
private typealias Entry = ContainerBytesBuilder.Entry

/// What `bytes` identify as, with the reader's spending checked against its budget.
private func identify(_ bytes: [UInt8], budget: Int = ContentReader.defaultBudget) -> ContainerFormat.Identification? {
    var reader = ContentReader(bytes: bytes, budget: budget)
    let found = ContainerFormat.identify(&reader)
    #expect(reader.spent <= budget)
    return found
}

private func answer(
    _ mimeType: String, _ identifier: String?, _ container: ContainerFormat.Container
)
    -> ContainerFormat.Identification
{
    ContainerFormat.Identification(mimeType: mimeType, identifier: identifier, container: container)
}

private let docx = answer(
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "org.openxmlformats.wordprocessingml.document", .zip)
private let xlsx = answer(
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "org.openxmlformats.spreadsheetml.sheet",
    .zip)
private let pptx = answer(
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "org.openxmlformats.presentationml.presentation", .zip)

private func office(_ folder: String) -> [Entry] {
    [
        Entry(name: "[Content_Types].xml", data: Array("<Types/>".utf8)), Entry(name: "_rels/.rels"),
        Entry(name: "\(folder)/document.xml", data: Array(repeating: 0x20, count: 300)),
    ]
}

private func mimetype(_ type: String) -> [Entry] {
    [
        Entry(name: "mimetype", data: Array(type.utf8)), Entry(name: "META-INF/manifest.xml"),
        Entry(name: "content.xml"),
    ]
}

@Suite struct ContainerFormatTests {
    static let zips: [(String, [UInt8], ContainerFormat.Identification?)] = [
        ("docx", Build.zip(office("word")), docx),
        ("xlsx", Build.zip(office("xl")), xlsx),
        ("pptx", Build.zip(office("ppt")), pptx),
        ("vsdx", Build.zip(office("visio")), answer("application/vnd.ms-visio.drawing.main+xml", nil, .zip)),
        ("word folder without [Content_Types].xml", Build.zip(Array(office("word").dropFirst())), docx),
        ("word folder without package parts", Build.zip(Array(office("word").dropFirst(2))), nil),
        (
            "pptx cut before [Content_Types].xml",
            Array(
                Build.zip(
                    Array(office("ppt").dropFirst()) + [
                        Entry(name: "[Content_Types].xml", data: Array(repeating: 0x20, count: 400))
                    ], directory: false
                ).prefix(400)),
            pptx
        ),
        ("docx, local headers only", Build.zip(office("word"), directory: false), docx),
        (
            "docx, data descriptors, local headers only",
            Build.zip(office("word").map { Entry(name: $0.name, data: $0.data, descriptor: true) }, directory: false),
            docx
        ),
        ("docx, ZIP64 directory", Build.zip(office("word"), zip64: true), docx),
        ("docx with a long comment", Build.zip(office("word"), comment: Array(repeating: 0x41, count: 60000)), docx),
        ("docx after a self-extractor", Build.zip(office("word"), prefix: Array(repeating: 0x90, count: 100)), nil),
        (
            "odt", Build.zip(mimetype("application/vnd.oasis.opendocument.text")),
            answer("application/vnd.oasis.opendocument.text", "org.oasis-open.opendocument.text", .zip)
        ),
        (
            "ods, local headers only",
            Build.zip(mimetype("application/vnd.oasis.opendocument.spreadsheet"), directory: false),
            answer("application/vnd.oasis.opendocument.spreadsheet", "org.oasis-open.opendocument.spreadsheet", .zip)
        ),
        (
            "unlisted OpenDocument kind", Build.zip(mimetype("application/vnd.oasis.opendocument.future")),
            answer("application/vnd.oasis.opendocument.future", nil, .zip)
        ),
        ("OpenDocument kind with a space", Build.zip(mimetype("application/vnd.oasis.opendocument.a b")), nil),
        (
            "epub", Build.zip(mimetype("application/epub+zip")),
            answer("application/epub+zip", "org.idpf.epub-container", .zip)
        ),
        (
            "sxw", Build.zip(mimetype("application/vnd.sun.xml.writer")),
            answer("application/vnd.sun.xml.writer", "org.openoffice.text", .zip)
        ),
        ("unknown mimetype", Build.zip(mimetype("text/html")), nil),
        ("mimetype not first", Build.zip(Array(mimetype("application/epub+zip").reversed())), nil),
        (
            "jar", Build.zip([Entry(name: "META-INF/"), Entry(name: "META-INF/MANIFEST.MF"), Entry(name: "A.class")]),
            answer("application/x-java-archive", "com.sun.java-archive", .zip)
        ),
        (
            "apk",
            Build.zip([
                Entry(name: "AndroidManifest.xml"), Entry(name: "classes.dex"), Entry(name: "META-INF/MANIFEST.MF"),
            ]),
            answer("application/vnd.android.package-archive", nil, .zip)
        ),
        ("plain zip", Build.zip([Entry(name: "a.txt"), Entry(name: "b/c.txt")]), nil),
        ("empty zip", Build.end(count: 0, size: 0, offset: 0), nil),
    ]

    @Test(arguments: zips) func zipEntryNames(
        _ name: String, _ bytes: [UInt8], _ expected: ContainerFormat.Identification?
    ) {
        #expect(identify(bytes) == expected, "\(name)")
    }

    /// Forged directories: each gives the right answer (from the local
    /// headers) or none, within the budget.
    static let hostileZips: [(String, [UInt8], ContainerFormat.Identification?)] = {
        let body = Build.zip(office("word"), directory: false)
        let huge = Build.zip([Entry(name: "[Content_Types].xml"), Entry(name: "word/x", data: [1, 2, 3])])
        var longName = huge
        longName[26] = 0xFF
        longName[27] = 0xFF
        var hugeSize = huge
        hugeSize.replaceSubrange(18..<26, with: [0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0x7F])
        return [
            ("directory outside the file", body + Build.end(count: 3, size: 100, offset: 1 << 30), docx),
            ("directory larger than the file", body + Build.end(count: 3, size: 0xFFFF_FFFF, offset: 0), docx),
            ("65535 entries in a tiny file", Build.end(count: 0xFFFF, size: 46, offset: 0), nil),
            ("65535 entries after real ones", body + Build.end(count: 0xFFFF, size: 0, offset: body.count), docx),
            (
                "comment longer than the file",
                body + Build.end(count: 3, size: 0, offset: 0).dropLast(2) + [0xFF, 0xFF], docx
            ),
            (
                "zip64 locator pointing nowhere",
                body + [0x50, 0x4B, 0x06, 0x07, 0, 0, 0, 0] + Build.le(Int.max, 8) + Build.le(1, 4)
                    + Build.end(count: 0xFFFF, size: 0xFFFF_FFFF, offset: 0xFFFF_FFFF), docx
            ),
            ("name length 65535", longName, docx),
            ("entry size past the file", hugeSize, docx),
            (
                "an empty end record inside an entry's data, no directory",
                Build.zip(
                    office("word") + [Entry(name: "x.bin", data: Build.end(count: 0, size: 0, offset: 0))],
                    directory: false), docx
            ),
            ("only a signature", [0x50, 0x4B, 0x03, 0x04], nil),
            ("local header cut short", Array(body.prefix(40)), nil),
            (
                "mimetype size past the file",
                Array(Build.zip(mimetype("application/epub+zip"), directory: false).prefix(50)), nil
            ),
        ]
    }()

    @Test(arguments: hostileZips)
    func forgedZip(_ name: String, _ bytes: [UInt8], _ expected: ContainerFormat.Identification?) {
        #expect(identify(bytes) == expected, "\(name)")
    }

    /// A large archive is named from its end record and directory alone,
    /// within a small budget.
    @Test func aLargeArchiveCostsItsDirectory() {
        let bytes = Build.zip(
            office("word") + [Entry(name: "media/big.bin", data: Array(repeating: 7, count: 1 << 20))])
        var reader = ContentReader(bytes: bytes, budget: 4096)
        #expect(ContainerFormat.identify(&reader) == docx)
        #expect(reader.spent <= 4096)
    }

    /// A long run of entries with data descriptors is walked only as far as
    /// the budget pays.
    @Test func walkingLocalHeadersStopsAtTheBudget() {
        let entries = (0..<5000).map {
            Entry(name: "f\($0)", data: Array(repeating: 0x41, count: 200), descriptor: true)
        }
        let bytes = Build.zip(entries + office("word"), directory: false)
        #expect(bytes.count > ContentReader.defaultBudget)
        #expect(identify(bytes) == nil)
        #expect(identify(bytes, budget: 4096) == nil)
    }

    static let compoundFiles: [(String, [UInt8], ContainerFormat.Identification?)] = [
        (
            "doc", Build.compoundFile(names: ["\u{1}CompObj", "WordDocument", "1Table"]),
            answer("application/msword", "com.microsoft.word.doc", .compoundFile)
        ),
        (
            "xls", Build.compoundFile(names: ["Workbook", "\u{5}SummaryInformation"]),
            answer("application/vnd.ms-excel", "com.microsoft.excel.xls", .compoundFile)
        ),
        (
            "xls (Excel 5)", Build.compoundFile(names: ["Book"]),
            answer("application/vnd.ms-excel", "com.microsoft.excel.xls", .compoundFile)
        ),
        (
            "ppt", Build.compoundFile(names: ["Current User", "PowerPoint Document"]),
            answer("application/vnd.ms-powerpoint", "com.microsoft.powerpoint.ppt", .compoundFile)
        ),
        (
            "msi", Build.compoundFile(names: ["\u{4840}\u{3F3F}"], classID: Build.classID(0x000C_1084)),
            answer("application/x-msi", nil, .compoundFile)
        ),
        (
            "doc by class only", Build.compoundFile(names: ["Other"], classID: Build.classID(0x0002_0906)),
            answer("application/msword", "com.microsoft.word.doc", .compoundFile)
        ),
        (
            "doc, 4096-byte sectors", Build.compoundFile(names: ["WordDocument"], shift: 12),
            answer("application/msword", "com.microsoft.word.doc", .compoundFile)
        ),
        (
            "xls in a second directory sector",
            Build.compoundFile(names: ["A", "B", "C", "D", "E", "Workbook"]),
            answer("application/vnd.ms-excel", "com.microsoft.excel.xls", .compoundFile)
        ),
        ("nothing known", Build.compoundFile(names: ["Thumbnails", "Catalog"]), nil),
        ("no streams", Build.compoundFile(names: []), nil),
    ]

    @Test(arguments: compoundFiles)
    func compoundFileStreams(_ name: String, _ bytes: [UInt8], _ expected: ContainerFormat.Identification?) {
        #expect(identify(bytes) == expected, "\(name)")
    }

    static let hostileCompoundFiles: [(String, [UInt8], ContainerFormat.Identification?)] = {
        let doc = answer("application/msword", "com.microsoft.word.doc", .compoundFile)
        var selfSibling = Build.compoundFile(names: ["A", "WordDocument"])
        // Entry 1's left sibling is itself.
        selfSibling.replaceSubrange(1024 + 128 + 68..<1024 + 128 + 72, with: Build.le(1, 4))
        var difat = Build.compoundFile(names: ["A", "B", "C", "D", "E", "WordDocument"])
        // The allocation table's sector is past the end: the directory's
        // first sector is read, and its chain ends there.
        difat.replaceSubrange(0x4C..<0x50, with: Build.le(0xFFFF_FFF0, 4))
        return [
            ("sector shift 30", Build.compoundFile(names: ["WordDocument"], statedShift: 30), nil),
            ("sector shift 0", Build.compoundFile(names: ["WordDocument"], statedShift: 0), nil),
            (
                "directory chain looping", Build.compoundFile(names: ["A", "B", "C", "D", "WordDocument"], loop: true),
                doc
            ),
            (
                "directory outside the file", Build.compoundFile(names: ["WordDocument"], firstDirectory: 0x7FFF_FFFF),
                nil
            ),
            (
                "directory at end of chain", Build.compoundFile(names: ["WordDocument"], firstDirectory: 0xFFFF_FFFE),
                nil
            ),
            ("sibling loop", selfSibling, doc),
            ("allocation table outside the file", difat, nil),
            ("header only", Array(Build.compoundFile(names: ["WordDocument"]).prefix(512)), nil),
            ("cut in the header", Array(Build.compoundFile(names: ["WordDocument"]).prefix(100)), nil),
        ]
    }()

    @Test(arguments: hostileCompoundFiles)
    func forgedCompoundFile(_ name: String, _ bytes: [UInt8], _ expected: ContainerFormat.Identification?) {
        #expect(identify(bytes) == expected, "\(name)")
    }

    static let media: [(String, [UInt8], ContainerFormat.Identification?)] = {
        let heic = answer("image/heif", "public.heic", .isoMedia)
        let mp4 = answer("video/mp4", "public.mpeg-4", .isoMedia)
        return [
            ("webm", Build.ebml(docType: "webm"), answer("video/webm", "org.webmproject.webm", .matroska)),
            ("mkv", Build.ebml(docType: "matroska"), answer("video/x-matroska", "org.matroska.mkv", .matroska)),
            ("unknown DocType", Build.ebml(docType: "other"), nil),
            ("heic", Build.ftyp("heic", ["mif1", "heic"]), heic),
            ("heic under mif1", Build.ftyp("mif1", ["mif1", "heic"]), heic),
            ("heif", Build.ftyp("mif1", ["mif1", "miaf"]), answer("image/heif", "public.heif", .isoMedia)),
            ("heif sequence", Build.ftyp("msf1", ["msf1", "iso8"]), answer("image/heif", "public.heifs", .isoMedia)),
            ("heic sequence", Build.ftyp("hevc", ["msf1", "hevc"]), answer("image/heif", "public.heics", .isoMedia)),
            (
                "avif", Build.ftyp("avif", ["avif", "mif1", "miaf", "MA1B"]),
                answer("image/avif", "public.avif", .isoMedia)
            ),
            ("avif under miaf", Build.ftyp("miaf", ["mif1", "avif"]), answer("image/avif", "public.avif", .isoMedia)),
            ("mov", Build.ftyp("qt  ", ["qt  "]), answer("video/quicktime", "com.apple.quicktime-movie", .isoMedia)),
            (
                "m4a", Build.ftyp("M4A ", ["M4A ", "isom", "iso2"]),
                answer("audio/mp4", "com.apple.m4a-audio", .isoMedia)
            ),
            ("m4b", Build.ftyp("M4B ", []), answer("audio/x-m4b", "com.apple.protected-mpeg-4-audio-b", .isoMedia)),
            ("m4v", Build.ftyp("M4V ", ["M4V ", "mp42"]), answer("video/mp4", "com.apple.m4v-video", .isoMedia)),
            ("3gp", Build.ftyp("3gp5", ["isom", "3gp4"]), answer("video/3gpp", "public.3gpp", .isoMedia)),
            ("3g2", Build.ftyp("3g2a", ["3g2a"]), answer("video/3gpp2", "public.3gpp2", .isoMedia)),
            ("mp4", Build.ftyp("isom", ["isom", "iso2", "avc1", "mp41"]), mp4),
            (
                "heif with generic brands", Build.ftyp("mif1", ["isom", "mif1"]),
                answer("image/heif", "public.heif", .isoMedia)
            ),
            ("mp4 (mp42)", Build.ftyp("mp42", ["mp42", "mp41"]), mp4),
            ("unknown major, generic compatible", Build.ftyp("crx ", ["crx ", "isom"]), nil),
            (
                "unknown major, 3gp compatible", Build.ftyp("zzzz", ["3gp6"]),
                answer("video/3gpp", "public.3gpp", .isoMedia)
            ),
            ("wav", Build.riff("WAVE"), answer("audio/x-wav", "com.microsoft.waveform-audio", .riff)),
            ("avi", Build.riff("AVI "), answer("video/x-msvideo", "public.avi", .riff)),
            ("webp", Build.riff("WEBP"), answer("image/webp", "org.webmproject.webp", .riff)),
            ("aiff", Build.riff("AIFF", magic: "FORM"), answer("audio/x-aiff", "public.aiff-audio", .riff)),
            ("aifc", Build.riff("AIFC", magic: "FORM"), answer("audio/x-aifc", "public.aifc-audio", .riff)),
            ("WAVE in FORM", Build.riff("WAVE", magic: "FORM"), nil),
            ("unknown RIFF form", Build.riff("CDXA"), nil),
            ("text", Array("hello, world\n".utf8), nil),
            ("empty", [], nil),
        ]
    }()

    @Test(arguments: media) func mediaHeaders(
        _ name: String, _ bytes: [UInt8], _ expected: ContainerFormat.Identification?
    ) {
        #expect(identify(bytes) == expected, "\(name)")
    }

    static let hostileMedia: [(String, [UInt8], ContainerFormat.Identification?)] = {
        let mp4 = answer("video/mp4", "public.mpeg-4", .isoMedia)
        let brands = Array("isomisom".utf8)
        let ftyp = Array("ftyp".utf8)
        let webm = Build.ebml(docType: "webm")
        var docTypeTooLong = webm
        docTypeTooLong[11] = 0x88
        return [
            ("box size 0 (to the end)", Build.be(0, 4) + ftyp + brands + Array(repeating: 0, count: 8), mp4),
            ("box size 1, large size 24", Build.be(1, 4) + ftyp + Build.be(24, 8) + brands, mp4),
            ("box size 1, large size huge", Build.be(1, 4) + ftyp + Build.be(Int.max, 8) + brands, mp4),
            (
                "box size 1, large size past a signed number", Build.be(1, 4) + ftyp + [0xFF] + Build.be(0, 7) + brands,
                mp4
            ),
            ("box size 1, large size 0", Build.be(1, 4) + ftyp + Build.be(0, 8) + brands, nil),
            ("box size 8", Build.be(8, 4) + ftyp + brands, nil),
            ("box size huge", Build.be(0xFFFF_FFFF, 4) + ftyp + brands + Array(repeating: 0x41, count: 5000), mp4),
            ("box cut after its header", Build.be(16, 4) + ftyp, nil),
            (
                "EBML header size unknown", [0x1A, 0x45, 0xDF, 0xA3, 0xFF] + webm.dropFirst(5),
                answer("video/webm", "org.webmproject.webm", .matroska)
            ),
            (
                "EBML header size huge",
                [0x1A, 0x45, 0xDF, 0xA3, 0x01] + Array(repeating: 0x7F, count: 7) + webm.dropFirst(5),
                answer("video/webm", "org.webmproject.webm", .matroska)
            ),
            ("EBML DocType longer than the header", docTypeTooLong, nil),
            ("EBML zero byte", [0x1A, 0x45, 0xDF, 0xA3, 0x84, 0x00, 0x00, 0x00, 0x00, 0, 0, 0], nil),
            ("EBML only the ID", [0x1A, 0x45, 0xDF, 0xA3] + Array(repeating: 0, count: 8), nil),
        ]
    }()

    @Test(arguments: hostileMedia)
    func forgedMediaHeaders(_ name: String, _ bytes: [UInt8], _ expected: ContainerFormat.Identification?) {
        #expect(identify(bytes) == expected, "\(name)")
    }

    /// Every sample above with bytes changed at fixed-seed random places,
    /// under budgets from nothing to the default: never a crash, never more
    /// than the budget.
    @Test func damagedSamplesStayInsideTheirBudget() {
        let samples =
            (Self.zips + Self.hostileZips + Self.compoundFiles + Self.hostileCompoundFiles + Self.media
            + Self.hostileMedia).map { $0.1 }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        for sample in samples where !sample.isEmpty {
            for round in 0..<40 {
                var bytes = sample
                for _ in 0..<(1 + round % 4) {
                    let values: [UInt8] = [0x00, 0xFF, 0x7F, 0x80, UInt8(truncatingIfNeeded: next())]
                    bytes[next() % bytes.count] = values[next() % values.count]
                }
                let budget = [0, 16, 300, 4096, ContentReader.defaultBudget][round % 5]
                _ = identify(bytes, budget: budget)
            }
        }
    }

    @Test func readerPaysEveryByteFromItsBudget() {
        var reader = ContentReader(bytes: Array(0..<100), budget: 30)
        #expect(reader.size == 100)
        #expect(reader.read(at: 90, count: 20) == Array(90..<100))
        #expect(reader.spent == 10)
        #expect(reader.read(at: 0, count: 21) == nil)
        #expect(reader.spent == 10)
        #expect(reader.read(at: 0, count: 20) == Array(0..<20))
        #expect(reader.read(at: 0, count: 1) == nil)
        #expect(reader.read(at: 100, count: 0) == [])
        #expect(reader.read(at: 101, count: 0) == nil)
        #expect(reader.read(at: -1, count: 0) == nil)
        #expect(reader.spent == 30)
    }

    @Test func readerOfADescriptorLeavesItsOffsetAlone() throws {
        let docxBytes = Build.zip(office("word"))
        try withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("document").path
            #expect(FileManager.default.createFile(atPath: path, contents: Data(docxBytes)))
            let fd = open(path, O_RDONLY)
            #expect(fd >= 0)
            defer { close(fd) }
            var reader = ContentReader(fileDescriptor: fd, size: docxBytes.count)
            #expect(ContainerFormat.identify(&reader) == docx)
            #expect(reader.spent <= ContentReader.defaultBudget)
            #expect(lseek(fd, 0, SEEK_CUR) == 0)
            // A file that shrank after its size was taken reads short.
            var stale = ContentReader(fileDescriptor: fd, size: docxBytes.count + 50)
            #expect(stale.read(at: docxBytes.count - 2, count: 10)?.count == 2)
            var closed = ContentReader(fileDescriptor: -1, size: 10)
            #expect(closed.read(at: 0, count: 4) == nil)
        }
    }
}
