import SystemBase

#if canImport(Glibc)
    import Glibc
#endif

/// An inotify instance: watches added by path, events read as values.
final class InotifyQueue {
    /// One event as the kernel gave it.
    struct Event {
        var watch: Int32
        var mask: UInt32
        var cookie: UInt32
        var name: [UInt8]

        func has(_ flag: Int32) -> Bool { mask & UInt32(flag) != 0 }
    }

    let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Opens an instance; fails with the per-user limit named when it is reached.
    init() throws(FolderWatcher.Failure) {
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else {
            let error = SystemError.current("inotify_init1")
            if error.code == EMFILE {
                throw FolderWatcher.Failure(
                    .watchLimitReached, path: "inotify",
                    reason: "cannot watch: the limit of inotify instances per user is reached "
                        + Self.limit("max_user_instances"), systemError: error)
            }
            throw FolderWatcher.Failure.system(error, path: "inotify", reason: "cannot watch: \(error.reason)")
        }
    }

    deinit { close(fd) }

    /// What adding a watch gave.
    enum Added: Equatable {
        /// The watch (the same one when the folder is already watched).
        case watching(Int32)
        /// Nothing, or no folder, is at the path any more.
        case gone
        /// The folder may not be read (its permissions): the error.
        case refused(SystemError)
    }

    /// Watches the folder at `path` (never following a symbolic link) for
    /// `mask`. Throws when the per-user limit is reached or the system
    /// cannot add a watch.
    func add(_ path: [UInt8], mask: UInt32) throws(FolderWatcher.Failure) -> Added {
        let watch = (path + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { inotify_add_watch(fd, $0.baseAddress!, mask) }
        }
        if watch >= 0 { return .watching(watch) }
        let error = SystemError.current("inotify_add_watch", path: FileName(path).escaped)
        switch error.code {
        case ENOENT, ENOTDIR, ELOOP: return .gone
        case EACCES, EPERM: return .refused(error)
        case ENOSPC:
            throw FolderWatcher.Failure(
                .watchLimitReached, path: FileName(path).escaped,
                reason: "cannot watch: the limit of inotify watches per user is reached "
                    + Self.limit("max_user_watches") + "; raise it with sysctl, or watch fewer folders",
                systemError: error)
        default:
            throw FolderWatcher.Failure.system(
                error, path: FileName(path).escaped, reason: "cannot watch: \(error.reason)")
        }
    }

    /// Stops a watch (the kernel then sends `IN_IGNORED` for it).
    func remove(_ watch: Int32) { inotify_rm_watch(fd, watch) }

    /// The events ready now (none when there are none).
    func read() -> [Event] {
        var events: [Event] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count <= 0 {
                if count < 0 && errno == EINTR { continue }
                return events
            }
            var offset = 0
            buffer.withUnsafeBytes { raw in
                while offset + 16 <= count {
                    let watch = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let cookie = raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
                    let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let name = raw[(offset + 16)..<min(offset + 16 + length, count)].prefix { $0 != 0 }
                    events.append(Event(watch: watch, mask: mask, cookie: cookie, name: Array(name)))
                    offset += 16 + length
                }
            }
        }
    }

    /// Whether an event arrives within `milliseconds`.
    func waitReadable(milliseconds: Int32) -> Bool {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        return poll(&fds, 1, milliseconds) > 0
    }

    /// `(fs.inotify.NAME = VALUE)`, read from /proc/sys/fs/inotify/NAME.
    static func limit(_ name: String) -> String {
        let path = "/proc/sys/fs/inotify/" + name
        let value = (try? FileContents.read(path, limit: 64)).map {
            String(decoding: $0, as: UTF8.self).trimmingWhitespace()
        }
        return "(fs.inotify.\(name) = \(value ?? "unknown"), \(path))"
    }
}
