import CLinuxCalls

#if canImport(Glibc)
    import Glibc
#endif

/// When an item has finished arriving. An item is taken once its status has
/// not changed for `interval` seconds (judged by the change time, which
/// writes, renames and mode changes all set and which no program can set to
/// the past or future), and a regular file changed within the last
/// `writerWindow` seconds only when no process has it open for writing
/// (checked with a read lease, which the kernel refuses while the file is
/// open for writing; where a lease cannot be taken, through the open files
/// of the processes under /proc; when neither can tell, the file waits
/// until unchanged for `writerWindow`). A file unchanged for longer is
/// taken even when a program holds it open, so that one that keeps files
/// open without writing them cannot hold them back forever.
public struct SettlePolicy: Sendable {
    /// Seconds an item's status must have stayed unchanged before it is taken.
    public var interval: Double
    /// Whether a regular file changed within `writerWindow` waits while a
    /// process has it open for writing.
    public var checkWriters: Bool
    /// Seconds since its last change during which a regular file is checked
    /// for writers; one unchanged for longer is taken even while open.
    public var writerWindow: Double

    /// Whether read leases are tried (tests turn them off to reach the /proc check).
    package var usesLeases = true

    /// A policy with these settings; the defaults take an item unchanged for
    /// 2 seconds and check files changed within the last 60 seconds for writers.
    public init(interval: Double = 2, checkWriters: Bool = true, writerWindow: Double = 60) {
        self.interval = interval
        self.checkWriters = checkWriters
        self.writerWindow = writerWindow
    }

    /// Why an item is not ready, and waits for a later look.
    public enum WaitReason: Sendable, Equatable {
        /// Its status changed this many seconds ago, less than the settle interval.
        case changedRecently(secondsAgo: Double)
        /// A process has it open for writing.
        case openForWriting
        /// Changed this many seconds ago, and whether a process has it open
        /// for writing cannot be told (another user's file, whose processes
        /// cannot be seen): taken once unchanged for the writer window.
        case writerUnknown(secondsAgo: Double)
        /// A symbolic link to this item of the Inbox, which stays in it: the
        /// link goes with it, so that it keeps pointing at it.
        case linkTargetInInbox(FileName)
    }

    /// What an entry is, and why it must wait if it must.
    package struct Inspection {
        package var kind: EntryKind
        package var wait: WaitReason?

        package init(kind: EntryKind, wait: WaitReason? = nil) {
            self.kind = kind
            self.wait = wait
        }
    }

    /// What the entry is and whether it must wait. `typeHint` is the kind
    /// readdir gave; it saves the status call when the interval is 0 and
    /// nothing else needs the change time.
    package func inspect(
        _ folder: FolderDescriptor, _ name: FileName, typeHint: UInt8
    ) -> Result<Inspection, SystemError> {
        if interval <= 0, let kind = EntryKind(directoryEntryType: typeHint) {
            guard kind == .file, checkWriters else { return .success(Inspection(kind: kind)) }
            // Every regular file is checked; a lease refused for not being a regular file means it changed kind.
            switch hasWriter(folder, name) {
            case 1: return .success(Inspection(kind: kind, wait: .openForWriting))
            case 0: return .success(Inspection(kind: kind))
            default: break
            }
        }
        return folder.status(of: name).map { info in
            let kind = EntryKind(of: info)
            return Inspection(kind: kind, wait: wait(for: info, kind: kind, name, in: folder))
        }
    }

    /// Whether the entry `name` of `folder`, of status `info`, must wait:
    /// changed within the interval, or a regular file changed within the
    /// writer window that a process has open for writing (or of which that
    /// cannot be told). Every regular file of a folder moved across file
    /// systems is asked this too.
    package func wait(
        for info: stat, kind: EntryKind, _ name: FileName, in folder: FolderDescriptor
    ) -> WaitReason? {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let age = Double(now.tv_sec - info.st_ctim.tv_sec) + Double(now.tv_nsec - info.st_ctim.tv_nsec) / 1e9
        if age < interval { return .changedRecently(secondsAgo: max(age, 0)) }
        if checkWriters && kind == .file && age < max(writerWindow, interval) {
            switch hasWriter(folder, name) {
            case 1: return .openForWriting
            case 0: break
            // Not known: taken only once unchanged for the whole window.
            default: return .writerUnknown(secondsAgo: max(age, 0))
            }
        }
        return nil
    }

    /// How long to wait before asking again about an item that must wait
    /// for `reason`: until the interval has passed since its last change
    /// (and 5 ms more, so the next look finds it settled), a second or
    /// the interval for a writer or a link's target, the rest of the writer
    /// window when writers cannot be told.
    package func retryDelay(after reason: WaitReason) -> Double {
        switch reason {
        case .changedRecently(let age): return max(interval - age, 0) + 0.005
        case .openForWriting: return max(interval, 1)
        case .writerUnknown(let age): return max(writerWindow - age, 1)
        case .linkTargetInInbox: return max(interval, 1)
        }
    }

    /// Whether a writer that has the file open now may still be writing it
    /// (it changed within the writer window): then it must wait.
    package func writerMatters(changed info: stat) -> Bool {
        guard checkWriters else { return false }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let age = Double(now.tv_sec - info.st_ctim.tv_sec) + Double(now.tv_nsec - info.st_ctim.tv_nsec) / 1e9
        return age < max(writerWindow, interval)
    }

    /// 1 when a process has the regular file open for writing, 0 when none
    /// has, -1 when it cannot be told. A read lease answers (closing the
    /// descriptor ends it); where the kernel refuses one (not the file's
    /// owner, or no leases on that file system), the open files of the
    /// processes under /proc answer, when every one of them can be read.
    private func hasWriter(_ folder: FolderDescriptor, _ name: FileName) -> Int32 {
        let fd = name.bytes.withCString { openat(folder.fd, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { return -1 }
        defer { close(fd) }
        if usesLeases {
            let answer = uti_has_writer(fd)
            if answer >= 0 { return answer }
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return -1 }
        let scan = OpenFileScan.recent()
        if scan.writers.contains(OpenFileScan.Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))) {
            return 1
        }
        return scan.complete ? 0 : -1
    }
}
