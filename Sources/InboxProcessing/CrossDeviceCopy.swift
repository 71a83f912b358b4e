#if canImport(Glibc)
import Glibc
#endif
import CLinuxCalls
import SystemBase

/// Moves an item to a folder on another file system: the copy is made in
/// the destination under no final name (an unnamed `O_TMPFILE` file, or a
/// hidden `.uti-inbox-*.partial` name where unnamed files are not
/// supported), synced, published without replacing anything, and only then
/// is the source removed. Mode and modification time are kept, and the
/// owner where the process may set it; set-ID bits only with the owner.
final class CrossDeviceCopy: Placement {
    /// The deepest folder nesting copied.
    static let maximumDepth = 256

    private enum Prepared {
        case unnamedFile(fd: Int32)
        case hiddenEntry(FileName)
        case link(target: [UInt8])
    }

    private let source: FolderDescriptor
    private let name: FileName
    private let destination: FolderDescriptor
    private var prepared: Prepared?
    /// What was copied, to remove from the source once the copy is published.
    private var copied: CopiedTree?
    /// Keeps the source file locked so that two processors do not both copy it.
    private var sourceFD: Int32 = -1
    private var sourceStatus = stat()
    /// The inode and name of the published copy.
    private var publishedInode: ino_t = 0
    private var published: FileName?

    struct Failure: Error { var reason: String; var sourceGone = false }

    init(source: FolderDescriptor, name: FileName, destination: FolderDescriptor) {
        self.source = source
        self.name = name
        self.destination = destination
    }

    deinit {
        discard()
        if sourceFD >= 0 { close(sourceFD) }
    }

    /// Makes the unpublished copy. Throws with `sourceGone` when another
    /// process has taken the source.
    func prepare() throws(Failure) {
        guard case .success(let info) = source.status(of: name) else {
            if errno == ENOENT { throw Failure(reason: "gone", sourceGone: true) }
            throw Failure(reason: SystemError.current.description)
        }
        sourceStatus = info
        switch info.st_mode & S_IFMT {
        case S_IFREG: try prepareFile()
        case S_IFLNK:
            prepared = .link(target: try Self.readLink(source.fd, name))
        case S_IFDIR:
            let hidden = try makeHiddenName { dir, candidate in
                candidate.bytes.withCString { mkdirat(dir, $0, 0o700) }
            }
            prepared = .hiddenEntry(hidden)
            var tree = CopiedTree()
            do {
                let from = try source.openFolder(name, displayPath: name.escaped)
                let to = try destination.openFolder(hidden, displayPath: hidden.escaped)
                try Self.copyFolder(from: from, to: to, record: &tree, depth: 0)
                try Self.applyMetadata(info, toFile: to.fd)
                to.sync()
                // Published only when whole: an entry added, removed or
                // changed while the copy was made leaves the folder for the
                // next run rather than splitting it in two.
                guard tree.matches(from) else {
                    throw Failure(reason: "changed while it was being copied; left for the next run")
                }
            } catch let error as SystemError {
                throw Failure(reason: error.description)
            } catch let error as Failure {
                throw error
            } catch {
                throw Failure(reason: "\(error)")
            }
            copied = tree
        default:
            throw Failure(reason: "cannot copy this kind of file")
        }
    }

    func place(as target: FileName) -> PlacementResult {
        guard let prepared else { return .failed("nothing was copied") }
        let result: Int32
        switch prepared {
        case .unnamedFile(let fd):
            result = target.bytes.withCString { uti_link_open_file(fd, destination.fd, $0) }
        case .hiddenEntry(let hidden):
            result = hidden.bytes.withCString { from in
                target.bytes.withCString { to in uti_rename_noreplace(destination.fd, from, destination.fd, to) }
            }
        case .link(let linkTarget):
            result = linkTarget.withCString { text in
                target.bytes.withCString { to in symlinkat(text, destination.fd, to) }
            }
        }
        if result == 0 {
            var info = stat()
            switch prepared {
            case .unnamedFile(let fd):
                if fstat(fd, &info) == 0 { publishedInode = info.st_ino }
                close(fd)
            default:
                if case .success(let placed) = destination.status(of: target) { publishedInode = placed.st_ino }
            }
            published = target
            self.prepared = nil
            destination.sync()
            return .placed
        }
        let error = SystemError.current
        return error.code == EEXIST ? .taken : .failed("cannot publish the copy: \(error)")
    }

    /// Whether the source file still is exactly what was copied: the same
    /// inode under its name, with the size, modification and change times it
    /// had before the copy (an append, a write or a rename changes them).
    /// Checked on the descriptor held since before the copy, immediately
    /// before the source is removed.
    func sourceIsUnchanged() -> Bool {
        guard sourceFD >= 0 else { return true }
        var now = stat()
        guard fstat(sourceFD, &now) == 0, case .success(let named) = source.status(of: name) else { return false }
        return named.st_ino == sourceStatus.st_ino && named.st_dev == sourceStatus.st_dev
            && now.st_size == sourceStatus.st_size
            && now.st_mtim.tv_sec == sourceStatus.st_mtim.tv_sec && now.st_mtim.tv_nsec == sourceStatus.st_mtim.tv_nsec
            && now.st_ctim.tv_sec == sourceStatus.st_ctim.tv_sec && now.st_ctim.tv_nsec == sourceStatus.st_ctim.tv_nsec
    }

    /// Removes a published copy of a file again (the source changed after
    /// it was copied), only if `target` still names that copy.
    func withdraw(_ target: FileName) -> Bool {
        guard case .success(let info) = destination.status(of: target), info.st_ino == publishedInode else { return false }
        return target.bytes.withCString { unlinkat(destination.fd, $0, 0) } == 0
    }

    /// Removes the source after the copy was published; returns what could
    /// not be removed.
    func removeSource() -> String? {
        guard case .success(let now) = source.status(of: name) else { return nil }
        guard now.st_ino == sourceStatus.st_ino && now.st_dev == sourceStatus.st_dev else {
            return "copied, but the original was replaced meanwhile and was kept"
        }
        if (now.st_mode & S_IFMT) == S_IFDIR {
            guard let tree = copied, let target = published else { return "copied, but the original folder was kept" }
            let hidden: FileName
            do { hidden = try FolderMoveJournal.begin(name, in: source, copy: target) } catch {
                return "copied, but the original folder could not be set aside for removal: \(error)"
            }
            do {
                let folder = try source.openFolder(hidden, displayPath: hidden.escaped)
                if let problem = tree.remove(from: folder) { return "copied, but \(problem) (a later run finishes it)" }
            } catch {
                return "copied, but the original could not be opened to remove it: \(error) (a later run finishes it)"
            }
            return FolderMoveJournal.finish(hidden, in: source, originalName: name).map { "copied, but \($0)" }
        }
        let removed = name.bytes.withCString { unlinkat(source.fd, $0, 0) }
        return removed == 0 || errno == ENOENT ? nil : "copied, but the original was kept: \(SystemError.current)"
    }

    /// Throws away an unpublished copy.
    func discard() {
        guard let prepared else { return }
        switch prepared {
        case .unnamedFile(let fd): close(fd)
        case .hiddenEntry(let hidden): Self.removeTree(in: destination.fd, hidden)
        case .link: break
        }
        self.prepared = nil
    }

    // MARK: Files

    private func prepareFile() throws(Failure) {
        let fd = name.bytes.withCString { openat(source.fd, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else {
            if errno == ENOENT { throw Failure(reason: "gone", sourceGone: true) }
            throw Failure(reason: "cannot read: \(SystemError.current)")
        }
        sourceFD = fd
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            throw Failure(reason: "another process is copying it", sourceGone: errno == EWOULDBLOCK)
        }
        // Copied and removed by another process before the lock was ours?
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_nlink > 0,
              case .success(let named) = source.status(of: name), named.st_ino == info.st_ino else {
            throw Failure(reason: "gone", sourceGone: true)
        }
        sourceStatus = info
        let mode = mode_t(info.st_mode & 0o7777)
        let unnamed = uti_open_unnamed_file(destination.fd, mode & 0o777 | 0o600)
        if unnamed >= 0 {
            prepared = .unnamedFile(fd: unnamed)
            try Self.copyContents(from: fd, to: unnamed, info)
            try checkUnchanged(fd, since: info)
            return
        }
        guard [EOPNOTSUPP, EISDIR, EINVAL, ENOENT].contains(errno) else {
            throw Failure(reason: "cannot create a file in \(destination.path): \(SystemError.current)")
        }
        var out: Int32 = -1
        let hidden = try makeHiddenName { dir, candidate in
            out = candidate.bytes.withCString { openat(dir, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
            return out >= 0 ? 0 : -1
        }
        prepared = .hiddenEntry(hidden)
        defer { close(out) }
        try Self.copyContents(from: fd, to: out, info)
        try checkUnchanged(fd, since: info)
    }

    /// A file written to while it was copied is left for the next run.
    private func checkUnchanged(_ fd: Int32, since before: stat) throws(Failure) {
        var after = stat()
        guard fstat(fd, &after) == 0, FileIdentity(after) == FileIdentity(before) else {
            throw Failure(reason: "changed while it was being copied; left for the next run")
        }
    }

    /// Copies the `info.st_size` bytes of `from` to `to`, data segment by
    /// data segment (`SEEK_DATA`/`SEEK_HOLE`), so that the holes of a sparse
    /// file stay holes; then its metadata, and syncs it. A file that grows
    /// meanwhile is caught by the caller's unchanged check.
    private static func copyContents(from: Int32, to: Int32, _ info: stat) throws(Failure) {
        let size = off_t(info.st_size)
        var offset: off_t = 0
        while offset < size {
            var data = uti_seek_data(from, offset)
            if data < 0 {
                if errno == ENXIO { break }          // only a hole is left
                data = offset                        // no hole support: all data
            }
            guard data < size else { break }
            var hole = uti_seek_hole(from, data)
            if hole < 0 || hole > size { hole = size }
            try copyRange(from: from, to: to, start: data, end: hole)
            offset = hole
        }
        guard ftruncate(to, size) == 0 else { throw Failure(reason: "cannot write the copy: \(SystemError.current)") }
        do { try applyMetadata(info, toFile: to) } catch { throw Failure(reason: "cannot keep mode and time: \(error)") }
        guard fsync(to) == 0 else { throw Failure(reason: "cannot sync the copy: \(SystemError.current)") }
    }

    /// Bytes `start..<end` of `from` to the same offsets of `to`.
    private static func copyRange(from: Int32, to: Int32, start: off_t, end: off_t) throws(Failure) {
        var input = start, output = start
        var useRange = true
        var buffer: [UInt8] = []
        while input < end {
            let length = Int(min(end - input, 1 << 30))
            if useRange {
                let n = uti_copy_range_at(from, &input, to, &output, length)
                if n > 0 { continue }
                if n == 0 { break }                  // the file shrank: the unchanged check says so
                if errno == EINTR { continue }
                guard [EXDEV, ENOSYS, EOPNOTSUPP, EINVAL].contains(errno) else {
                    throw Failure(reason: "cannot copy: \(SystemError.current)")
                }
                useRange = false
                continue
            }
            if buffer.isEmpty { buffer = [UInt8](repeating: 0, count: 1 << 16) }
            let n = buffer.withUnsafeMutableBytes { pread(from, $0.baseAddress, min($0.count, length), input) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(reason: "cannot copy: \(SystemError.current)")
            }
            if n == 0 { break }
            var done = 0
            while done < n {
                let written = buffer.withUnsafeBytes { pwrite(to, $0.baseAddress! + done, n - done, output + off_t(done)) }
                if written < 0 {
                    if errno == EINTR { continue }
                    throw Failure(reason: "cannot write the copy: \(SystemError.current)")
                }
                done += written
            }
            input += off_t(n)
            output += off_t(n)
        }
    }

    /// Owner, mode and access and modification times of `info`, on a file
    /// or folder. The owner and group are kept where the process may set
    /// them (as root); a set-user-ID or set-group-ID bit is kept only when
    /// the copy has the original's owner or group, so a copy made by root of
    /// another user's program never becomes a set-user-ID root program (as
    /// `cp -p` clears them).
    private static func applyMetadata(_ info: stat, toFile fd: Int32) throws(SystemError) {
        if geteuid() == 0 { _ = fchown(fd, info.st_uid, info.st_gid) }
        var mine = stat()
        guard fstat(fd, &mine) == 0 else { throw .current }
        var mode = mode_t(info.st_mode & 0o7777)
        if mine.st_uid != info.st_uid { mode &= ~mode_t(S_ISUID) }
        if mine.st_gid != info.st_gid { mode &= ~mode_t(S_ISGID) }
        guard fchmod(fd, mode) == 0 else { throw .current }
        var times = [info.st_atim, info.st_mtim]
        guard futimens(fd, &times) == 0 else { throw .current }
    }

    private static func readLink(_ dir: Int32, _ name: FileName) throws(Failure) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = name.bytes.withCString { path in
            buffer.withUnsafeMutableBytes { readlinkat(dir, path, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count) }
        }
        guard n >= 0 else {
            throw Failure(reason: "cannot read the link: \(SystemError.current)", sourceGone: errno == ENOENT)
        }
        return Array(buffer[..<n])
    }

    /// Creates a hidden entry with `create`, which returns 0 or -1 with errno.
    private func makeHiddenName(_ create: (Int32, FileName) -> Int32) throws(Failure) -> FileName {
        for attempt in 0..<100 {
            let candidate = FolderMoveJournal.hiddenName(prefix: FolderMoveJournal.partialPrefix, attempt: attempt,
                                                         suffix: FolderMoveJournal.partialSuffix)
            if create(destination.fd, candidate) == 0 { return candidate }
            if errno != EEXIST { throw Failure(reason: "cannot create a copy in \(destination.path): \(SystemError.current)") }
        }
        throw Failure(reason: "cannot find a free temporary name in \(destination.path)")
    }

    // MARK: Folders

    private static func copyFolder(from: FolderDescriptor, to: FolderDescriptor, record: inout CopiedTree, depth: Int) throws {
        guard depth < maximumDepth else { throw Failure(reason: "nested deeper than \(maximumDepth) folders") }
        // What cannot be removed from the Inbox afterwards is not copied:
        // every later run would publish another copy of it.
        guard faccessat(from.fd, ".", W_OK | X_OK, AT_EACCESS) == 0 else {
            throw Failure(reason: "\(from.path) could not be emptied afterwards (\(SystemError.current)); not copied")
        }
        for entry in try from.names() where entry != FolderMoveJournal.journalName {
            guard case .success(let info) = from.status(of: entry) else { throw SystemError.current }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                let input = entry.bytes.withCString { openat(from.fd, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
                guard input >= 0 else { throw Failure(reason: "cannot read \(entry): \(SystemError.current)") }
                defer { close(input) }
                let output = entry.bytes.withCString { openat(to.fd, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
                guard output >= 0 else { throw Failure(reason: "cannot create \(entry): \(SystemError.current)") }
                defer { close(output) }
                try copyContents(from: input, to: output, info)
                record.files.append((entry, FileIdentity(info)))
            case S_IFLNK:
                let target = try readLink(from.fd, entry)
                let made = target.withCString { text in entry.bytes.withCString { symlinkat(text, to.fd, $0) } }
                guard made == 0 else { throw Failure(reason: "cannot copy the link \(entry): \(SystemError.current)") }
                record.files.append((entry, FileIdentity(info)))
            case S_IFDIR:
                let made = entry.bytes.withCString { mkdirat(to.fd, $0, 0o700) }
                guard made == 0 else { throw Failure(reason: "cannot create \(entry): \(SystemError.current)") }
                let inner = try from.openFolder(entry, displayPath: entry.escaped)
                let innerCopy = try to.openFolder(entry, displayPath: entry.escaped)
                var sub = CopiedTree()
                try copyFolder(from: inner, to: innerCopy, record: &sub, depth: depth + 1)
                try applyMetadata(info, toFile: innerCopy.fd)
                innerCopy.sync()
                record.folders.append((entry, FileIdentity(info), sub))
            default:
                throw Failure(reason: "holds \(entry), which is not a file, folder or link and cannot be copied")
            }
        }
    }

    /// Removes a hidden partial copy: a file, or a folder emptied by an
    /// iterative walk at most `maximumDepth` folders deep (no copy is
    /// deeper; what lies deeper is kept). False when something was kept.
    @discardableResult
    static func removeTree(in dir: Int32, _ name: FileName) -> Bool {
        if name.bytes.withCString({ unlinkat(dir, $0, 0) }) == 0 { return true }
        // Frames of an open folder and the names in it left to remove.
        var frames: [(folder: FolderDescriptor, names: [FileName], name: FileName)] = []
        func enter(_ parent: Int32, _ entry: FileName) -> Bool {
            let fd = entry.bytes.withCString { openat(parent, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            guard fd >= 0 else { return false }
            let folder = FolderDescriptor(adopting: fd, path: entry.escaped)
            frames.append((folder, (try? folder.names()) ?? [], entry))
            return true
        }
        guard enter(dir, name) else { return false }
        var whole = true
        while let top = frames.last {
            if let entry = frames[frames.count - 1].names.popLast() {
                if entry.bytes.withCString({ unlinkat(top.folder.fd, $0, 0) }) == 0 { continue }
                if frames.count >= maximumDepth || !enter(top.folder.fd, entry) { whole = false }
                continue
            }
            frames.removeLast()
            let parent = frames.last?.folder.fd ?? dir
            if top.name.bytes.withCString({ unlinkat(parent, $0, AT_REMOVEDIR) }) != 0 { whole = false }
        }
        return whole
    }
}

/// Which file a name held and in what state: inode, size and modification
/// time.
struct FileIdentity: Equatable {
    var inode: ino_t
    var size: off_t
    var seconds: Int
    var nanoseconds: Int

    init(_ info: stat) {
        inode = info.st_ino
        size = info.st_size
        seconds = info.st_mtim.tv_sec
        nanoseconds = info.st_mtim.tv_nsec
    }
}

/// The entries a folder copy took, by name and identity, so that removing
/// the source removes only what was copied: anything added or changed
/// meanwhile stays.
struct CopiedTree {
    var files: [(FileName, FileIdentity)] = []
    var folders: [(FileName, FileIdentity, CopiedTree)] = []

    /// Whether `folder` holds exactly these entries, in the states copied
    /// (the journal file aside).
    func matches(_ folder: FolderDescriptor) -> Bool {
        guard let names = try? folder.names() else { return false }
        let present = Set(names.filter { $0 != FolderMoveJournal.journalName })
        guard present == Set(files.map(\.0) + folders.map(\.0)) else { return false }
        for (name, identity) in files {
            guard case .success(let info) = folder.status(of: name), FileIdentity(info) == identity else { return false }
        }
        for (name, identity, tree) in folders {
            guard case .success(let info) = folder.status(of: name), info.st_ino == identity.inode,
                  let inner = try? folder.openFolder(name, displayPath: name.escaped), tree.matches(inner) else { return false }
        }
        return true
    }

    func remove(from folder: FolderDescriptor) -> String? {
        for (name, identity) in files {
            guard case .success(let info) = folder.status(of: name), FileIdentity(info) == identity else { continue }
            if name.bytes.withCString({ unlinkat(folder.fd, $0, 0) }) != 0 && errno != ENOENT {
                return "\(name) could not be removed from the original: \(SystemError.current)"
            }
        }
        for (name, identity, tree) in folders {
            guard case .success(let info) = folder.status(of: name), info.st_ino == identity.inode else { continue }
            guard let inner = try? folder.openFolder(name, displayPath: name.escaped) else { continue }
            if let problem = tree.remove(from: inner) { return problem }
            if name.bytes.withCString({ unlinkat(folder.fd, $0, AT_REMOVEDIR) }) != 0 && errno != ENOENT {
                return "\(name) was kept in the original: \(SystemError.current)"
            }
        }
        return nil
    }
}
