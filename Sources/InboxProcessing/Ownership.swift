import SystemBase

#if canImport(Glibc)
    import Glibc
#endif

/// The owner and group of an item, kept on its copy. Only root may give a
/// file to another user, so only root's copies are given them; a copy
/// whose owner root cannot set (a user over quota, a file system that
/// refuses) fails here, and is not published.
enum Ownership {
    /// Gives the open file or folder `fd` the owner and group of `info`, as root.
    static func keep(_ info: stat, onFile fd: Int32) throws(SystemError) {
        guard geteuid() == 0 else { return }
        if fchown(fd, info.st_uid, info.st_gid) != 0 { throw .current("fchown") }
    }

    /// Gives the symbolic link `name` of folder `dir` the owner and group of `info`, as root.
    static func keep(_ info: stat, onLink name: FileName, in dir: Int32) throws(SystemError) {
        guard geteuid() == 0 else { return }
        let result = name.bytes.withCString { fchownat(dir, $0, info.st_uid, info.st_gid, AT_SYMLINK_NOFOLLOW) }
        if result != 0 { throw .current("fchownat") }
    }
}
