import Foundation
import Testing

@testable import UniformTypes

/// The built-in signatures that type content where no shared-mime-info
/// database is found: a sample of every format they know, through the
/// signatures and through `FileTyping` over a registry without MIME data.
@Suite struct BuiltInSignatureTests {
    /// Bytes from parts: text (its UTF-8), a list of byte values, one byte,
    /// or a count of zero bytes.
    static func bytes(_ parts: Any...) -> [UInt8] {
        var out: [UInt8] = []
        for part in parts {
            switch part {
            case let text as String: out += Array(text.utf8)
            case let raw as [UInt8]: out += raw
            case let literal as [Int]: out += literal.map { UInt8($0) }
            case let byte as UInt8: out.append(byte)
            case let count as Int: out += [UInt8](repeating: 0, count: count)
            default: fatalError("\(part)")
            }
        }
        return out
    }

    /// A ZIP whose first entry is `name`, stored (method 0) with `content`.
    static func zip(first name: String, stored content: String = "", then more: String = "") -> [UInt8] {
        let n = UInt8(name.utf8.count), c = UInt8(content.utf8.count)
        return bytes(
            [0x50, 0x4B, 0x03, 0x04], [20, 0, 0, 0, 0, 0], 8, [c, 0, 0, 0], [c, 0, 0, 0], [n, 0, 0, 0], name, content,
            more)
    }

    static func ftyp(_ brand: String) -> [UInt8] { bytes([0, 0, 0, 0x18], "ftyp", brand, 12) }

    static func elf(type: UInt8, interpreter: Bool) -> [UInt8] {
        bytes([0x7F, 0x45, 0x4C, 0x46, 2, 1, 1], 9, type, 0, 46, interpreter ? "/lib64/ld-linux-x86-64.so.2" : "x")
    }

    static let samples: [(mime: String, content: [UInt8])] = [
        ("image/png", bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], 24)),
        ("image/jpeg", bytes([0xFF, 0xD8, 0xFF, 0xE0], 16)),
        ("image/gif", bytes("GIF89a", 10)),
        ("image/webp", bytes("RIFF", [0x24, 0, 0, 0], "WEBPVP8 ", 8)),
        ("image/tiff", bytes([0x49, 0x49, 0x2A, 0x00], 8)),
        ("image/bmp", bytes("BM", [0x3A, 0, 0, 0], 4, [0x36, 0, 0, 0], 30)),
        ("image/vnd.microsoft.icon", bytes([0, 0, 1, 0, 1, 0], 16)),
        ("image/vnd.adobe.photoshop", bytes("8BPS", [0, 1], 20)),
        ("image/jp2", bytes([0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A], 8)),
        ("image/jxl", bytes([0xFF, 0x0A], 8)),
        ("image/x-exr", bytes([0x76, 0x2F, 0x31, 0x01], 8)),
        ("image/avif", ftyp("avif")),
        ("image/heic", ftyp("heic")),
        ("image/heif", ftyp("mif1")),
        ("application/pdf", bytes("%PDF-1.7\n", 8)),
        ("application/postscript", bytes("%!PS-Adobe-3.0\n")),
        ("text/rtf", bytes("{\\rtf1\\ansi hello}")),
        ("application/epub+zip", zip(first: "mimetype", stored: "application/epub+zip")),
        (
            "application/vnd.oasis.opendocument.text",
            zip(first: "mimetype", stored: "application/vnd.oasis.opendocument.text")
        ),
        (
            "application/vnd.oasis.opendocument.spreadsheet",
            zip(first: "mimetype", stored: "application/vnd.oasis.opendocument.spreadsheet")
        ),
        (
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            zip(first: "[Content_Types].xml", then: "PK\u{3}\u{4}word/document.xml")
        ),
        (
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            zip(first: "[Content_Types].xml", then: "PK\u{3}\u{4}xl/workbook.xml")
        ),
        (
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
            zip(first: "[Content_Types].xml", then: "PK\u{3}\u{4}ppt/presentation.xml")
        ),
        ("application/zip", zip(first: "readme.txt", stored: "hello")),
        ("application/x-ole-storage", bytes([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1], 16)),
        ("application/gzip", bytes([0x1F, 0x8B, 0x08, 0x00], 8)),
        ("application/x-bzip2", bytes("BZh91AY&SY", 8)),
        ("application/x-xz", bytes([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], 8)),
        ("application/zstd", bytes([0x28, 0xB5, 0x2F, 0xFD], 8)),
        ("application/x-7z-compressed", bytes([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C], 8)),
        ("application/vnd.rar", bytes("Rar!", [0x1A, 0x07, 0x01, 0x00], 8)),
        ("application/x-lzip", bytes("LZIP", [1], 8)),
        ("application/x-tar", bytes("notes.txt", 248, "ustar\u{0}00", 240)),
        ("application/x-rpm", bytes([0xED, 0xAB, 0xEE, 0xDB], 8)),
        ("application/vnd.debian.binary-package", bytes("!<arch>\ndebian-binary   ", 8)),
        ("application/x-archive", bytes("!<arch>\nfoo.o/          ", 8)),
        ("application/x-cpio", bytes("070701", 104)),
        ("audio/flac", bytes("fLaC", [0, 0, 0, 0x22], 8)),
        ("audio/ogg", bytes("OggS", 24, [0x7F], "FLAC")),
        ("audio/x-vorbis+ogg", bytes("OggS", 24, [0x01], "vorbis")),
        ("audio/x-opus+ogg", bytes("OggS", 24, "OpusHead")),
        ("video/x-theora+ogg", bytes("OggS", 24, [0x80], "theora")),
        ("audio/x-wav", bytes("RIFF", [0x24, 0, 0, 0], "WAVEfmt ", 8)),
        ("video/x-msvideo", bytes("RIFF", [0x24, 0, 0, 0], "AVI LIST", 8)),
        ("audio/x-aiff", bytes("FORM", [0, 0, 0, 0x24], "AIFFCOMM", 8)),
        ("audio/midi", bytes("MThd", [0, 0, 0, 6, 0, 1], 8)),
        ("audio/mp4", ftyp("M4A ")),
        ("video/quicktime", ftyp("qt  ")),
        ("video/3gpp", ftyp("3gp5")),
        ("video/x-m4v", ftyp("M4V ")),
        ("video/mp4", ftyp("isom")),
        ("video/x-matroska", bytes([0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x82, 0x88], "matroska", 8)),
        ("video/webm", bytes([0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x82, 0x84], "webm", 8)),
        ("video/x-flv", bytes("FLV", [1, 5], 8)),
        ("video/mpeg", bytes([0, 0, 1, 0xBA], 16)),
        ("video/mp2t", bytes([0x47], 187, [0x47], 187, [0x47], 10)),
        ("audio/mpeg", bytes("ID3", [4, 0], 16)),
        ("audio/aac", bytes([0xFF, 0xF1, 0x50, 0x80], 8)),
        ("font/ttf", bytes([0, 1, 0, 0, 0, 0x10], 10)),
        ("font/otf", bytes("OTTO", [0, 0x0A], 10)),
        ("font/woff", bytes("wOFF", 12)),
        ("font/woff2", bytes("wOF2", 12)),
        ("font/collection", bytes("ttcf", 12)),
        ("application/x-executable", elf(type: 2, interpreter: false)),
        ("application/x-object", elf(type: 1, interpreter: false)),
        ("application/x-sharedlib", elf(type: 3, interpreter: false)),
        ("application/x-core", elf(type: 4, interpreter: false)),
        ("application/wasm", bytes([0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00], 8)),
        ("application/vnd.microsoft.portable-executable", bytes("MZ", 58, [0x40, 0, 0, 0], "PE", 2, 8)),
        ("application/x-mach-binary", bytes([0xCF, 0xFA, 0xED, 0xFE], 12)),
        ("application/vnd.sqlite3", bytes("SQLite format 3", 0 as UInt8, 16)),
        ("image/svg+xml", bytes("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n")),
        ("application/xml", bytes("<?xml version=\"1.0\"?>\n<note/>\n")),
        ("text/html", bytes("\n<!DOCTYPE HTML>\n<html></html>\n")),
        ("application/x-shellscript", bytes("#!/bin/sh\necho hello\n")),
        ("text/x-python3", bytes("#!/usr/bin/env python3\nprint(1)\n")),
    ]

    @Test func atLeastFortyFormatsAndEveryOneHasASample() {
        let known = BuiltInSignatures.mimeTypes.filter { !$0.hasPrefix("application/vnd.oasis.opendocument.") }
        #expect(known.count >= 40, "\(known.count)")
        let sampled = Set(Self.samples.map(\.mime))
        for mime in known { #expect(sampled.contains(mime), "no sample of \(mime)") }
        // The guide to typing files says how many.
        let guide = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../docs/guide-lookup.md")
        let text = (try? String(contentsOf: guide.standardized, encoding: .utf8)) ?? ""
        #expect(text.contains("specification: \(BuiltInSignatures.mimeTypes.count) MIME types"))
    }

    @Test(arguments: samples)
    func eachSampleIsRecognized(mime: String, content: [UInt8]) {
        #expect(content.withUnsafeBytes { BuiltInSignatures.mimeType(of: $0) } == mime)
        // Through FileTyping over a registry without shared-mime-info: the same MIME type, by content.
        let result = FileTyping(registry: .bundled).type(ofContent: content)
        #expect(result.mimeType == mime && result.basis == .content, "\(result.type.identifier) \(result.basis)")
    }

    @Test func textAndUnknownBinaryAreToldApart() {
        let typing = FileTyping(registry: .bundled)
        #expect(typing.type(ofContent: Array("plain words\nand lines\n".utf8)).type.identifier == "public.plain-text")
        #expect(typing.type(ofContent: [0x00, 0x13, 0x37, 0x42, 0x99]).basis == .unknown)
    }

    /// A name alone does not decide against the content: a PNG named
    /// fake.pdf is a PNG, a docx is a ZIP its name makes precise, and a
    /// .png of text is not a PNG.
    @Test func theContentIsCheckedAgainstTheName() throws {
        let folder = NSTemporaryDirectory() + "uti-signatures-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let png = Self.samples.first { $0.mime == "image/png" }!.content
        let docx = Self.samples.first { $0.mime.hasSuffix("wordprocessingml.document") }!.content
        FileManager.default.createFile(atPath: folder + "/fake.pdf", contents: Data(png))
        FileManager.default.createFile(atPath: folder + "/report.docx", contents: Data(docx))
        FileManager.default.createFile(atPath: folder + "/bad.png", contents: Data("just text\n".utf8))
        FileManager.default.createFile(atPath: folder + "/real.pdf", contents: Data("%PDF-1.4\n".utf8))
        let typing = FileTyping(registry: .bundled)
        let fake = try typing.type(forPath: folder + "/fake.pdf")
        #expect(fake.type.identifier == "public.png" && fake.basis == .content)
        let report = try typing.type(forPath: folder + "/report.docx")
        #expect(report.type.identifier == "org.openxmlformats.wordprocessingml.document")
        let bad = try typing.type(forPath: folder + "/bad.png")
        #expect(bad.type.identifier == "public.plain-text")
        let real = try typing.type(forPath: folder + "/real.pdf")
        #expect(real.type.identifier == "com.adobe.pdf" && real.basis == .nameAndContent)
        // The content alone, the check for an upload, with or without a MIME database.
        #expect(try typing.type(ofContentAt: folder + "/fake.pdf").type.identifier == "public.png")
        #expect(try typing.type(ofContentAt: folder + "/real.pdf").type.identifier == "com.adobe.pdf")
        if let system = try? TypeRegistry.load(RegistrySources(), cache: nil).registry, system.mimeDatabase != nil {
            let withDatabase = FileTyping(registry: system)
            #expect(try withDatabase.type(ofContentAt: folder + "/fake.pdf").type.identifier == "public.png")
            #expect(try withDatabase.type(forPath: folder + "/fake.pdf").type.identifier == "com.adobe.pdf")
        }
        #expect(throws: FileTyping.Failure.self) { try typing.type(ofContentAt: folder + "/missing") }
        // With sniffing off, the name is all there is.
        #expect(
            try typing.type(forPath: folder + "/fake.pdf", options: .init(sniff: false)).type.identifier
                == "com.adobe.pdf")
    }

    @Test func aRegistryWithoutADatabaseSaysSniffingIsReduced() throws {
        let environment = [
            "XDG_DATA_HOME": "/nonexistent", "XDG_DATA_DIRS": "/nonexistent", "HOME": "/nonexistent",
            "UTI_MIME_TYPES": "",
        ]
        let registry = try TypeRegistry.load(RegistrySources(environment: environment), cache: nil).registry
        #expect(registry.mimeDatabase == nil)
        #expect(
            registry.diagnostics.contains {
                $0.severity == .warning && $0.message.hasPrefix("no shared-mime-info database in these folders")
                    && $0.message.contains("\(BuiltInSignatures.mimeTypes.count) built-in signatures")
            })
    }
}

/// What a probe found: text that starts like a binary signature, a
/// container entry that would smuggle a header, names that claim a format
/// the content lacks, and formats built on a container.
@Suite struct BuiltInSignatureHardeningTests {
    static let typing = FileTyping(registry: .bundled)

    @Test(arguments: [
        "OTTO VON BISMARCK was chancellor\n", "ID3 tags are metadata\n", "07070 Gera\n", "LZIP compresses\n",
        "ttcf is a tag\n", "wOFF\n", "OggS is a page\n", "BZh9 text\n",
        "G" + String(repeating: "x", count: 187) + "G" + String(repeating: "y", count: 187) + "G tail\n",
    ])
    func textThatStartsLikeABinaryFormatIsText(text: String) {
        let result = Self.typing.type(ofContent: Array(text.utf8))
        #expect(result.mimeType == "text/plain", "\(result.mimeType ?? "nil")")
    }

    @Test func aContainerEntryNeverSmugglesAMIMEType() {
        let injected = "application/vnd.oasis.opendocument.x\r\nset-cookie: pwn=1\r\n\r\n<"
        let zip = BuiltInSignatureTests.zip(first: "mimetype", stored: injected)
        let mime = zip.withUnsafeBytes { BuiltInSignatures.mimeType(of: $0) }
        #expect(mime == "application/zip")
        #expect(Self.typing.type(ofContent: zip).mimeType == "application/zip")
    }

    @Test func namesOfFormatsTheContentLacksAreNotBelieved() throws {
        let folder = NSTemporaryDirectory() + "uti-signatures-names-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for ext in ["exe", "dll", "doc", "xls", "ts", "m4a", "docx", "epub", "jar", "dylib"] {
            FileManager.default.createFile(atPath: folder + "/text.\(ext)", contents: Data("one line of text\n".utf8))
            let result = try Self.typing.type(forPath: folder + "/text.\(ext)")
            #expect(result.type.identifier == "public.plain-text", "text.\(ext): \(result.type.identifier)")
        }
        FileManager.default.createFile(atPath: folder + "/ff.bin", contents: Data(repeating: 0xFF, count: 4096))
        #expect(try Self.typing.type(forPath: folder + "/ff.bin").type.identifier != "com.apple.macbinary-archive")
    }

    /// A `.docx` whose parts the signature cannot see is still a docx (a
    /// ZIP its name makes precise); an `.m4a` with the `mp42` brand an m4a.
    @Test func formatsBuiltOnAContainerKeepTheirName() throws {
        let folder = NSTemporaryDirectory() + "uti-signatures-inside-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        FileManager.default.createFile(
            atPath: folder + "/gdocs.docx", contents: Data(BuiltInSignatureTests.zip(first: "word/numbering.xml")))
        FileManager.default.createFile(atPath: folder + "/song.m4a", contents: Data(BuiltInSignatureTests.ftyp("mp42")))
        let docx = try Self.typing.type(forPath: folder + "/gdocs.docx")
        #expect(docx.type.identifier == "org.openxmlformats.wordprocessingml.document" && docx.basis == .nameAndContent)
        let song = try Self.typing.type(forPath: folder + "/song.m4a")
        #expect(song.type.identifier == "com.apple.m4a-audio" && song.basis == .nameAndContent)
    }
}
