import Foundation
import TestSupport
import Testing

@testable import UniformTypes

/// The compiled registry on disk: reused while its sources are unchanged,
/// rebuilt when one changes, replaced when damaged, and never required.
@Suite struct RegistryCacheTests {
    /// A temporary tree: a MIME folder copied from the fixture, a mime.types
    /// file, a declarations folder and a cache folder.
    struct Tree {
        let folder = TemporaryFolder("uti-cache")
        var root: String { folder.path }
        var cache: RegistryCache { RegistryCache(directory: root + "/cache") }
        var environment: [String: String] {
            [
                "HOME": root + "/home", "XDG_DATA_HOME": root + "/data-home", "XDG_DATA_DIRS": root + "/share",
                "UTI_MIME_TYPES": root + "/mime.types", "UTI_DECLARATIONS": root + "/types",
            ]
        }

        init() throws {
            let fm = FileManager.default
            try fm.createDirectory(atPath: root + "/share", withIntermediateDirectories: true)
            try fm.copyItem(atPath: Fixtures.path("mime"), toPath: root + "/share/mime")
            try fm.createDirectory(atPath: root + "/types", withIntermediateDirectories: true)
            try "text/x-cache-test  cachetest\n".write(toFile: root + "/mime.types", atomically: false, encoding: .utf8)
        }

        func load() throws -> (TypeRegistry, RegistryCache.Outcome) {
            try cache.load(RegistrySources(environment: environment))
        }

        /// Loads with a cache that records a verified checksum at once
        /// (rather than after the file's change time is a few seconds old).
        func load(
            reading: RegistryCache.Reading, settleSeconds: Int = -1
        ) throws -> (TypeRegistry, RegistryCache.Outcome) {
            var cache = RegistryCache(directory: root + "/cache", reading: reading)
            cache.checksumSettleSeconds = settleSeconds
            return try cache.load(RegistrySources(environment: environment))
        }

        var imagePath: String { cache.path(roots: RegistrySources(environment: environment).cacheKey) }
        var recordPath: String { ChecksumRecord(image: imagePath).path }

        /// Flips one byte in the middle of the image, in place (the file is
        /// read-only: its mode is changed first, as any writer must).
        func damageImage() throws {
            #expect(chmod(imagePath, 0o644) == 0)
            let fd = open(imagePath, O_RDWR)
            defer { close(fd) }
            let middle = lseek(fd, 0, SEEK_END) / 2
            var byte: UInt8 = 0
            #expect(pread(fd, &byte, 1, middle) == 1)
            byte ^= 0x40
            #expect(pwrite(fd, &byte, 1, middle) == 1)
        }

        func write(_ path: String, _ text: String) throws {
            try text.write(toFile: root + "/" + path, atomically: true, encoding: .utf8)
        }

        func remove() { try? FileManager.default.removeItem(atPath: root) }
    }

    static func declaration(_ identifier: String, _ ext: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>UTExportedTypeDeclarations</key><array><dict>
        <key>UTTypeIdentifier</key><string>\(identifier)</string>
        <key>UTTypeConformsTo</key><array><string>public.data</string></array>
        <key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><array><string>\(ext)</string></array></dict>
        </dict></array></dict></plist>
        """
    }

    @Test func reusedUntilASourceChanges() throws {
        let tree = try Tree()
        defer { tree.remove() }
        let (first, built) = try tree.load()
        #expect(built == .rebuilt)
        #expect(first.type(filenameExtension: "cachetest")?.identifier == "org.freedesktop.mime.text.x-cache-test")
        let fresh = try TypeRegistry.load(RegistrySources(environment: tree.environment), cache: nil).registry
        #expect(first.count == fresh.count)
        #expect(first.diagnostics == fresh.diagnostics)
        #expect(
            first.type(filenameExtension: "ujpeg")?.identifier == fresh.type(filenameExtension: "ujpeg")?.identifier)

        let (second, reused) = try tree.load()
        #expect(reused == .reused)
        #expect(second.count == first.count)

        // A new declaration file changes its folder: rebuilt, and the type is there.
        try tree.write("types/new.plist", Self.declaration("com.example.cached", "cachednew"))
        let (third, rebuilt) = try tree.load()
        #expect(rebuilt == .rebuilt)
        #expect(third.type(filenameExtension: "cachednew")?.identifier == "com.example.cached")

        // A changed mime.types file (same size, new content) is noticed too.
        try tree.write("mime.types", "text/x-cache-test  cachetwo\n")
        let (fourth, again) = try tree.load()
        #expect(again == .rebuilt)
        #expect(fourth.type(filenameExtension: "cachetwo")?.identifier == "org.freedesktop.mime.text.x-cache-test")

        // A MIME folder that appears where there was none is a change.
        try FileManager.default.createDirectory(
            atPath: tree.root + "/data-home/mime", withIntermediateDirectories: true)
        #expect(try tree.load().1 == .rebuilt)
        #expect(try tree.load().1 == .reused)
    }

    @Test func damagedFilesAreRebuiltAndReplaced() throws {
        let tree = try Tree()
        defer { tree.remove() }
        _ = try tree.load()
        let file = tree.cache.path(roots: RegistrySources(environment: tree.environment).cacheKey)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        bytes[bytes.count / 2] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let (registry, outcome) = try tree.load()
        #expect(outcome == .replacedDamaged("checksum mismatch (damaged)"))
        #expect(registry.type(filenameExtension: "cachetest") != nil)
        #expect(try tree.load().1 == .reused)

        try Data(bytes.prefix(100)).write(to: URL(fileURLWithPath: file))
        guard case .replacedDamaged = try tree.load().1 else {
            Issue.record("a truncated file was used")
            return
        }
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: file))
        #expect(try tree.load().1 == .replacedDamaged("size 12 is out of range"))
    }

    @Test func aFIFOInPlaceOfTheCacheIsReplacedNotWaitedOn() throws {
        let tree = try Tree()
        defer { tree.remove() }
        let file = tree.cache.path(roots: RegistrySources(environment: tree.environment).cacheKey)
        try FileManager.default.createDirectory(atPath: tree.root + "/cache", withIntermediateDirectories: true)
        #expect(mkfifo(file, 0o600) == 0)
        let (registry, outcome) = try tree.load()
        #expect(outcome == .replacedDamaged("not a regular file"))
        #expect(registry.type(filenameExtension: "cachetest") != nil)
        #expect(try tree.load().1 == .reused)
    }

    /// An image read into memory before its file was truncated keeps answering.
    @Test func aCacheTruncatedWhileInUseNeverKillsTheReader() throws {
        let tree = try Tree()
        defer { tree.remove() }
        _ = try tree.load()
        let (registry, outcome) = try tree.load()
        #expect(outcome == .reused)
        let file = tree.cache.path(roots: RegistrySources(environment: tree.environment).cacheKey)
        #expect(truncate(file, 0) == 0)
        var answered = 0
        for type in registry.allTypes
        where !registry.descendants(of: type).isEmpty || type.tags(.filenameExtension).count > 0 {
            answered += 1
        }
        #expect(answered > 500)
        #expect(registry.type(filenameExtension: "cachetest") != nil)
        guard case .replacedDamaged = try tree.load().1 else {
            Issue.record("a truncated file was used")
            return
        }
    }

    /// A mapped image is held under a read lease: a process asking to write
    /// or cut the file while it is in use makes `isIntact` false (and waits
    /// until the reader is done), so no answer read since is trusted.
    @Test func aMappedCacheAskedForWritingWhileInUseSaysSo() throws {
        let tree = try Tree()
        defer { tree.remove() }
        _ = try tree.load()
        let (registry, outcome) = try tree.load(reading: .map)
        #expect(outcome == .reused)
        #expect(registry.type(filenameExtension: "cachetest") != nil)
        #expect(registry.isIntact)
        // A writer that will not wait: the kernel refuses its open and starts breaking the lease.
        let writer = open(tree.imagePath, O_WRONLY | O_NONBLOCK)
        #expect(writer < 0 && errno == EWOULDBLOCK)
        #expect(!registry.isIntact)
    }

    /// A cache file a process has open for writing (here through a shared
    /// writable mapping, which changes bytes without a new change time) is
    /// not mapped: it is read and its checksum computed, so a byte changed in
    /// place is caught even though its checksum record still matches.
    @Test func aCacheFileOpenForWritingIsCheckedWhole() throws {
        let tree = try Tree()
        defer { tree.remove() }
        _ = try tree.load()
        #expect(try tree.load(reading: .map).1 == .reused)  // verified: the record is written
        #expect(access(tree.recordPath, F_OK) == 0)
        var before = stat()
        #expect(stat(tree.imagePath, &before) == 0)
        #expect(before.st_mode & 0o777 == 0o444)
        #expect(chmod(tree.imagePath, 0o644) == 0)
        let fd = open(tree.imagePath, O_RDWR)
        defer { close(fd) }
        let size = Int(lseek(fd, 0, SEEK_END))
        let mapping = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)!
        defer { munmap(mapping, size) }
        let bytes = mapping.assumingMemoryBound(to: UInt8.self)
        bytes[size / 2] ^= 0x40
        // A record that matches the file as it is now, as one written after
        // the change time last moved would (a shared mapping's writes need
        // not move it).
        var now = stat()
        #expect(stat(tree.imagePath, &now) == 0)
        unlink(tree.recordPath)
        #expect(
            FileManager.default.createFile(
                atPath: tree.recordPath, contents: Data(ChecksumRecord.encode(now)),
                attributes: [.posixPermissions: 0o600]))
        #expect(ChecksumRecord(image: tree.imagePath).matches(now))
        guard case .replacedDamaged = try tree.load(reading: .map).1 else {
            Issue.record("a file being written through a mapping was used unchecked")
            return
        }
    }

    /// The checksum is skipped only for the very file that passed it: any
    /// write gives the file a new change time, so a damaged file whose old
    /// record is still there is caught, and a record is never trusted more
    /// than its own file (owner, mode, size).
    @Test func aVerifiedChecksumIsRecordedForThatFileOnly() throws {
        let tree = try Tree()
        defer { tree.remove() }
        for reading in [RegistryCache.Reading.copy, .map] {
            #expect(try tree.load(reading: reading).1 == .rebuilt)
            // Written on the first read that computes the checksum, not when saved.
            #expect(access(tree.recordPath, F_OK) != 0)
            #expect(try tree.load(reading: reading).1 == .reused)
            #expect(access(tree.recordPath, F_OK) == 0)
            #expect(try tree.load(reading: reading).1 == .reused)

            try tree.damageImage()
            #expect(try tree.load(reading: reading).1 == .replacedDamaged("checksum mismatch (damaged)"))

            // A record that does match the damaged file is what lets a read skip the checksum.
            _ = try tree.load(reading: reading)
            try tree.damageImage()
            var info = stat()
            #expect(stat(tree.imagePath, &info) == 0)
            try Data(ChecksumRecord.encode(info)).write(to: URL(fileURLWithPath: tree.recordPath))
            #expect(chmod(tree.recordPath, 0o644) == 0)
            #expect(try tree.load(reading: reading).1 == .reused)
            #expect(chmod(tree.recordPath, 0o666) == 0)
            #expect(try tree.load(reading: reading).1 == .replacedDamaged("checksum mismatch (damaged)"))
            try FileManager.default.removeItem(atPath: tree.imagePath)
            try FileManager.default.removeItem(atPath: tree.recordPath)
        }
        _ = try tree.load()
        // A file changed within the settle time is not recorded yet (a day
        // here, so that no pause of a busy machine can make it old enough).
        #expect(try tree.load(reading: .copy, settleSeconds: 86_400).1 == .reused)
        #expect(access(tree.recordPath, F_OK) != 0)
    }

    @Test func aFolderOthersCanWriteIsNeitherReadNorWritten() throws {
        let tree = try Tree()
        defer { tree.remove() }
        _ = try tree.load()
        #expect(chmod(tree.root + "/cache", 0o1777) == 0)
        let (registry, outcome) = try tree.load()
        #expect(outcome == .notSaved("\(tree.root)/cache is writable by other users"))
        #expect(registry.type(filenameExtension: "cachetest") != nil)
        #expect(registry.diagnostics.contains { $0.message.hasPrefix("compiled registry not used") })
        #expect(chmod(tree.root + "/cache", 0o700) == 0)
        #expect(try tree.load().1 == .reused)
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to give the file to another user"))
    func aCacheFileOfAnotherUserIsReplaced() throws {
        let tree = try Tree()
        defer { tree.remove() }
        _ = try tree.load()
        let file = tree.cache.path(roots: RegistrySources(environment: tree.environment).cacheKey)
        #expect(chown(file, 65534, 65534) == 0)
        #expect(try tree.load().1 == .replacedDamaged("belongs to user 65534, not 0"))
        var info = stat()
        #expect(stat(file, &info) == 0 && info.st_uid == 0)
        #expect(chmod(file, 0o666) == 0)
        #expect(try tree.load().1 == .replacedDamaged("is writable by other users"))
    }

    @Test func oldImagesAndLeftOverTemporariesAreRemoved() throws {
        let tree = try Tree()
        defer { tree.remove() }
        let dir = tree.root + "/cache"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let now = time(nil)
        func plant(_ name: String, age: Int) {
            FileManager.default.createFile(atPath: dir + "/" + name, contents: Data("x".utf8))
            var times = [timespec(tv_sec: now - age, tv_nsec: 0), timespec(tv_sec: now - age, tv_nsec: 0)]
            utimensat(AT_FDCWD, dir + "/" + name, &times, 0)
        }
        for i in 0..<10 { plant("registry-old\(i).img", age: 3600 * (i + 1)) }
        plant("registry-ancient.img", age: 40 * 24 * 3600)
        plant("registry-x.img.AbCdEf", age: 2 * 3600)
        plant("registry-y.img.GhIjKl", age: 60)
        plant("notes.txt", age: 40 * 24 * 3600)
        plant("registry-old0.checked", age: 3600)
        plant("registry-old9.checked", age: 3600)
        plant("registry-gone.checked", age: 60)
        plant("registry-z.checked.MnOpQr", age: 2 * 3600)
        _ = try tree.load()
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: dir))
        let current = URL(
            fileURLWithPath: tree.cache.path(roots: RegistrySources(environment: tree.environment).cacheKey)
        ).lastPathComponent
        // The new image and the seven most recent others with their checksum
        // records; a recent temporary (a save in progress elsewhere) and
        // files of other names stay.
        #expect(
            left
                == Set(
                    [current] + (0..<7).map { "registry-old\($0).img" }
                        + ["registry-old0.checked", "registry-y.img.GhIjKl", "notes.txt"]))
    }

    @Test func anUnwritableCacheOnlyCostsTime() throws {
        let tree = try Tree()
        defer { tree.remove() }
        try tree.write("cache", "a file where the folder should be")
        let (registry, outcome) = try tree.load()
        guard case .notSaved(let reason) = outcome else {
            Issue.record("saved: \(outcome)")
            return
        }
        #expect(reason.contains("is not a folder"))
        #expect(registry.type(filenameExtension: "cachetest") != nil)
        #expect(registry.diagnostics.contains { $0.message.hasPrefix("compiled registry not saved") })
    }

    /// A registry that left a broken declaration file out is not saved, so
    /// that every run reports the file until it is mended; then it is.
    @Test func registriesThatSkippedAFileAreNotSaved() throws {
        let tree = try Tree()
        defer { tree.remove() }
        try FileManager.default.createDirectory(
            atPath: tree.root + "/data-home/uti/types", withIntermediateDirectories: true)
        try tree.write("data-home/uti/types/broken.plist", "<plist><dict>")
        for _ in 0..<2 {
            let (registry, outcome) = try tree.load()
            #expect(outcome == .notSaved("1 declaration file(s) could not be read"))
            #expect(registry.skippedSources.count == 1)
            #expect(registry.type(filenameExtension: "cachetest") != nil)
        }
        #expect(
            (try? FileManager.default.contentsOfDirectory(atPath: tree.root + "/cache"))?.filter {
                $0.hasSuffix(".img")
            } ?? [] == [])
        try FileManager.default.removeItem(atPath: tree.root + "/data-home/uti/types/broken.plist")
        #expect(try tree.load().1 == .rebuilt)
        #expect(try tree.load().1 == .reused)
    }

    @Test func namedSourcesThatFailAreNeverCached() throws {
        let tree = try Tree()
        defer { tree.remove() }
        let sources = RegistrySources(extraPaths: [tree.root + "/missing.plist"], environment: tree.environment)
        #expect(throws: TypeRegistry.LoadError.self) { try tree.cache.load(sources) }
        #expect(
            (try? FileManager.default.contentsOfDirectory(atPath: tree.root + "/cache"))?.filter {
                $0.hasSuffix(".img")
            } ?? [] == [])
    }
}
