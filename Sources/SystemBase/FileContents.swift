#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading whole files without Foundation, with a size limit and errors that
/// name the file.
public enum FileContents {
    public struct ReadError: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// The bytes of the regular file at `path`, refusing files larger than
    /// `limit` bytes, directories, FIFOs and devices (never opened).
    public static func read(_ path: String, limit: Int) throws(ReadError) -> [UInt8] {
        var info = stat()
        guard stat(path, &info) == 0 else { throw ReadError(path: path, reason: SystemError.current.reason) }
        guard info.isRegularFile else {
            throw ReadError(
                path: path, reason: info.isDirectory ? "is a directory" : "is not a regular file")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw ReadError(path: path, reason: SystemError.current.reason) }
        defer { close(fd) }
        guard fstat(fd, &info) == 0, info.isRegularFile else {
            throw ReadError(path: path, reason: "is not a regular file")
        }
        if Int(info.st_size) > limit {
            throw ReadError(path: path, reason: "is \(info.st_size) bytes; the limit is \(limit)")
        }
        var result: [UInt8] = []
        result.reserveCapacity(Int(info.st_size))
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = retryingInterrupts { buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) } }
            if n < 0 { throw ReadError(path: path, reason: SystemError.current.reason) }
            if n == 0 { break }
            result.append(contentsOf: buffer[0..<n])
            if result.count > limit {
                throw ReadError(path: path, reason: "grew past the limit of \(limit) bytes while being read")
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
