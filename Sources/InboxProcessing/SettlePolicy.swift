#if canImport(Glibc)
import Glibc
#endif
import CLinuxCalls

/// When an item has finished arriving. An item is taken once its status has
/// not changed for `interval` seconds (judged by the change time, which
/// writes, renames and mode changes all set and which no program can set to
/// the past or future), and a regular file changed within the last
/// `writerWindow` seconds only when no process has it open for writing
/// (checked with a read lease, which the kernel refuses while the file is
/// open for writing; where a lease cannot be tried, the change time alone
/// decides). A file unchanged for longer is taken even when a program
/// holds it open, so that one that keeps files open without writing them
/// cannot hold them back forever.
public struct SettlePolicy: Sendable {
    public var interval: Double
    public var checkWriters: Bool
    public var writerWindow: Double

    public init(interval: Double = 2, checkWriters: Bool = true, writerWindow: Double = 60) {
        self.interval = interval
        self.checkWriters = checkWriters
        self.writerWindow = writerWindow
    }

    struct Inspection {
        var kind: InboxProcessor.Kind
        var wait: InboxProcessor.WaitReason?
    }

    /// What the entry is and whether it must wait. `typeHint` is the kind
    /// readdir gave, which saves a status call where nothing else is needed.
    func inspect(_ folder: FolderDescriptor, _ name: FileName, typeHint: UInt8) -> Result<Inspection, SystemError> {
        if typeHint == DT_REG || typeHint == DT_UNKNOWN {
            let fd = name.bytes.withCString { openat(folder.fd, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
            if fd >= 0 {
                defer { close(fd) }
                var info = stat()
                guard fstat(fd, &info) == 0 else { return .failure(.current) }
                return .success(inspect(info, fd: fd))
            }
            if errno == ENOENT { return .failure(.current) }
        } else if interval <= 0 {
            let kind: InboxProcessor.Kind
            switch Int32(typeHint) {
            case Int32(DT_DIR): kind = .folder
            case Int32(DT_LNK): kind = .symbolicLink
            case Int32(DT_FIFO): kind = .fifo
            case Int32(DT_SOCK): kind = .socket
            case Int32(DT_CHR), Int32(DT_BLK): kind = .device
            default: kind = .unknown
            }
            if kind != .unknown { return .success(Inspection(kind: kind)) }
        }
        return folder.status(of: name).map { inspect($0, fd: -1) }
    }

    private func inspect(_ info: stat, fd: Int32) -> Inspection {
        let kind = InboxProcessor.kind(of: info)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let age = Double(now.tv_sec - info.st_ctim.tv_sec) + Double(now.tv_nsec - info.st_ctim.tv_nsec) / 1e9
        if age < interval { return Inspection(kind: kind, wait: .changedRecently(secondsAgo: max(age, 0))) }
        if checkWriters && fd >= 0 && kind == .file && age < max(writerWindow, interval) && uti_has_writer(fd) == 1 {
            return Inspection(kind: kind, wait: .openForWriting)
        }
        return Inspection(kind: kind)
    }
}
