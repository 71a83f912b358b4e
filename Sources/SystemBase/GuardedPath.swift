#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Paths resolved one component at a time, following a symbolic link only
/// when it is owned by the running (effective) user or by root.
///
/// This is the kernel's `protected_symlinks` rule applied by the program to
/// every path it writes or deletes, wherever the link is: a link another
/// user planted (in a folder of theirs that a root process was pointed at)
/// never leads the program into a folder of the link's choosing.
package enum GuardedPath {
    /// Why a path could not be opened.
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// A system call failed (the SystemError names the call and the path).
        case system(SystemError)
        /// `link` is a symbolic link owned by user `owner`, which is not followed.
        case foreignLink(link: String, owner: UInt32)

        /// For `.system` the error's description; for `.foreignLink`, the
        /// link, its owner and the rule.
        package var description: String {
            switch self {
            case .system(let error): error.description
            case .foreignLink(let link, let owner):
                "\(link) is a symbolic link owned by user \(owner); links of other users are not followed"
            }
        }
    }

    /// The most symbolic links one resolution follows (the kernel's limit).
    static let maximumLinks = 40

    /// Opens the folder at `path` (absolute, or relative to the working
    /// folder) and returns its descriptor (`O_RDONLY|O_DIRECTORY|O_CLOEXEC`).
    /// Each component is opened with `openat(…, O_NOFOLLOW)` from `/` (or
    /// `.`); a symbolic link is read and followed only when its owner is
    /// `geteuid()` or 0, at most 40 links in all (else `ELOOP`). `..` goes up
    /// from the folder reached, as the kernel's does. With `creating`,
    /// missing folders are made with that mode (one made meanwhile by
    /// another process is opened).
    package static func openFolder(_ path: String, creating mode: mode_t? = nil) throws(Failure) -> Int32 {
        try openFolder(bytes: Array(path.utf8), creating: mode)
    }

    /// The folder holding `path`, opened as `openFolder` does, and the last
    /// component's name (no slash; an empty name, `.` and `..` are refused
    /// with `EINVAL`), for the caller's `*at` calls with `O_NOFOLLOW`.
    package static func openParent(
        of path: String, creating mode: mode_t? = nil
    ) throws(Failure) -> (folder: Int32, name: String) {
        var bytes = Array(path.utf8)
        while bytes.count > 1 && bytes.last == slash { bytes.removeLast() }
        let name: ArraySlice<UInt8>
        let parent: [UInt8]
        if let cut = bytes.lastIndex(of: slash) {
            name = bytes[(cut + 1)...]
            parent = cut == 0 ? [slash] : Array(bytes[..<cut])
        } else {
            name = bytes[...]
            parent = [dot]
        }
        guard !name.isEmpty, !name.elementsEqual([dot]), !name.elementsEqual([dot, dot]) else {
            throw .system(SystemError(EINVAL, path: path))
        }
        let folder = try openFolder(bytes: parent, creating: mode)
        return (folder, String(decoding: name, as: UTF8.self))
    }

    /// What the symbolic link `name` in folder `fd` names, or nil when
    /// `name` is not a link; `.foreignLink` (naming `name`) when another
    /// user owns it. The owner checked and the target read are those of one
    /// link, held open meanwhile, so a link swapped in between cannot pass.
    package static func linkTarget(_ fd: Int32, _ name: String) throws(Failure) -> String? {
        let entry = openat(fd, name, openPath | O_NOFOLLOW | O_CLOEXEC)
        guard entry >= 0 else { throw .system(.current("openat", path: name)) }
        defer { close(entry) }
        var info = stat()
        guard fstat(entry, &info) == 0 else { throw .system(.current("fstat", path: name)) }
        guard info.isSymbolicLink else { return nil }
        guard isTrusted(info.st_uid) else { throw .foreignLink(link: name, owner: info.st_uid) }
        let target = try readLink(entry, shown: name)
        return String(decoding: target, as: UTF8.self)
    }

    // MARK: - Resolving

    private static let slash = UInt8(ascii: "/")
    private static let dot = UInt8(ascii: ".")

    /// `O_PATH`, which Swift's Glibc module leaves out (glibc declares it
    /// only under `_GNU_SOURCE`): a descriptor that names a file, a folder
    /// that only has to be searchable, or a symbolic link itself.
    private static let openPath: Int32 = 0o10000000

    /// Links of the running user and of root are followed.
    private static func isTrusted(_ owner: uid_t) -> Bool { owner == geteuid() || owner == 0 }

    private static func openFolder(bytes path: [UInt8], creating mode: mode_t?) throws(Failure) -> Int32 {
        guard !path.isEmpty else { throw .system(SystemError(ENOENT, call: "openat", path: "")) }
        var walk = try Walk(absolute: path.first == slash)
        defer { walk.close() }
        try walk.resolve(path, creating: mode)
        return try walk.openReached()
    }

    /// The target of the link open (`O_PATH`) as `link`.
    private static func readLink(_ link: Int32, shown: String) throws(Failure) -> [UInt8] {
        var capacity = 256
        while true {
            var buffer = [UInt8](repeating: 0, count: capacity)
            let n = buffer.withUnsafeMutableBytes { readlinkat(link, "", $0.baseAddress!, $0.count) }
            guard n >= 0 else { throw .system(.current("readlinkat", path: shown)) }
            if n < capacity { return Array(buffer[..<n]) }
            capacity *= 2
        }
    }

    /// The folder reached so far (`O_PATH`), its path as written for
    /// messages, and how many links were followed.
    private struct Walk {
        var fd: Int32
        var shown: [UInt8]
        var links = 0

        init(absolute: Bool) throws(Failure) {
            shown = absolute ? [slash] : []
            fd = open(absolute ? "/" : ".", openPath | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { throw .system(.current("open", path: absolute ? "/" : ".")) }
        }

        func close() { _ = Glibc.close(fd) }

        /// `shown` with `name` after it.
        func shown(_ name: [UInt8]) -> String {
            let joined = shown.isEmpty ? name : shown + (shown.last == slash ? [] : [slash]) + name
            return String(decoding: joined, as: UTF8.self)
        }

        /// Moves on to the folder `next` has open, reached by `name`.
        mutating func enter(_ next: Int32, _ name: [UInt8]) {
            close()
            fd = next
            shown = Array(shown(name).utf8)
        }

        /// Starts over at `/` (a link's absolute target).
        mutating func restartAtRoot(shownAs link: String) throws(Failure) {
            let root = open("/", openPath | O_DIRECTORY | O_CLOEXEC)
            guard root >= 0 else { throw .system(.current("open", path: link)) }
            close()
            fd = root
            shown = [slash]
        }

        mutating func resolve(_ path: [UInt8], creating mode: mode_t?) throws(Failure) {
            // Components still to walk, the next one last.
            var pending = Array(path.split(separator: slash).reversed())
            while let component = pending.popLast() {
                let name = Array(component)
                if name == [dot] { continue }
                if name == [dot, dot] {
                    let up = openat(fd, "..", openPath | O_DIRECTORY | O_CLOEXEC)
                    guard up >= 0 else { throw .system(.current("openat", path: shown(name))) }
                    enter(up, name)
                    continue
                }
                if let target = try step(name, creating: mode) {
                    if target.first == slash { try restartAtRoot(shownAs: shown(name)) }
                    pending += target.split(separator: slash).reversed()
                }
            }
        }

        /// Enters the folder `name`, or returns the target of the link
        /// `name` for the caller to walk.
        mutating func step(_ name: [UInt8], creating mode: mode_t?) throws(Failure) -> [UInt8]? {
            // A folder made here may be taken away or replaced before it is opened: a few tries.
            for attempt in 0..<8 {
                let entry = withPath(name) { openat(fd, $0, openPath | O_NOFOLLOW | O_CLOEXEC) }
                guard entry >= 0 else {
                    let failure = SystemError.current("openat", path: shown(name))
                    guard failure.code == ENOENT, let mode, attempt < 7 else { throw .system(failure) }
                    if withPath(name, { mkdirat(fd, $0, mode) }) != 0 && errno != EEXIST {
                        throw .system(.current("mkdirat", path: shown(name)))
                    }
                    continue
                }
                var info = stat()
                guard fstat(entry, &info) == 0 else {
                    let failure = SystemError.current("fstat", path: shown(name))
                    _ = Glibc.close(entry)
                    throw .system(failure)
                }
                if info.isDirectory {
                    enter(entry, name)
                    return nil
                }
                defer { _ = Glibc.close(entry) }
                guard info.isSymbolicLink else {
                    throw .system(SystemError(ENOTDIR, call: "openat", path: shown(name)))
                }
                guard GuardedPath.isTrusted(info.st_uid) else {
                    throw .foreignLink(link: shown(name), owner: info.st_uid)
                }
                links += 1
                guard links <= GuardedPath.maximumLinks else {
                    throw .system(SystemError(ELOOP, call: "openat", path: shown(name)))
                }
                let target = try GuardedPath.readLink(entry, shown: shown(name))
                guard !target.isEmpty else { throw .system(SystemError(ENOENT, call: "readlinkat", path: shown(name))) }
                return target
            }
            throw .system(SystemError(ENOENT, call: "openat", path: shown(name)))
        }

        /// The folder reached, opened for reading.
        func openReached() throws(Failure) -> Int32 {
            let folder = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard folder >= 0 else {
                throw .system(.current("openat", path: shown.isEmpty ? "." : String(decoding: shown, as: UTF8.self)))
            }
            return folder
        }

        /// Calls `body` with `name` as a C string.
        private func withPath<R>(_ name: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
            (name + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) } }
        }
    }
}
