import CLinuxCalls
import SystemBase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why an image cannot be used.
public struct ImageError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure it is, for a caller to switch on.
    public enum Code: Sendable, Hashable {
        /// The image file may not be opened by this process.
        case permissionDenied
        /// The path names a folder, a FIFO, a socket, a device or a link.
        case notRegularFile
        /// The file is larger than the limit the reader was given.
        case tooLarge
        /// The reader's `accept` refused the file by its status (owner, mode).
        case refused
        /// The file shrank while it was read.
        case changedWhileRead
        /// No memory could be had for the image.
        case outOfMemory
        /// Another system call failed: `systemError` says which, and why.
        case systemCallFailed
        /// The file is not a compiled image (its first bytes are not the magic).
        case notAnImage
        /// A compiled image of another container format version.
        case unsupportedVersion
        /// A compiled image of another kind or layout than the one asked for.
        case wrongKind
        /// A compiled image that is damaged: sizes, checksum or contents wrong.
        case damaged
        /// An error made with `init(_:)`, which gives no code.
        case other
    }

    /// What is wrong.
    public var reason: String
    /// What kind of failure it is.
    public var code: Code
    /// The system call that failed, with its path and errno, when one did.
    public var systemError: SystemError?

    /// An error of code `other`, saying `reason`.
    public init(_ reason: String) { self.init(.other, reason) }

    /// An error of `code`, saying `reason`; `systemError` when a system call failed.
    public init(_ code: Code, _ reason: String, systemError: SystemError? = nil) {
        self.code = code
        self.reason = reason
        self.systemError = systemError
    }

    /// The reason.
    public var description: String { reason }
}

extension ImageError {
    /// The failure of `call` (on `path`) with the current errno: `what`
    /// and the C library's text, as `cannot open: Permission denied`.
    static func current(_ what: String, _ call: String, path: String? = nil) -> ImageError {
        let error = SystemError.current(call, path: path)
        let code: Code =
            switch error.kind {
            case .permissionDenied: .permissionDenied
            case .symbolicLinkLoop: .notRegularFile
            default: .systemCallFailed
            }
        return ImageError(code, "\(what): \(error.reason)", systemError: error)
    }
}

/// Memory an image lives in, freed with the last view of it.
final class ImageStorage: @unchecked Sendable {
    let base: UnsafeRawPointer
    let count: Int
    /// Where `base` comes from, which says how it is freed.
    private let origin: Origin

    private enum Origin {
        /// `UnsafeMutableRawPointer.allocate`.
        case allocated
        /// Anonymous memory from `mmap`, of this length.
        case anonymous(Int)
        /// The file itself, from `uti_map_guarded`, and the descriptor holding its lease.
        case file(lease: Int32)
    }

    init(copying bytes: UnsafeRawBufferPointer) {
        count = bytes.count
        let memory = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        if let source = bytes.baseAddress { memory.copyMemory(from: source, byteCount: count) }
        base = UnsafeRawPointer(memory)
        origin = .allocated
    }

    /// Maps `count` bytes of `fd` under a read lease, guarded. No process
    /// has the file open for writing when the lease is granted, and while it
    /// is held any process that opens the file for writing or truncates it
    /// must wait (for the kernel's lease-break-time at most): what the
    /// mapping reads is the file as it was, until `isIntact` turns false. A
    /// file cut short anyway reads as zeros past its new end rather than
    /// killing the process with SIGBUS. Nil when the file cannot be mapped
    /// or no lease can be had (a writer has it open, the file system has no
    /// leases): then it must be read and checked whole.
    init?(mapping fd: Int32, count: Int) {
        let leased = dup(fd)
        guard leased >= 0 else { return nil }
        // The lease lasts as long as the mapping, so its break signal is ignored for the process's life.
        uti_ignore_lease_breaks()
        guard uti_has_writer(leased) == 0, let memory = uti_map_guarded(leased, count) else {
            close(leased)
            return nil
        }
        base = UnsafeRawPointer(memory)
        self.count = count
        origin = .file(lease: leased)
    }

    /// False once the mapped file's lease was broken (a process asked to
    /// write it, or the lease-break-time passed) or the file was cut short;
    /// answers read since may not be the file's.
    var isIntact: Bool {
        guard case .file(let lease) = origin else { return true }
        return uti_mapping_cut_short(base) == 0 && uti_lease_held(lease) == 1
    }

    /// Reads `count` bytes of `fd` from its start into memory of its own.
    /// Not a mapping: a file that another process truncates meanwhile gives
    /// a short read (an error) here, where a mapping would kill the process
    /// with SIGBUS on the next touch of a page past the new end.
    init(reading fd: Int32, count: Int) throws(ImageError) {
        let (memory, length) = try Self.allocate(count)
        var done = 0
        while done < count {
            let n = retryingInterrupts { pread(fd, memory + done, count - done, off_t(done)) }
            if n <= 0 {
                let error = n < 0 ? ImageError.current("cannot read", "pread") : nil
                munmap(memory, length)
                throw error ?? ImageError(.changedWhileRead, "cannot read: the file shrank while it was read")
            }
            done += n
        }
        base = UnsafeRawPointer(memory)
        self.count = count
        origin = .anonymous(length)
    }

    /// Images of at least this size go into transparent huge pages.
    static let hugePage = 2 << 20

    /// Anonymous memory for `count` bytes, and its length. An image of a
    /// megabyte or more (a full registry) gets memory aligned to and sized
    /// in 2 MiB huge pages where the kernel allows them (`MADV_HUGEPAGE`):
    /// one fault and one clear per 2 MiB instead of one per 4 KiB page,
    /// which is most of what reading the image costs. Smaller ones are
    /// populated in one call rather than faulted in page by page.
    private static func allocate(_ count: Int) throws(ImageError) -> (UnsafeMutableRawPointer, Int) {
        func failure() -> ImageError {
            let error = SystemError.current("mmap")
            return ImageError(.outOfMemory, "cannot allocate \(count) bytes: \(error.reason)", systemError: error)
        }
        guard count >= 1 << 20 else {
            let length = max(count, 1)
            guard
                let memory = mmap(
                    nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0),
                memory != MAP_FAILED
            else { throw failure() }
            return (memory, length)
        }
        let length = (count + hugePage - 1) / hugePage * hugePage
        // One huge page more than needed, so that an aligned run fits; the rest is given back.
        guard let raw = mmap(nil, length + hugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            raw != MAP_FAILED
        else { throw failure() }
        let start = (Int(bitPattern: raw) + hugePage - 1) & ~(hugePage - 1)
        let head = start - Int(bitPattern: raw)
        if head > 0 { munmap(raw, head) }
        let tail = hugePage - head
        if tail > 0 { munmap(UnsafeMutableRawPointer(bitPattern: start + length), tail) }
        let memory = UnsafeMutableRawPointer(bitPattern: start)!
        _ = madvise(memory, length, MADV_HUGEPAGE)
        // Populated in one call, in huge pages where the kernel gives them, in small ones
        // where not; a kernel without MADV_POPULATE_WRITE (before 5.14) faults them in on read.
        // Only the pages the image fills: where huge pages are refused, the rest stays untouched.
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        _ = madvise(memory, (count + pageSize - 1) / pageSize * pageSize, MADV_POPULATE_WRITE)
        return (memory, length)
    }

    deinit {
        switch origin {
        case .allocated: base.deallocate()
        case .anonymous(let length): munmap(UnsafeMutableRawPointer(mutating: base), length)
        case .file(let lease):
            uti_unmap_guarded(UnsafeMutableRawPointer(mutating: base), count)
            close(lease)
        }
    }
}

/// A compiled image read in place: words and pool bytes, checked when
/// opened (header, sizes, checksum) and bounds-checked on every read, so
/// that a damaged image gives an error or, at worst, empty answers, never a
/// crash.
public struct ImageView: @unchecked Sendable {
    static let magic: [UInt8] = Array("UTIIMAGE".utf8)
    /// The container format: the header and the word and pool sections.
    static let formatVersion: UInt32 = 2
    public static let headerSize = ImageHeader.size

    private let storage: ImageStorage
    @usableFromInline let words: UnsafePointer<UInt32>
    public let wordCount: Int
    @usableFromInline let pool: UnsafePointer<UInt8>
    public let poolCount: Int
    /// What the image holds, and in which layout.
    public let kind: ImageKind
    /// The word index the image's reader starts from.
    public let root: Int

    /// Checks and copies `bytes`.
    public init(_ bytes: [UInt8], kind expectedKind: ImageKind) throws(ImageError) {
        let storage = bytes.withUnsafeBytes { ImageStorage(copying: $0) }
        try self.init(storage: storage, kind: expectedKind)
    }

    /// How `read` brings a file into memory.
    public enum Reading: Sendable {
        /// Read into memory of its own: the view keeps its content whatever
        /// later happens to the file.
        case copy
        /// Mapped under a read lease: only the pages used are read, and a
        /// process that opens the file for writing waits until the view is
        /// gone (or the kernel's lease-break-time, 45 s by default, passes;
        /// then `isIntact` turns false, as it does when the file is cut
        /// short anyway). Where no lease can be had, the file is read and
        /// checked whole as with `copy`. For short-lived readers that check
        /// `isIntact` before they use an answer, since it changes the whole
        /// process: the lease-break signal, SIGIO, is ignored from then on
        /// (unless the process set an action for it), and a SIGBUS handler
        /// is installed that turns a mapped page cut short into zeros
        /// (passing any other SIGBUS to the action set before).
        case map
    }

    /// Reads and checks the image in `path`; nil when there is no such file.
    /// Only a regular file is read: the open never waits (`O_NONBLOCK`, so a
    /// FIFO put in its place cannot hang the reader) and never follows a
    /// symbolic link. `accept` may refuse the file by its status (its owner
    /// or mode) before anything is read. The checksum is computed unless
    /// `isVerified` says, from the file's status, that this very file
    /// already passed it.
    public static func read(
        path: String, kind: ImageKind, limit: Int = 256 << 20, reading: Reading = .copy,
        accept: (stat) -> String? = { _ in nil },
        isVerified: (stat) -> Bool = { _ in false }
    ) throws(ImageError) -> ImageView? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw ImageError.current("cannot open", "open", path: path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw ImageError(.systemCallFailed, "not a regular file", systemError: .current("fstat", path: path))
        }
        guard info.isRegularFile else { throw ImageError(.notRegularFile, "not a regular file") }
        if let refusal = accept(info) { throw ImageError(.refused, refusal) }
        let size = Int(info.st_size)
        guard size >= headerSize else { throw ImageError(.damaged, "size \(size) is out of range") }
        guard size <= limit else { throw ImageError(.tooLarge, "size \(size) is out of range") }
        let storage: ImageStorage
        var verified = isVerified(info)
        if reading == .map, let mapped = ImageStorage(mapping: fd, count: size) {
            storage = mapped
        } else {
            // Not mapped under a lease: what a writer may be changing is checked whole.
            if reading == .map { verified = false }
            storage = try ImageStorage(reading: fd, count: size)
        }
        return try ImageView(storage: storage, kind: kind, checksum: !verified)
    }

    /// False once the file this view maps was asked for writing or cut
    /// short while in use (`Reading.map`); its answers since may not be the
    /// file's.
    public var isIntact: Bool { storage.isIntact }

    private init(storage: ImageStorage, kind expectedKind: ImageKind, checksum: Bool = true) throws(ImageError) {
        let raw = UnsafeRawBufferPointer(start: storage.base, count: storage.count)
        guard raw.count >= Self.headerSize, raw.prefix(8).elementsEqual(Self.magic) else {
            throw ImageError(.notAnImage, "not a compiled image")
        }
        func word(_ offset: Int) -> UInt32 {
            UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        }
        let format = word(ImageHeader.formatVersion)
        guard format == Self.formatVersion else {
            throw ImageError(.unsupportedVersion, "image format \(format), expected \(Self.formatVersion)")
        }
        let kind = ImageKind(tag: word(ImageHeader.kind), layoutVersion: word(ImageHeader.layoutVersion))
        guard kind == expectedKind else {
            throw ImageError(.wrongKind, "image holds \(kind), expected \(expectedKind)")
        }
        let root = Int(word(ImageHeader.root)), wordCount = Int(word(ImageHeader.wordCount))
        let poolCount = Int(word(ImageHeader.poolCount))
        guard Self.headerSize + wordCount * 4 + poolCount == raw.count else {
            throw ImageError(.damaged, "sizes in the header do not match the file (\(raw.count) bytes)")
        }
        let stored = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: ImageHeader.checksum, as: UInt64.self))
        guard !checksum || ImageHash.checksum(UnsafeRawBufferPointer(rebasing: raw[Self.headerSize...])) == stored
        else {
            throw ImageError(.damaged, "checksum mismatch (damaged)")
        }
        guard root < wordCount else { throw ImageError(.damaged, "root word out of range") }
        self.storage = storage
        self.kind = expectedKind
        self.root = root
        self.wordCount = wordCount
        self.poolCount = poolCount
        self.words = UnsafePointer((storage.base + Self.headerSize).assumingMemoryBound(to: UInt32.self))
        self.pool = UnsafePointer((storage.base + Self.headerSize + wordCount * 4).assumingMemoryBound(to: UInt8.self))
    }

    /// The word at `index`; 0 outside the image.
    @inlinable @inline(__always)
    public func word(_ index: Int) -> UInt32 {
        index >= 0 && index < wordCount ? words[index] : 0
    }

    @inlinable @inline(__always)
    public func int(_ index: Int) -> Int { Int(word(index)) }

    /// The count stored at `index`, cut to how many entries of `entryWords`
    /// words fit in the image from word `start` on: a damaged count gives
    /// fewer entries, never a walk past the image.
    @inlinable @inline(__always)
    public func count(at index: Int, entryWords: Int, from start: Int) -> Int {
        guard start >= 0, start <= wordCount else { return 0 }
        return min(int(index), (wordCount - start) / entryWords)
    }

    /// The list of words at `index`: its length word, cut to what the
    /// image holds and to `limit`, then that many words.
    @inlinable @inline(__always)
    public func wordList(at index: Int, limit: Int) -> UnsafeBufferPointer<UInt32> {
        let n = min(count(at: index, entryWords: 1, from: index + 1), limit)
        return UnsafeBufferPointer(start: words + (n > 0 ? index + 1 : 0), count: max(n, 0))
    }

    /// The pool bytes of the reference in words `index`, `index + 1`; empty
    /// when absent or out of range.
    @inline(__always)
    public func bytes(at index: Int) -> UnsafeBufferPointer<UInt8> {
        bytes(offset: word(index), count: word(index + 1))
    }

    @inlinable @inline(__always)
    func bytes(offset: UInt32, count: UInt32) -> UnsafeBufferPointer<UInt8> {
        let o = Int(offset), n = Int(count)
        guard offset != ImageWriter.none, o <= poolCount, n <= poolCount - o else {
            return UnsafeBufferPointer(start: pool, count: 0)
        }
        return UnsafeBufferPointer(start: pool + o, count: n)
    }

    /// The string referenced by words `index`, `index + 1`; nil when absent.
    public func string(at index: Int) -> String? {
        if word(index) == ImageWriter.none { return nil }
        return String(decoding: bytes(at: index), as: UTF8.self)
    }

    /// Calls `body` with each key and value of the hash table at `table`,
    /// in bucket order; nothing when the table does not lie inside the image.
    public func forEachEntry(table: Int, _ body: (UnsafeBufferPointer<UInt8>, UInt32) -> Void) {
        typealias Bucket = ImageWriter.Bucket
        let mask = Int(word(table))
        let base = table + 1
        guard base >= 1, (mask + 1) * Bucket.size <= wordCount - base else { return }
        for b in 0...mask {
            let slot = base + b * Bucket.size
            let offset = word(slot + Bucket.keyOffset)
            if offset == ImageWriter.none { continue }
            body(bytes(offset: offset, count: word(slot + Bucket.keyLength)), word(slot + Bucket.value))
        }
    }

    /// Whether two runs of bytes of the same length are equal, compared
    /// eight bytes at a time (keys are short: a call to `memcmp` costs more).
    @inlinable @inline(__always)
    static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = a.count
        guard n > 0, let x = a.baseAddress, let y = b.baseAddress else { return true }
        let p = UnsafeRawPointer(x), q = UnsafeRawPointer(y)
        var i = 0
        while n - i >= 8 {
            if p.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                != q.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            {
                return false
            }
            i += 8
        }
        while i < n {
            if x[i] != y[i] { return false }
            i += 1
        }
        return true
    }

    /// The value `key` maps to in the hash table at `table`, nil when absent.
    @inline(__always)
    public func lookup(table: Int, key: UnsafeBufferPointer<UInt8>) -> UInt32? {
        lookup(table: table, key: key, hash: ImageHash.forward(key))
    }

    /// As `lookup(table:key:)` with the key's hash already computed (the
    /// reversed hash for tables built with `reversedKeys`).
    @inlinable @inline(__always)
    public func lookup(table: Int, key: UnsafeBufferPointer<UInt8>, hash: UInt32) -> UInt32? {
        typealias Bucket = ImageWriter.Bucket
        let mask = Int(word(table))
        let base = table + 1
        // A table must lie inside the image; a damaged mask cannot make the probe run long.
        guard base >= 1, (mask + 1) * Bucket.size <= wordCount - base else { return nil }
        var b = Int(hash) & mask
        var probes = 0
        while probes <= mask {
            let slot = base + b * Bucket.size
            let offset = word(slot + Bucket.keyOffset)
            if offset == ImageWriter.none { return nil }
            if word(slot + Bucket.hash) == hash && word(slot + Bucket.keyLength) == UInt32(key.count) {
                let stored = bytes(offset: offset, count: word(slot + Bucket.keyLength))
                if stored.count == key.count && Self.equal(stored, key) {
                    return word(slot + Bucket.value)
                }
            }
            b = (b + 1) & mask
            probes += 1
        }
        return nil
    }
}
