#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs `call` again for as long as it fails with `EINTR` (a signal arrived
/// before it did anything), and returns what it returned last: its value,
/// or -1 with `errno` set for any other failure.
@inlinable
package func retryingInterrupts<Result: FixedWidthInteger & SignedInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result != -1 || errno != EINTR { return result }
    }
}

/// The value of `call`, retried while it fails with `EINTR` (unless
/// `retryOnInterrupt` is false), or a `SystemError` naming `name` and
/// `path` with the `errno` it left when it returned -1.
@inlinable
package func valueOrErrno<Result: FixedWidthInteger & SignedInteger>(
    _ name: String, path: String? = nil, retryOnInterrupt: Bool = true, _ call: () -> Result
) throws(SystemError) -> Result {
    let result = retryOnInterrupt ? retryingInterrupts(call) : call()
    if result == -1 { throw SystemError.current(name, path: path) }
    return result
}

/// What kind of file a `stat` describes.
package enum FileKind: Sendable, Equatable {
    case regular, directory, symbolicLink, fifo, socket, characterDevice, blockDevice, unknown
}

extension stat {
    /// What kind of file this is (`st_mode & S_IFMT`, named).
    package var kind: FileKind {
        switch st_mode & S_IFMT {
        case S_IFREG: .regular
        case S_IFDIR: .directory
        case S_IFLNK: .symbolicLink
        case S_IFIFO: .fifo
        case S_IFSOCK: .socket
        case S_IFCHR: .characterDevice
        case S_IFBLK: .blockDevice
        default: .unknown
        }
    }

    /// A regular file.
    package var isRegularFile: Bool { st_mode & S_IFMT == S_IFREG }
    /// A directory.
    package var isDirectory: Bool { st_mode & S_IFMT == S_IFDIR }
    /// A symbolic link (from `lstat` or `AT_SYMLINK_NOFOLLOW`).
    package var isSymbolicLink: Bool { st_mode & S_IFMT == S_IFLNK }
    /// The permission bits (`st_mode & 0o7777`).
    package var permissions: mode_t { st_mode & 0o7777 }

    /// The status of `path` (of a symbolic link itself when
    /// `followingLinks` is false), or the error `stat`/`lstat` left.
    package init(path: String, followingLinks: Bool = true) throws(SystemError) {
        var info = stat()
        let result = followingLinks ? statusFollowingLinks(path, &info) : lstat(path, &info)
        guard result == 0 else { throw SystemError.current(followingLinks ? "stat" : "lstat", path: path) }
        self = info
    }

    /// The status of the open file `descriptor`, or the error `fstat` left.
    package init(descriptor: Int32, path: String? = nil) throws(SystemError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw SystemError.current("fstat", path: path) }
        self = info
    }
}

/// `stat(2)`, which inside `extension stat` would name the type.
private func statusFollowingLinks(_ path: String, _ info: inout stat) -> Int32 { stat(path, &info) }

/// Writes all of `bytes` to `fd`, retrying interrupted and short writes;
/// a write that takes nothing is an error (`EIO`), never a silent loop.
package func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String? = nil) throws(SystemError) {
    var done = 0
    while done < bytes.count {
        let n = try valueOrErrno("write", path: path) { write(fd, bytes.baseAddress! + done, bytes.count - done) }
        if n == 0 { throw SystemError(EIO, call: "write", path: path) }
        done += n
    }
}

/// Writes all of `bytes` to `fd` (see the buffer form).
package func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String? = nil) throws(SystemError) {
    var failure: SystemError?
    bytes.withUnsafeBytes { raw in
        do throws(SystemError) { try writeAll(fd, raw, path: path) } catch { failure = error }
    }
    if let failure { throw failure }
}

/// How a child process ended, as `waitpid` reported it.
package struct ChildExit: Sendable, Equatable {
    /// The status word `waitpid` filled in.
    package let status: Int32

    package init(status: Int32) { self.status = status }

    /// The signal that ended the process, if one did.
    package var signal: Int32? { status & 0x7F == 0 ? nil : status & 0x7F }
    /// The exit code the process gave, if it exited.
    package var code: Int32? { signal == nil ? (status >> 8) & 0xFF : nil }
    /// As a shell reports it: the exit code, or 128 plus the signal.
    package var shellStatus: Int32 { code ?? 128 + (signal ?? 0) }
}

/// Waits for the child `pid` to end (through interruptions).
package func waitForChild(_ pid: pid_t) throws(SystemError) -> ChildExit {
    var status: Int32 = 0
    _ = try valueOrErrno("waitpid") { waitpid(pid, &status, 0) }
    return ChildExit(status: status)
}

/// Runs `body` with spawn attributes that start the child with no signal
/// blocked and every signal at its default action, whatever the calling
/// thread blocks or the process ignores (a watch blocks SIGINT and SIGTERM;
/// a child must not inherit that).
package func withDefaultSignalAttributes<T>(_ body: (UnsafeMutablePointer<posix_spawnattr_t>) throws -> T) rethrows -> T
{
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t(), all = sigset_t()
    sigemptyset(&none)
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    return try body(&attributes)
}

/// The most bytes a file this process writes may hold (`ulimit -f`, the
/// soft `RLIMIT_FSIZE`); nil when there is no limit. Writing or extending a
/// file past it sends SIGXFSZ, which ends the process: a writer that asks
/// first fails with `EFBIG` instead, and keeps no signal handler.
package func fileSizeLimit() -> Int? {
    var limit = rlimit()
    guard getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {
        return nil
    }
    return Int(clamping: limit.rlim_cur)
}

/// `EFBIG` for `call` when a file of `size` bytes would pass the file size
/// limit (`fileSizeLimit()`).
package func checkFileSizeLimit(_ size: Int, call: String, path: String? = nil) throws(SystemError) {
    if let limit = fileSizeLimit(), size > limit { throw SystemError(EFBIG, call: call, path: path) }
}
