import SystemBase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The identity of a compiled registry file whose checksum was verified
/// (device, inode, size, modification and change times), kept in a small
/// file beside it (`registry-….checked`), so that later reads of the same,
/// unchanged file skip the checksum.
///
/// Any write to the file changes its change time, which no user can set
/// back, and a replacement has a new inode; so a file that matches its
/// record holds the bytes that were verified. The record is written only
/// for a file whose change time lies more than `settleSeconds` in the past,
/// so that a write within the file system's timestamp granularity after
/// the verified read still gives a new change time.
struct ChecksumRecord {
    /// The record's file.
    let path: String

    static let magic = Array("UTICHECK".utf8)
    static let size = magic.count + 5 * 8
    /// How old a file's change time must be before its record is written.
    static let settleSeconds = 3

    /// The suffix of record files.
    static let suffix = ".checked"

    /// The record of the image file `image` (a name ending in `.img`).
    init(image: String) {
        let imageSuffix = RegistryCache.imageSuffix
        path = (image.hasSuffix(imageSuffix) ? String(image.dropLast(imageSuffix.count)) : image) + Self.suffix
    }

    /// The image file the record file `path` belongs to.
    static func image(ofRecord path: String) -> String {
        String(path.dropLast(suffix.count)) + RegistryCache.imageSuffix
    }

    static func encode(_ info: stat) -> [UInt8] {
        var bytes = magic
        bytes.reserveCapacity(size)
        for value in [
            Int64(truncatingIfNeeded: info.st_dev), Int64(truncatingIfNeeded: info.st_ino), Int64(info.st_size),
            Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec),
            Int64(info.st_ctim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_ctim.tv_nsec),
        ] {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        return bytes
    }

    /// Whether the record says that the file with status `info` was
    /// verified. A record that is missing, not a regular file, not the
    /// running user's own, writable by others or of another file is no.
    func matches(_ info: stat) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var own = stat()
        guard fstat(fd, &own) == 0, own.isRegularFile, RegistryCache.fileProblem(own) == nil,
            Int(own.st_size) == Self.size
        else { return false }
        var stored = [UInt8](repeating: 0, count: Self.size + 1)
        let n = stored.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
        return n == Self.size && stored.prefix(Self.size).elementsEqual(Self.encode(info))
    }

    /// Whether a file with status `info` may be recorded now: its change
    /// time lies more than `settle` seconds in the past.
    static func isSettled(_ info: stat, settle: Int = settleSeconds, now: Int = time(nil)) -> Bool {
        now - info.st_ctim.tv_sec > settle
    }
}
