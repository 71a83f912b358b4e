#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading whole files without Foundation, with a size limit and errors that
/// name the file.
public enum FileContents {
    /// A file that could not be read: the path, what kind of failure, and
    /// the system call that failed when one did.
    public struct ReadError: Error, Sendable, CustomStringConvertible {
        /// What kind of failure it is, for a caller to switch on.
        public enum Code: Sendable, Hashable {
            /// Nothing is at the path (or a folder on it is a file).
            case notFound
            /// The file, or a folder on its path, may not be read by this process.
            case permissionDenied
            /// The path names a folder.
            case isDirectory
            /// The path names a FIFO, a socket or a device (never opened), or
            /// it stopped being a regular file between the look and the open.
            case notRegularFile
            /// The file is larger than the limit, or grew past it while it was read.
            case tooLarge
            /// Another system call failed: `systemError` says which, and why.
            case systemCallFailed
        }

        /// The file, as given.
        public var path: String
        /// What is wrong, as a phrase that follows the path: `is a directory`.
        public var reason: String
        /// What kind of failure it is.
        public var code: Code
        /// The system call that failed, with its path and errno, when one did.
        public var systemError: SystemError?
        /// `path: reason`.
        public var description: String { "\(path): \(reason)" }

        /// A failure of `code` at `path`, described by `reason`.
        init(_ code: Code, path: String, reason: String) {
            self.code = code
            self.path = path
            self.reason = reason
        }

        /// The failure of `call` on `path` with the current errno.
        static func current(_ call: String, path: String) -> ReadError {
            let error = SystemError.current(call, path: path)
            let code: Code =
                switch error.kind {
                case .notFound, .notADirectory: .notFound
                case .permissionDenied: .permissionDenied
                default: .systemCallFailed
                }
            var failure = ReadError(code, path: path, reason: error.reason)
            failure.systemError = error
            return failure
        }
    }

    /// The bytes of the regular file at `path`, refusing files larger than
    /// `limit` bytes, directories, FIFOs and devices (never opened).
    public static func read(_ path: String, limit: Int) throws(ReadError) -> [UInt8] {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .current("stat", path: path) }
        guard info.isRegularFile else {
            throw info.isDirectory
                ? ReadError(.isDirectory, path: path, reason: "is a directory")
                : ReadError(.notRegularFile, path: path, reason: "is not a regular file")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .current("open", path: path) }
        defer { close(fd) }
        guard fstat(fd, &info) == 0 else {
            var failure = ReadError(.systemCallFailed, path: path, reason: "is not a regular file")
            failure.systemError = .current("fstat", path: path)
            throw failure
        }
        guard info.isRegularFile else { throw ReadError(.notRegularFile, path: path, reason: "is not a regular file") }
        if Int(info.st_size) > limit {
            throw ReadError(.tooLarge, path: path, reason: "is \(info.st_size) bytes; the limit is \(limit)")
        }
        var result: [UInt8] = []
        result.reserveCapacity(Int(info.st_size))
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = retryingInterrupts { buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) } }
            if n < 0 { throw .current("read", path: path) }
            if n == 0 { break }
            result.append(contentsOf: buffer[0..<n])
            if result.count > limit {
                throw ReadError(.tooLarge, path: path, reason: "grew past the limit of \(limit) bytes while being read")
            }
        }
        return result
    }

}

/// Questions about a path that do not open it.
public enum FileStatus {
    /// True when `path` names something (a dangling symbolic link counts).
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// True when the path whose bytes are `path` names something.
    public static func exists(_ path: [UInt8]) -> Bool {
        var info = stat()
        return withCPath(path) { lstat($0, &info) } == 0
    }

    /// Calls `body` (a system call) with the path whose bytes are `path` as
    /// a C string; a path holding a NUL byte names nothing: -1 and `ENOENT`.
    public static func withCPath(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> Int32) -> Int32 {
        guard !path.contains(0) else {
            errno = ENOENT
            return -1
        }
        return (path + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) } }
    }
}

/// The entry names of a folder as bytes (names need not be UTF-8), without
/// `.` and `..`, in the order the file system gives them.
public enum DirectoryListing {
    /// Nil when the folder cannot be opened.
    public static func names(in folder: String) -> [[UInt8]]? {
        names(inPath: Array(folder.utf8))
    }

    /// The names in the folder at `path`, given as bytes (a path need not
    /// be UTF-8); nil when it cannot be opened.
    public static func names(inPath path: [UInt8]) -> [[UInt8]]? {
        let dir = (path + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { opendir($0.baseAddress!) }
        }
        guard let dir else { return nil }
        defer { closedir(dir) }
        var names: [[UInt8]] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != [46] && name != [46, 46] { names.append(name) }
        }
        return names
    }
}
