import SystemBase

#if canImport(Glibc)
    import Glibc
#endif

/// What a symbolic link moved out of the Inbox must hold to point where it
/// pointed: an absolute target as it is; a relative one (`../my report.pdf`)
/// rewritten relative to the folder the link moves to, and one into the
/// Inbox to where that item was moved.
enum LinkTarget {
    /// The components of the absolute path `target` names when read from a
    /// link in the folder `from` (a canonical absolute path, without
    /// symbolic links). Nil when that cannot be known: a `..` that follows a
    /// name (`a/../b`, where `a` may itself be a link).
    static func absolute(_ target: [UInt8], from: [UInt8]) -> [[UInt8]]? {
        let dot = UInt8(ascii: ".")
        var absolute = target.first == UInt8(ascii: "/") ? [] : components(from)
        var named = false
        for part in components(target) {
            if part == [dot] { continue }
            if part == [dot, dot] {
                guard !named else { return nil }
                _ = absolute.popLast()  // the root's parent is the root
                continue
            }
            named = true
            absolute.append(part)
        }
        return absolute
    }

    /// The relative target that names `absolute` from the folder `to` (a
    /// canonical absolute path); `trailingSlash` keeps a target's final `/`.
    static func relative(_ absolute: [[UInt8]], from to: [UInt8], trailingSlash: Bool) -> [UInt8] {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        let base = components(to)
        var common = 0
        while common < base.count && common < absolute.count && base[common] == absolute[common] { common += 1 }
        var parts = Array(repeating: [dot, dot], count: base.count - common) + absolute[common...]
        if parts.isEmpty { parts = [[dot]] }
        var result = Array(parts.joined(separator: [slash]))
        if trailingSlash { result.append(slash) }
        return result
    }

    static func components(_ path: [UInt8]) -> [[UInt8]] {
        path.split(separator: UInt8(ascii: "/")).map(Array.init)
    }

    /// The entry of the Inbox (canonical path `inboxPath`) that the link
    /// `name` in it points at or into, when it points into the Inbox.
    static func inboxEntry(linkedBy name: FileName, in inbox: FolderDescriptor, at inboxPath: [UInt8]) -> FileName? {
        guard let target = try? read(inbox.fd, name.bytes), let absolute = absolute(target, from: inboxPath) else {
            return nil
        }
        let base = components(inboxPath)
        guard absolute.count > base.count, absolute.starts(with: base) else { return nil }
        return FileName(absolute[base.count])
    }

    /// The canonical absolute path of an open folder (its `/proc/self/fd` link).
    static func path(of folder: FolderDescriptor) -> [UInt8]? {
        guard let target = try? read(AT_FDCWD, Array("/proc/self/fd/\(folder.fd)".utf8)),
            target.first == UInt8(ascii: "/")
        else { return nil }
        return target
    }

    /// The target of the link `name` in `dir`.
    static func read(_ dir: Int32, _ name: [UInt8]) throws(SystemError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = name.withCString { path in
            buffer.withUnsafeMutableBytes {
                readlinkat(dir, path, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count)
            }
        }
        guard n >= 0 else { throw .current }
        guard n < buffer.count else { throw SystemError(ENAMETOOLONG) }
        return Array(buffer[..<n])
    }
}

/// Makes a symbolic link anew in the destination with a rewritten target,
/// then removes the original, if it is still the
/// link that was read. The new link keeps the original's modification time,
/// and its owner when the process may set it (as root).
struct RelinkPlacement: Placement {
    let source: FolderDescriptor
    let name: FileName
    /// The original link's status when its target was read.
    let original: stat
    let target: [UInt8]
    let destination: FolderDescriptor

    mutating func place(as candidate: FileName) -> PlacementResult {
        let made = target.withCString { text in candidate.bytes.withCString { symlinkat(text, destination.fd, $0) } }
        guard made == 0 else {
            let error = SystemError.current
            if error.code == EEXIST { return .taken }
            return .failed(
                .system(
                    "cannot make the link anew: \(error)",
                    SystemError(error.code, call: "symlinkat", path: candidate.escaped)))
        }
        func undo() { _ = candidate.bytes.withCString { unlinkat(destination.fd, $0, 0) } }
        // As root, the link is the original's owner's, or it is not published.
        do { try Ownership.keep(original, onLink: candidate, in: destination.fd) } catch {
            undo()
            return .failed(InboxProcessor.ItemFailure(error, context: "cannot keep the owner"))
        }
        candidate.bytes.withCString { path in
            var times = [original.st_atim, original.st_mtim]
            _ = utimensat(destination.fd, path, &times, AT_SYMLINK_NOFOLLOW)
        }
        destination.sync()
        guard case .success(let now) = source.status(of: name), now.st_ino == original.st_ino,
            now.st_dev == original.st_dev
        else {
            undo()
            return .sourceGone
        }
        guard name.bytes.withCString({ unlinkat(source.fd, $0, 0) }) == 0 || errno == ENOENT else {
            let error = SystemError.current
            undo()
            return .failed(
                .system(
                    "the original link could not be removed: \(error)",
                    SystemError(error.code, call: "unlinkat", path: name.escaped)))
        }
        return .placed
    }
}
