import Foundation
import TestSupport
import Testing

@testable import UniformTypes

/// Content that contradicts a file's name: `uti file` says so beside GIO's
/// answer (a word on the line, `content` in JSON), `--content` types the
/// content alone, and `conforms --strict` and `filter --strict` say no; the
/// library gives each answer the tool prints.
@Suite struct ContentCheckTests {
    /// The machine's shared-mime-info.
    static let systemData = ["XDG_DATA_DIRS": "/usr/share"]

    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 24)
    static let jpeg: [UInt8] =
        [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + Array(repeating: 0, count: 22)
    static let text = Array("hello world\nsecond line\n".utf8)
    static let noise: [UInt8] = {
        var random = SplitMix64(seed: 47)
        return (0..<4096).map { _ in UInt8(truncatingIfNeeded: random.next()) } + [0, 1, 2]
    }()
    /// A skippable Zstandard frame of 4 bytes, then a frame's magic number.
    static let zstd: [UInt8] = [0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, 1, 2, 3, 4, 0x28, 0xB5, 0x2F, 0xFD, 0, 0, 0, 0]

    /// A file, and what each door says of it: the content's type, the
    /// agreement, and whether it is strictly an image.
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var answer: String
        var content: String
        var agreement: String
        var strictlyImage: Bool
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "text.jpg", bytes: text, answer: "public.jpeg", content: "public.plain-text",
            agreement: "contradicts", strictlyImage: false),
        Row(
            name: "fake.pdf", bytes: png, answer: "com.adobe.pdf", content: "public.png", agreement: "contradicts",
            strictlyImage: false),
        Row(
            name: "IMG_0001.heic", bytes: noise, answer: "public.heic", content: "public.data",
            agreement: "contradicts", strictlyImage: false),
        // Another image format: an image all the same.
        Row(
            name: "photo.png", bytes: jpeg, answer: "public.png", content: "public.jpeg", agreement: "contradicts",
            strictlyImage: true),
        Row(
            name: "logo.png", bytes: png, answer: "public.png", content: "public.png", agreement: "agrees",
            strictlyImage: true),
        Row(
            name: "notes.md", bytes: text, answer: "net.daringfireball.markdown", content: "public.plain-text",
            agreement: "agrees", strictlyImage: false),
        Row(
            name: "notes.txt", bytes: noise, answer: "public.plain-text", content: "public.data",
            agreement: "contradicts", strictlyImage: false),
        Row(
            name: "skippable.zst", bytes: zstd, answer: "com.facebook.zstandard-archive",
            content: "com.facebook.zstandard-archive",
            agreement: "agrees", strictlyImage: false),
        // Binary data named after a format whose rules may not know every version of it.
        Row(
            name: "module.pyc", bytes: noise, answer: "org.freedesktop.mime.application.x-python-bytecode",
            content: "public.data", agreement: "undecided", strictlyImage: false),
        Row(
            name: "screenshot", bytes: png, answer: "public.png", content: "public.png", agreement: "agrees",
            strictlyImage: true),
    ]

    @Test(arguments: rows)
    func everyDoorSaysWhatTheContentSays(row: Row) throws {
        let folder = TemporaryFolder("uti-content-check")
        let path = folder.path + "/" + row.name
        FileManager.default.createFile(atPath: path, contents: Data(row.bytes))
        let contradicts = row.agreement == "contradicts"

        // The answer stays GIO's; the line says when the content contradicts it.
        let line = try Run(["file", path], environment: Self.systemData)
        #expect(line.status == 0)
        #expect(line.stdout.hasPrefix("\(path): \(row.answer) ("))
        let word = "; the content is \(row.content) ("
        #expect(line.stdout.contains(word) == contradicts, "\(line.stdout)")

        let json = try Run(["file", "--json", path], environment: Self.systemData)
        let object = try #require((try json.json() as? [[String: Any]])?.first)
        let content = try #require(object["content"] as? [String: Any])
        #expect((object["type"] as? [String: Any])?["identifier"] as? String == row.answer)
        #expect(content["identifier"] as? String == row.content)
        #expect(content["agreement"] as? String == row.agreement)
        #expect((content["reason"] as? String != nil) == contradicts)

        // --content: the content alone.
        #expect(try Run(["file", "--content", "-b", path], environment: Self.systemData).stdout == row.content + "\n")

        // conforms: the name's answer, unless --strict.
        let image = try Run(["conforms", "--file", path, "public.image"], environment: Self.systemData)
        let strict = try Run(["conforms", "--strict", path, "public.image"], environment: Self.systemData)
        let nameSaysImage = ["public.jpeg", "public.png", "public.heic"].contains(row.answer)
        #expect(image.status == (nameSaysImage ? 0 : 1))
        #expect(strict.status == (row.strictlyImage ? 0 : 1))
        let filtered = try Run(["filter", "--strict", "public.image", path], environment: Self.systemData)
        #expect(filtered.stdout == (row.strictlyImage ? path + "\n" : ""))

        // The library gives what the tool printed.
        let registry = try TypeRegistry.load(
            RegistrySources(environment: Run.environment(Self.systemData)), cache: nil
        ).registry
        let typing = FileTyping(registry: registry)
        var options = FileTyping.Options()
        options.checkContent = true
        let result = try typing.type(forPath: path, options: options)
        #expect(result.type.identifier == row.answer)
        #expect(result.contentCheck?.agreement.name == row.agreement)
        #expect(result.contentCheck?.content.type.identifier == row.content)
        #expect(
            typing.strictlyConforms(result, to: try #require(registry.declaredType("public.image")))
                == row.strictlyImage)
        #expect(try typing.type(ofContentAt: path).type.identifier == row.content)
        // Through an open folder, as the inbox types its items.
        let fd = open(folder.path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        let entry = try typing.type(ofEntry: Array(row.name.utf8), inFolder: fd, options: options)
        #expect(entry.type == result.type && entry.contentCheck?.agreement == result.contentCheck?.agreement)
    }

    @Test func onlyARegularFileWithContentIsChecked() throws {
        let folder = TemporaryFolder("uti-content-check")
        FileManager.default.createFile(atPath: folder.path + "/empty.jpg", contents: Data())
        try FileManager.default.createDirectory(atPath: folder.path + "/photos", withIntermediateDirectories: false)
        let run = try Run(
            ["file", "--json", folder.path + "/empty.jpg", folder.path + "/photos", folder.path + "/missing.png"],
            environment: Self.systemData)
        let objects = try #require(try run.json() as? [[String: Any]])
        #expect(objects.count == 3)
        for object in objects { #expect(object["content"] is NSNull) }
    }

    @Test func contentAloneRefusesNoSniffAndReadsStandardInput() throws {
        let both = try Run(["file", "--content", "--no-sniff", "x.png"], environment: Self.systemData)
        #expect(both.status == 2 && both.stderr.contains("--content reads only the content"))
        let filter = try Run(
            ["filter", "--strict", "--no-sniff", "public.image", "x.png"], environment: Self.systemData)
        #expect(filter.status == 2 && filter.stderr.contains("--no-sniff reads nothing"))
        let missing = try Run(["file", "--content", "missing.pdf"], environment: Self.systemData)
        #expect(missing.status == 1 && missing.stdout.isEmpty && missing.stderr.contains("missing.pdf"))
        let stdin = try Run(["file", "--content", "--mime", "-"], stdin: "plain words\n", environment: Self.systemData)
        #expect(stdin.stdout == "text/plain\n")
        let conforms = try Run(
            ["conforms", "--content", "-", "public.text"], stdin: "plain\n", environment: Self.systemData)
        #expect(conforms.status == 0)
    }

    /// A ZIP archive of empty stored entries named `names`.
    static func zip(_ names: [String]) -> [UInt8] {
        func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        var body: [UInt8] = [], directory: [UInt8] = []
        for name in names {
            let offset = body.count, bytes = Array(name.utf8)
            body +=
                [0x50, 0x4B, 3, 4] + le(20, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(0, 4) + le(0, 4) + le(0, 4)
                + le(bytes.count, 2) + le(0, 2) + bytes
            directory +=
                [0x50, 0x4B, 1, 2] + le(20, 2) + le(20, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(0, 4)
                + le(0, 4) + le(0, 4) + le(bytes.count, 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 4)
                + le(offset, 4) + bytes
        }
        return body + directory + [0x50, 0x4B, 5, 6] + le(0, 2) + le(0, 2) + le(names.count, 2)
            + le(names.count, 2) + le(directory.count, 4) + le(body.count, 4) + le(0, 2)
    }

    static let docx = zip(["[Content_Types].xml", "_rels/.rels", "word/document.xml"])
    /// An ISO 9660 image: 32 KiB of system area, then a primary volume descriptor.
    static let iso: [UInt8] =
        Array(repeating: 0, count: 32_768) + [1] + Array("CD001".utf8) + [1]
        + Array(repeating: 0, count: 2041)

    /// A file without a telling name, and the type of its content.
    struct Unnamed: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var identifier: String
        var testDescription: String { name }
    }

    /// Content alone names the format inside a container, through every door.
    @Test(arguments: [
        Unnamed(name: "report", bytes: docx, identifier: "org.openxmlformats.wordprocessingml.document"),
        Unnamed(name: "disc", bytes: iso, identifier: "org.freedesktop.mime.application.x-cd-image"),
        Unnamed(name: "plain", bytes: zip(["a.txt", "b.txt"]), identifier: "public.zip-archive"),
    ])
    func contentAloneNamesTheFormatInside(unnamed: Unnamed) throws {
        let (name, bytes, identifier) = (unnamed.name, unnamed.bytes, unnamed.identifier)
        let folder = TemporaryFolder("uti-content-alone")
        let path = folder.path + "/" + name
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let run = try Run(["file", "--content", "-b", path], environment: Self.systemData)
        #expect(run.status == 0 && run.stdout == identifier + "\n")
        let verdict = try Run(["conforms", "--content", path, identifier], environment: Self.systemData)
        #expect(verdict.status == 0)
        let registry = try TypeRegistry.load(
            RegistrySources(environment: Run.environment(Self.systemData)), cache: nil
        ).registry
        #expect(try FileTyping(registry: registry).type(ofContentAt: path).type.identifier == identifier)
        // Without --content the answer stays GIO's.
        let gio = try Run(["file", "-b", path], environment: Self.systemData)
        #expect(gio.status == 0 && gio.stdout != "" && (name == "plain" || gio.stdout != identifier + "\n"))
    }

    @Test func aNamedArchiveHoldingADocumentAgreesAndStandardInputIsNamedToo() throws {
        let folder = TemporaryFolder("uti-content-alone")
        let path = folder.path + "/bundle.zip"
        FileManager.default.createFile(atPath: path, contents: Data(Self.docx))
        let json = try Run(["file", "--json", path], environment: Self.systemData)
        let object = try #require((try json.json() as? [[String: Any]])?.first)
        let content = try #require(object["content"] as? [String: Any])
        #expect(content["identifier"] as? String == "org.openxmlformats.wordprocessingml.document")
        #expect(content["agreement"] as? String == "agrees")
        let stdin = try ProgramRun(
            Run.binary, ["file", "--content", "--mime", "-"],
            stdin: String(decoding: Self.docx, as: UTF8.self), environment: Run.environment(Self.systemData))
        #expect(stdin.stdout == "application/vnd.openxmlformats-officedocument.wordprocessingml.document\n")
    }
}
