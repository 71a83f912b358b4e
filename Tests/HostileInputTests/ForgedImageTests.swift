import CompiledData
import Foundation
import TestSupport
import Testing

@testable import UniformTypes

/// A compiled registry in the cache that someone who can write the cache
/// folder forged, checksum and `.checked` record made to match: every
/// type's tags name one list of thousands of references to one long run of
/// the pool, and every type is every type's child. Each answer stops at its
/// work budget, so the commands that walk the registry end with a bounded
/// output and within a memory cap, and say the image is damaged. A second
/// forgery also lists every type as every type's supertype and names every
/// type by the long run.
@Suite(.serialized) struct ForgedImageTests {
    /// The pool bytes every forged tag names.
    static let longString = 1 << 20
    /// References to it in the shared tag list, and entries naming that list.
    static let references = 4_000, entries = 1_000

    /// The image with the forged lists appended (the words and pool already
    /// there keep their places, so the stamps and indexes stay valid).
    static func forged(_ bytes: [UInt8], identifiers: Bool) throws -> [UInt8] {
        let view = try ImageView(bytes, kind: RegistryImage.kind)
        let registry = TypeRegistry(image: view)
        var words = (0..<view.wordCount).map { view.word($0) }
        var pool = Array(bytes[(ImageView.headerSize + view.wordCount * 4)...])
        let long = UInt32(pool.count)
        pool += [UInt8](repeating: UInt8(ascii: "x"), count: longString)
        // One list of strings, all the long run.
        let strings = words.count
        words.append(UInt32(references))
        for _ in 0..<references { words += [long, UInt32(longString)] }
        // One tag list whose entries all name that list.
        let tags = words.count
        words.append(UInt32(entries))
        for _ in 0..<entries { words += [long, 16, UInt32(strings)] }
        // Every type is a child of every type.
        let children = words.count
        words.append(UInt32(registry.count))
        words += (0..<UInt32(registry.count)).map { $0 }
        let typesStart = view.int(view.root + RegistryImage.Root.types)
        for slot in 0..<registry.count {
            let record = typesStart + slot * RegistryImage.recordSize
            words[record + RegistryImage.Field.tags] = UInt32(tags)
            words[record + RegistryImage.Field.children] = UInt32(children)
            if identifiers {
                words[record + RegistryImage.Field.ancestors] = UInt32(children)
                words[record + RegistryImage.Field.identifier] = long
                words[record + RegistryImage.Field.identifier + 1] = UInt32(longString)
            }
        }
        var image = Array(bytes[..<ImageView.headerSize])
        func put32(_ value: Int, at offset: Int) {
            for i in 0..<4 { image[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
        }
        put32(words.count, at: ImageHeader.wordCount)
        put32(pool.count, at: ImageHeader.poolCount)
        for w in words { withUnsafeBytes(of: w.littleEndian) { image += $0 } }
        image += pool
        let sum = image.withUnsafeBytes {
            ImageHash.checksum(UnsafeRawBufferPointer(rebasing: $0[ImageView.headerSize...]))
        }
        for i in 0..<8 { image[ImageHeader.checksum + i] = UInt8(truncatingIfNeeded: sum >> (8 * UInt64(i))) }
        return image
    }

    /// Runs the built `uti` with `arguments` under a cap on its address
    /// space (`ulimit -v`), so that a run that would grow past it fails to
    /// allocate instead of taking the machine's memory.
    func capped(_ arguments: [String], environment: [String: String], megabytes: Int) throws -> ProgramRun {
        try ProgramRun(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", "ulimit -v \(megabytes * 1024); exec \"$0\" \"$@\"", BuiltProducts.url("uti").path] + arguments,
            environment: environment)
    }

    @Test(arguments: [false, true])
    func aForgedCacheImageAnswersWithinItsBudget(identifiers: Bool) throws {
        let folder = TemporaryFolder("uti-forged")
        try folder.makeFolder("home")
        try folder.makeFolder("cache")
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": folder.path("home"), "XDG_CACHE_HOME": folder.path("cache"),
            "XDG_CONFIG_HOME": folder.path("home/config"), "XDG_DATA_HOME": folder.path("home/data"),
            "XDG_DATA_DIRS": "/usr/share", "LC_ALL": "C.UTF-8",
        ]
        let megabytes = 768
        // The sound image, compiled into the cache by a first run.
        let first = try capped(
            ["tags", "public.image", "--descendants"], environment: environment, megabytes: megabytes)
        #expect(first.status == 0, "\(first.stderr)")
        let cache = folder.path("cache/uti")
        let names = try FileManager.default.contentsOfDirectory(atPath: cache).filter { $0.hasSuffix(".img") }
        let name = try #require(names.first, "no compiled image in \(cache)")
        let path = cache + "/" + name
        let sound = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        // The forged image, put in its place with a record that says it was verified.
        let image = try Self.forged(sound, identifiers: identifiers)
        try Data(image).write(to: URL(fileURLWithPath: path + ".new"))
        #expect(rename(path + ".new", path) == 0)
        var info = stat()
        #expect(stat(path, &info) == 0)
        let record = ChecksumRecord(image: path)
        try Data(ChecksumRecord.encode(info)).write(to: URL(fileURLWithPath: record.path))
        #expect(record.matches(info))

        let budget = WorkBudget.bytes(forImageOf: image.count)
        for arguments in [
            ["tags", "public.image", "--descendants"],
            ["tags", "public.item", "--descendants", "--class", "extension"],
            ["descendants", "public.item"], ["graph", "public.data"], ["jpg", "--json"], ["supertypes", "public.jpeg"],
        ] {
            let run = try capped(arguments, environment: environment, megabytes: megabytes)
            // Ended on its own, printing no more than the few answers it asks
            // (a type's identifier, tags, parents and supertypes) can hold, and
            // a word that the image is damaged when an answer was cut.
            #expect([0, 1, 2].contains(run.status), "\(arguments): status \(run.status), \(run.stderr.prefix(500))")
            #expect(!run.stderr.contains("alloc"), "\(arguments): \(run.stderr.prefix(500))")
            #expect(run.stdout.utf8.count <= 4 * budget, "\(arguments): \(run.stdout.utf8.count) bytes printed")
            if run.status == 2 {
                #expect(run.stderr.contains("is damaged"), "\(arguments): \(run.stderr.prefix(500))")
            }
        }
        // The walk over every type's tags is the one the forgery aims at: it is cut, and says so.
        let tags = try capped(["tags", "public.item", "--descendants"], environment: environment, megabytes: megabytes)
        #expect(tags.status == 2)
        #expect(tags.stderr.contains("the compiled registry in ") && tags.stderr.contains("is damaged"))
    }
}
