import CLinuxCalls
import CompiledData
import PropertyLists
import SharedMIMEInfo
import SystemBase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Compiled registries kept between runs, so that a lookup reads one
/// checked image instead of parsing its sources.
///
/// A cache file holds the compiled registry and the state of every source
/// it was built from (device, inode, size, modification and change times
/// of each file and folder, or its absence), plus the running executable.
/// It is used only when every source still has that state and the image
/// passes its checks (header, sizes, checksum); otherwise the registry is
/// rebuilt from its sources and the file replaced atomically (written to a
/// temporary file in the same folder, flushed to disk, then renamed over
/// the old one). Each set of search paths has its own file, named by a
/// hash of them. The checksum is computed on the first reads of a file;
/// once it has passed, a `ChecksumRecord` beside the file lets later reads
/// of the same, unchanged file skip it.
public struct RegistryCache: Sendable {
    /// The folder holding the cache files.
    public var directory: String
    /// How a cache file is brought into memory: `.map` reads only the pages
    /// a lookup touches, under a read lease (for short-lived processes:
    /// check `TypeRegistry.isIntact` after making an answer and before using
    /// it), `.copy` reads it whole into memory of its own.
    public var reading: Reading
    /// How a cache file is brought into memory (see `reading`).
    public typealias Reading = ImageView.Reading
    /// How old a file's change time must be before its checksum is recorded.
    var checksumSettleSeconds = ChecksumRecord.settleSeconds

    /// A cache keeping its files in `directory`, brought into memory as
    /// `reading` says (by default copied).
    public init(directory: String, reading: Reading = .copy) {
        self.directory = directory
        self.reading = reading
    }

    /// `UTI_CACHE_DIR` when set (empty turns caching off), else
    /// `$XDG_CACHE_HOME/uti`, else `~/.cache/uti`; nil when caching is off
    /// or there is no home folder.
    public static func environment(_ variables: [String: String] = ProcessEnvironment.current) -> RegistryCache? {
        // A folder named by bytes that are not UTF-8 would be another folder once read as text: no cache.
        let named = [EnvironmentVariable.cacheDirectory, .cacheHome, .home]
        if EnvironmentVariable.undecodablePaths.contains(where: { named.contains($0) && variables[$0.name] != nil }) {
            return nil
        }
        if let dir = EnvironmentVariable.cacheDirectory.value(in: variables) {
            return dir.isEmpty ? nil : RegistryCache(directory: dir)
        }
        return XDGBaseDirectories(variables).cacheHome.map { RegistryCache(directory: $0 + "/uti") }
    }

    /// How the last `load` got its registry.
    public enum Outcome: Sendable, Equatable {
        /// The cache file was current and sound.
        case reused
        /// There was no cache file, or a source changed: rebuilt and saved.
        case rebuilt
        /// The cache file was damaged (the reason): rebuilt and saved.
        case replacedDamaged(String)
        /// Rebuilt, but the cache file could not be written (the reason).
        case notSaved(String)
    }

    /// The suffix of cache files.
    static let imageSuffix = ".img"

    /// The cache file for the cache key `roots` (`RegistrySources.cacheKey`).
    public func path(roots: [String]) -> String { directory + "/" + fileName(roots: roots) }

    /// The name of the cache file for `roots` in `directory`.
    func fileName(roots: [String]) -> String {
        var a = ImageHash.start, b = ImageHash.step(ImageHash.start, 0x55)
        for root in roots {
            for byte in root.utf8 {
                a = ImageHash.step(a, byte)
                b = ImageHash.step(b, byte ^ 0x5A)
            }
            a = ImageHash.step(a, 0)
            b = ImageHash.step(b, 0)
        }
        let digits = Array("0123456789abcdef".utf8)
        var name = Array("registry-".utf8)
        for word in [a, b] {
            for shift in stride(from: 28, through: 0, by: -4) { name.append(digits[Int(word >> UInt32(shift) & 15)]) }
        }
        return String(decoding: name, as: UTF8.self) + Self.imageSuffix
    }

    /// The registry for `sources` (`TypeRegistry.load(_:cache:)`): the
    /// cached one when current, else a new build, which is then saved.
    /// Throws when a source the user named cannot be used.
    ///
    /// The folder is opened once, following a symbolic link only when the
    /// running user or root owns it (`GuardedPath`); every file in it is
    /// then read, written, renamed and removed relative to that descriptor.
    func load(_ sources: RegistrySources) throws(TypeRegistry.LoadError) -> (TypeRegistry, Outcome) {
        let key = sources.cacheKey
        /// The builder of the sources, or the error naming each named source that cannot be used.
        func build() throws(TypeRegistry.LoadError) -> RegistryBuilder {
            let (builder, problems) = sources.builder()
            guard problems.isEmpty else { throw TypeRegistry.LoadError(diagnostics: problems) }
            return builder
        }
        let name = fileName(roots: key)
        let file = directory + "/" + name
        var folder: Int32 = -1
        defer { if folder >= 0 { close(folder) } }
        // A folder others can write, that another user owns, or that another
        // user's link leads to could hold an image made to give wrong answers:
        // it is neither read nor written.
        var unsafe: String?
        do {
            folder = try GuardedPath.openFolder(directory)
            unsafe = Self.folderProblem(folder, directory)
        } catch {
            // A folder that is missing is made when saving; one that cannot be opened is reported then.
            if case .foreignLink = error { unsafe = error.description }
        }
        if let unsafe {
            var builder = try build()
            builder.add(diagnostics: [
                Diagnostic(
                    .note, file: directory, "compiled registry not used (\(unsafe)); sources are read on every run")
            ])
            return (builder.build(), .notSaved(unsafe))
        }
        var damage: String?
        if folder >= 0 {
            do {
                if let registry = try reuse(name, in: folder, key: key) { return (registry, .reused) }
            } catch {
                damage = error.reason
            }
        }
        // State first, then read: a source changing meanwhile makes the next run rebuild.
        let stamps = SourceStamps.encode(key: key, sources.stampPaths())
        var builder = try build()
        var outcome: Outcome = damage.map { .replacedDamaged($0) } ?? .rebuilt
        var temporary: (fd: Int32, name: String)?
        if !builder.skippedSources.isEmpty {
            // Not saved, so that the skipped files are reported on every run.
            outcome = .notSaved("\(builder.skippedSources.count) declaration file(s) could not be read")
        } else {
            do {
                if folder < 0 { folder = try openFolderForSaving() }
                temporary = try openTemporary(for: name, in: folder)
            } catch {
                outcome = .notSaved(error.reason)
                builder.add(diagnostics: [
                    Diagnostic(
                        .note, file: file,
                        "compiled registry not saved (\(error.reason)); sources are read on every run")
                ])
            }
        }
        let bytes = builder.compile(extra: stamps)
        if let temporary {
            do {
                try save(bytes, temporary, to: name, in: folder)
                removeStale(keeping: name, in: folder)
            } catch {
                outcome = .notSaved(error.reason)
            }
        }
        // An image just written is well formed.
        return (
            TypeRegistry(
                image: try! ImageView(bytes, kind: RegistryImage.kind), skippedSources: builder.skippedSources), outcome
        )
    }

    /// The registry in the file `name` of `folder` when it is current for
    /// `key`; nil when there is none or a source changed; an error when
    /// the file is damaged or may not be used.
    private func reuse(_ name: String, in folder: Int32, key: [String]) throws(ImageError) -> TypeRegistry? {
        // The open folder's own name, so that the image and its record are
        // found relative to the descriptor (ImageView and ChecksumRecord take paths).
        let image = "/proc/self/fd/\(folder)/" + name
        let record = ChecksumRecord(image: image)
        var status = stat()
        var checksummed = false
        let view = try ImageView.read(
            path: image, kind: RegistryImage.kind, reading: reading, accept: Self.fileProblem,
            isVerified: { info in
                status = info
                checksummed = !record.matches(info)
                return !checksummed
            })
        guard let view else { return nil }
        let registry = TypeRegistry(image: view)
        guard SourceStamps.areCurrent(registry.extra, key: key) else { return nil }
        if time(nil) - status.st_mtim.tv_sec > 24 * 3600 {
            // Marked as in use (at most once a day) for `removeStale`; the record then no longer matches.
            utimensat(folder, name, nil, AT_SYMLINK_NOFOLLOW)
        } else if checksummed && ChecksumRecord.isSettled(status, settle: checksumSettleSeconds) {
            save(record: ChecksumRecord.encode(status), to: ChecksumRecord(image: name).path, in: folder)
        }
        return registry
    }

    /// Why the open folder `fd` (at `directory`) may not hold compiled
    /// registries: it must be a folder the running user owns that no one
    /// else can write.
    static func folderProblem(_ fd: Int32, _ directory: String) -> String? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return "\(directory): \(SystemError.current.reason)" }
        if info.st_uid != geteuid() { return "\(directory) belongs to user \(info.st_uid), not \(geteuid())" }
        if info.st_mode & 0o022 != 0 { return "\(directory) is writable by other users" }
        return nil
    }

    /// The folder opened as `load` opens it, made (mode 0700, with the
    /// folders above it) when missing.
    private func openFolderForSaving() throws(ImageError) -> Int32 {
        let fd: Int32
        do {
            fd = try GuardedPath.openFolder(directory, creating: 0o700)
        } catch {
            guard case .system(let failure) = error else { throw ImageError(.refused, error.description) }
            let path = failure.path ?? directory
            let code = Self.code(of: failure)
            switch failure.code {
            case ENOTDIR: throw ImageError(code, "\(path) is not a folder", systemError: failure)
            case _ where failure.call == "mkdirat":
                throw ImageError(code, "cannot create \(path): \(failure.reason)", systemError: failure)
            default: throw ImageError(code, "cannot open \(path): \(failure.reason)", systemError: failure)
            }
        }
        if let problem = Self.folderProblem(fd, directory) {
            close(fd)
            throw ImageError(.refused, problem)
        }
        return fd
    }

    /// Why a cache file may not be used: another user owns it, or others can write it.
    static func fileProblem(_ info: stat) -> String? {
        if info.st_uid != geteuid() { return "belongs to user \(info.st_uid), not \(geteuid())" }
        if info.st_mode & 0o022 != 0 { return "is writable by other users" }
        return nil
    }

    /// How many compiled registries a folder keeps, most recently built or
    /// used first, and how long an unused one or a left-over temporary file
    /// stays.
    static let keptImages = 8
    static let staleAge = 30 * 24 * 3600
    static let staleTemporaryAge = 3600

    /// Removes what earlier runs left: registries past the newest
    /// `keptImages` or older than `staleAge` (each source combination, such
    /// as `--no-system` or a declarations file, has its own), checksum
    /// records of registries no longer there, and temporary files of
    /// interrupted saves. Only the regular files of `folder` named
    /// `registry-*.img` and `registry-*.checked` (each with a `.XXXXXX`
    /// suffix while being saved) are touched.
    func removeStale(keeping current: String, in folder: Int32) {
        var images: [(name: String, modified: Int)] = []
        var records: [String] = []
        let now = time(nil)
        for raw in ((try? FolderDescriptor.entries(of: folder)) ?? []).map(\.name.bytes) {
            guard let name = String(validating: raw, as: UTF8.self), name.hasPrefix("registry-") else { continue }
            var info = stat()
            guard name != current, fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.isRegularFile,
                info.st_uid == geteuid()
            else { continue }
            if name.hasSuffix(Self.imageSuffix) {
                images.append((name, info.st_mtim.tv_sec))
            } else if name.hasSuffix(ChecksumRecord.suffix) {
                records.append(name)
            } else if name.contains(Self.imageSuffix + ".") || name.contains(ChecksumRecord.suffix + "."),
                now - info.st_mtim.tv_sec > Self.staleTemporaryAge
            {
                unlinkat(folder, name, 0)
            }
        }
        images.sort { $0.modified > $1.modified }
        for (index, image) in images.enumerated()
        where index >= Self.keptImages - 1 || now - image.modified > Self.staleAge {
            unlinkat(folder, image.name, 0)
        }
        for record in records {
            var info = stat()
            if fstatat(folder, ChecksumRecord.image(ofRecord: record), &info, AT_SYMLINK_NOFOLLOW) != 0
                && errno == ENOENT
            {
                unlinkat(folder, record, 0)
            }
        }
    }

    /// Writes a checksum record; one that cannot be written only means that
    /// the checksum is computed again next time.
    private func save(record bytes: [UInt8], to name: String, in folder: Int32) {
        guard let temporary = try? openTemporary(for: name, in: folder) else { return }
        try? save(bytes, temporary, to: name, in: folder, flush: false)
    }

    /// A new file of the running user (mode 0600) in `folder`, named `name`
    /// with a random `.XXXXXX` suffix, open for writing.
    private func openTemporary(for name: String, in folder: Int32) throws(ImageError) -> (fd: Int32, name: String) {
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        for _ in 0..<100 {
            let temporary = name + "." + String(decoding: (0..<6).map { _ in letters.randomElement()! }, as: UTF8.self)
            let fd = openat(folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 { return (fd, temporary) }
            if errno != EEXIST { break }
        }
        let failure = SystemError.current("openat", path: directory)
        throw ImageError(
            Self.code(of: failure), "cannot create a file in \(directory): \(failure.reason)", systemError: failure)
    }

    /// The code of an image error that `failure` caused.
    private static func code(of failure: SystemError) -> ImageError.Code {
        failure.kind == .permissionDenied ? .permissionDenied : .systemCallFailed
    }

    /// Writes `bytes` to the temporary file and renames it to `name`; with
    /// `flush`, the bytes reach the disk before the name does, so that a
    /// crash cannot leave a file whose name is there and content is not.
    private func save(
        _ bytes: [UInt8], _ temporary: (fd: Int32, name: String), to name: String, in folder: Int32,
        flush: Bool = true
    ) throws(ImageError) {
        var failure: SystemError?
        do {
            // Past `ulimit -f` the write would end the process.
            try checkFileSizeLimit(bytes.count, call: "write", path: temporary.name)
            try writeAll(temporary.fd, bytes)
        } catch { failure = error }
        // Read-only: a process of the user must change the mode (and so the
        // change time the checksum record holds) before it can write it.
        if failure == nil && fchmod(temporary.fd, 0o444) != 0 { failure = .current("fchmod") }
        if flush && failure == nil && fsync(temporary.fd) != 0 { failure = .current("fsync") }
        if close(temporary.fd) != 0 && failure == nil { failure = .current("close") }
        if failure == nil && renameat(folder, temporary.name, folder, name) != 0 {
            failure = .current("renameat", path: name)
        }
        if let failure {
            unlinkat(folder, temporary.name, 0)
            throw ImageError(
                Self.code(of: failure), "cannot write \(directory)/\(name): \(failure.reason)", systemError: failure)
        }
    }
}

/// The state of the files and folders a registry was built from, and the
/// program that built it (a new build of `uti` may read its sources
/// differently): its GNU build ID, or the state of `/proc/self/exe` when
/// it has none.
enum SourceStamps {
    static let executable = "/proc/self/exe"

    /// The build ID, the whole cache key (so that two keys whose hashes
    /// name the same file never take each other's registry), then each
    /// path with its state.
    static func encode(key: [String], _ paths: [String]) -> [UInt8] {
        var w = ByteWriter()
        w.bytes(buildID())
        w.int(key.count)
        for entry in key { w.string(entry) }
        let all = (buildID().isEmpty ? [executable] : []) + paths
        w.int(all.count)
        for path in all {
            w.string(path)
            for value in state(path) { w.int(value) }
        }
        return w.bytes
    }

    static func buildID() -> [UInt8] {
        var id = [UInt8](repeating: 0, count: 64)
        let n = id.withUnsafeMutableBufferPointer { Int(uti_executable_build_id($0.baseAddress!, Int32($0.count))) }
        return Array(id.prefix(n))
    }

    /// Whether the file was built for `key` and every recorded path still
    /// has its recorded state.
    static func areCurrent(_ bytes: UnsafeBufferPointer<UInt8>, key: [String]) -> Bool {
        var r = ByteReader(bytes)
        do {
            guard try r.bytes() == buildID() else { return false }
            guard try r.count() == key.count else { return false }
            for entry in key where try r.string() != entry { return false }
            let count = try r.count()
            for _ in 0..<count {
                let path = try r.string()
                let now = state(path)
                for value in now where try r.int() != value { return false }
            }
            return r.isAtEnd
        } catch {
            return false
        }
    }

    /// errno (0 when found), device, inode, size, modification and change times in nanoseconds.
    static func state(_ path: String) -> [Int] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [Int(errno), 0, 0, 0, 0, 0] }
        return [
            0, Int(truncatingIfNeeded: info.st_dev), Int(truncatingIfNeeded: info.st_ino), Int(info.st_size),
            Int(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int(info.st_mtim.tv_nsec),
            Int(info.st_ctim.tv_sec) &* 1_000_000_000 &+ Int(info.st_ctim.tv_nsec),
        ]
    }
}
