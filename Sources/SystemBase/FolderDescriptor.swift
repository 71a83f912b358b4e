#if canImport(Glibc)
    import Glibc
#endif

/// An open folder that names are resolved against with the `*at` calls, so
/// that a folder renamed or replaced while it is being worked on cannot
/// redirect the work elsewhere.
package final class FolderDescriptor {
    package let fd: Int32
    /// How the folder is named in messages.
    package let path: String

    /// Takes ownership of an open folder descriptor.
    package init(adopting fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }

    /// Opens `path` as a folder, following symbolic links.
    package static func open(_ path: String) throws(SystemError) -> FolderDescriptor {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError.current }
        return FolderDescriptor(adopting: fd, path: path)
    }

    /// Opens `path` as a folder, following a symbolic link on the way only
    /// when it is the running user's or root's (`GuardedPath`): for the
    /// folders the inbox writes and deletes in.
    package static func openGuarded(_ path: String) throws(GuardedPath.Failure) -> FolderDescriptor {
        FolderDescriptor(adopting: try GuardedPath.openFolder(path), path: path)
    }

    /// Opens the folder at `path`, given as bytes (a path need not be
    /// UTF-8), following symbolic links.
    package static func open(_ path: [UInt8]) throws(SystemError) -> FolderDescriptor {
        let fd = (path + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { Glibc.open($0.baseAddress!, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        }
        guard fd >= 0 else { throw SystemError.current }
        return FolderDescriptor(adopting: fd, path: FileName(path).escaped)
    }

    /// Opens the entry `name` of this folder as a folder, never following a
    /// symbolic link.
    package func openFolder(_ name: FileName, displayPath: String) throws(SystemError) -> FolderDescriptor {
        let fd = name.bytes.withCString { openat(self.fd, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0 else { throw SystemError.current }
        return FolderDescriptor(adopting: fd, path: displayPath)
    }

    /// The status of `name` itself (a symbolic link is not followed).
    package func status(of name: FileName) -> Result<stat, SystemError> {
        var info = stat()
        let result = name.bytes.withCString { fstatat(fd, $0, &info, AT_SYMLINK_NOFOLLOW) }
        return result == 0 ? .success(info) : .failure(.current)
    }

    /// True when something has the name `name` here (or it cannot be told).
    package func contains(_ name: FileName) -> Bool {
        switch status(of: name) {
        case .success: return true
        case .failure(let error): return error.code != ENOENT
        }
    }

    /// The names in the folder, without `.` and `..`.
    package func names() throws(SystemError) -> [FileName] {
        try entries().map(\.name)
    }

    /// The entries of the folder with the kind readdir reports (`DT_REG`,
    /// `DT_DIR`, …, or `DT_UNKNOWN`), without `.` and `..`.
    package func entries() throws(SystemError) -> [(name: FileName, type: UInt8)] {
        try Self.entries(of: fd)
    }

    /// The entries of the open folder `fd`, as `entries()` lists them,
    /// read through a duplicate: `fd` stays open and the caller's.
    package static func entries(of fd: Int32) throws(SystemError) -> [(name: FileName, type: UInt8)] {
        let copy = dup(fd)
        guard copy >= 0 else { throw SystemError.current }
        guard let dir = fdopendir(copy) else {
            let error = SystemError.current
            close(copy)
            throw error
        }
        defer { closedir(dir) }
        rewinddir(dir)
        var names: [(name: FileName, type: UInt8)] = []
        while true {
            errno = 0
            guard let entry = readdir(dir) else {
                if errno != 0 { throw SystemError.current }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != [46] && name != [46, 46] { names.append((FileName(name), entry.pointee.d_type)) }
        }
        return names
    }

    /// Flushes the folder's entries to disk.
    package func sync() { _ = fsync(fd) }
}

extension Array where Element == UInt8 {
    /// Calls `body` with the bytes as a NUL-terminated C string.
    package func withCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        var copy = self
        copy.append(0)
        return try copy.withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }
}
