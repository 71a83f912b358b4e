import CLinuxCalls
import SystemBase

#if canImport(Glibc)
    import Glibc
#endif

/// Moves an item to a folder on another file system: the copy is made in
/// the destination under no final name (an unnamed `O_TMPFILE` file, or an
/// entry of the pass's `StagingFolder`, which only the running user can
/// enter), synced, published without replacing anything, and only then is
/// the source removed. Mode and modification time are kept; as root, the
/// owner and group too, and an item whose owner cannot be kept is not
/// published. Set-ID bits only with the owner.
///
/// A file is set aside (`SetAside`) before it is copied: that proves it can
/// be removed afterwards (one that cannot is not copied, so no run copies
/// it twice), and no writer opening it by name reaches it any more. A read
/// lease held from then on makes any later writer wait, and the lease still
/// held with the file unchanged is checked just before the source goes: a
/// write is never lost between the check and the removal. A folder is
/// copied in place (writers reach its files by path), each of its files
/// subject to the settle rules a single file is, then set aside once its
/// copy is published; each file is removed only unchanged and with no
/// writer.
final class CrossDeviceCopy: Placement {
    /// The deepest folder nesting copied.
    static let maximumDepth = 256

    private enum Prepared {
        case unnamedFile(fd: Int32)
        /// An entry of the staging folder; a folder's own descriptor, to
        /// give it its mode and times once published.
        case staged(FileName, StagingFolder, folder: FolderDescriptor?)
        case link(target: [UInt8])
    }

    private let source: FolderDescriptor
    private let name: FileName
    private let destination: FolderDescriptor
    /// The destination as records name it.
    private let recordedDestination: CopyDestination
    private let settle: SettlePolicy
    private let shared: CrossDeviceState
    private let isKnownExtension: (ArraySlice<UInt8>) -> Bool
    private var prepared: Prepared?
    /// What was copied, to remove from the source once the copy is published.
    private var copied: CopiedTree?
    /// The set-aside source file, open read-only (holding the lease, if any).
    private var sourceFD: Int32 = -1
    private var holdsLease = false
    private var sourceStatus = stat()
    private var setAside: SetAside?
    /// The source folder, held open with an exclusive `flock` from before
    /// its copy until it is set aside (or the copy is given up).
    private var lockedFolder: FolderDescriptor?
    /// The inode and name of the published copy.
    private var publishedInode: ino_t = 0
    private var published: FileName?

    /// Why no copy was made: the item is in the Inbox as it was.
    enum Failure: Error {
        /// Another process moved or removed the source first (or holds it
        /// to copy it).
        case sourceGone
        /// The item is not ready (a writer has it open, it changed while it
        /// was copied, a file in the folder has not settled): it waits.
        case notReady(InboxProcessor.WaitReason)
        /// The copy failed, for this reason.
        case failed(InboxProcessor.ItemFailure)

        /// A failure of `code` described by `message`.
        static func failed(
            _ code: InboxProcessor.ItemFailure.Code, _ message: String, systemError: SystemError? = nil
        ) -> Failure {
            .failed(InboxProcessor.ItemFailure(code, message, systemError: systemError))
        }

        /// The failure of the system call `error`, told by `message`.
        static func system(_ message: String, _ error: SystemError) -> Failure {
            .failed(.system(message, error))
        }

        /// The failure of `call` (on `path`) with the current errno, told
        /// as `what: REASON`.
        static func current(_ what: String, _ call: String, path: String? = nil) -> Failure {
            let error = SystemError.current(call, path: path)
            return .system("\(what): \(SystemError(error.code))", error)
        }
    }

    /// How a published copy ended.
    enum Completion {
        case moved
        /// Written to after it was copied: the copy was withdrawn and the item given back.
        case waiting(InboxProcessor.WaitReason)
        case failed(InboxProcessor.ItemFailure)
    }

    init(
        source: FolderDescriptor, name: FileName, destination: CopyDestination, settle: SettlePolicy,
        shared: CrossDeviceState, isKnownExtension: @escaping (ArraySlice<UInt8>) -> Bool
    ) {
        self.source = source
        self.name = name
        self.destination = destination.folder
        recordedDestination = destination
        self.settle = settle
        self.shared = shared
        self.isKnownExtension = isKnownExtension
    }

    deinit {
        discard()
        giveBack()
    }

    /// Makes the unpublished copy. Throws `sourceGone` when another process
    /// has taken the source, `notReady` when it is not ready.
    func prepare() throws(Failure) {
        let info: stat
        switch source.status(of: name) {
        case .success(let status): info = status
        case .failure(let error) where error.code == ENOENT: throw .sourceGone
        case .failure(let error): throw .failed(InboxProcessor.ItemFailure(error))
        }
        sourceStatus = info
        switch info.kind {
        case .regular: try prepareFile()
        case .symbolicLink:
            try checkRemovable()
            prepared = .link(target: try Self.readLink(source.fd, name))
        case .directory:
            try checkRemovable()
            try lockFolder(info)
            let staging = try stagingFolder()
            let entry = staging.newEntryName()
            guard entry.bytes.withCString({ mkdirat(staging.folder.fd, $0, 0o700) }) == 0 else {
                let error = SystemError.current("mkdirat", path: entry.escaped)
                throw .system("cannot create a copy in \(destination.path): \(error.reason)", error)
            }
            prepared = .staged(entry, staging, folder: nil)
            var tree = CopiedTree()
            do {
                guard let from = lockedFolder else { throw Failure.sourceGone }
                let to = try staging.folder.openFolder(entry, displayPath: name.escaped)
                prepared = .staged(entry, staging, folder: to)
                try copyFolder(from: from, to: to, record: &tree, depth: 0)
                // A folder the owner may not write keeps mode 0700 until it
                // is published: moving it out of the staging folder needs
                // that right (its `..` entry changes).
                try Self.applyMetadata(
                    info, toFile: to.fd, mode: info.st_mode & S_IWUSR != 0 || geteuid() == 0)
                to.sync()
                // Published only when whole: an entry added, removed or
                // changed while the copy was made leaves the folder for the
                // next run rather than splitting it in two.
                guard tree.matches(from) else { throw Failure.notReady(.changedRecently(secondsAgo: 0)) }
            } catch let error as SystemError {
                throw .failed(InboxProcessor.ItemFailure(error))
            } catch let error as Failure {
                throw error
            } catch {
                throw .failed(.other, "\(error)")
            }
            copied = tree
            // Set aside before the copy is published, the record naming the
            // copy before it is (`place`): a run killed once the copy is out
            // leaves a record of it for the next, never a whole folder to copy again.
            try setAsideSource()
        default:
            throw .failed(.uncopyableKind, "cannot copy this kind of file")
        }
    }

    func place(as target: FileName) -> PlacementResult {
        guard let prepared else { return .failed(InboxProcessor.ItemFailure(.other, "nothing was copied")) }
        let result: Int32
        switch prepared {
        case .unnamedFile(let fd):
            var info = stat()
            if let setAside, fstat(fd, &info) == 0 { try? setAside.record(copy: target, inode: UInt64(info.st_ino)) }
            result = target.bytes.withCString { uti_link_open_file(fd, destination.fd, $0) }
        case .staged(let entry, let staging, _):
            if let setAside, case .success(let info) = staging.folder.status(of: entry) {
                try? setAside.record(copy: target, inode: UInt64(info.st_ino))
            }
            result = entry.bytes.withCString { from in
                target.bytes.withCString { to in uti_rename_noreplace(staging.folder.fd, from, destination.fd, to) }
            }
        case .link(let linkTarget):
            result = linkTarget.withCString { text in
                target.bytes.withCString { to in symlinkat(text, destination.fd, to) }
            }
            if result == 0 {
                // As root, the link is the original's owner's, or it is not published.
                do { try Ownership.keep(sourceStatus, onLink: target, in: destination.fd) } catch {
                    _ = target.bytes.withCString { unlinkat(destination.fd, $0, 0) }
                    return .failed(InboxProcessor.ItemFailure(error, context: "cannot keep the owner"))
                }
            }
        }
        if result == 0 {
            var info = stat()
            switch prepared {
            case .unnamedFile(let fd):
                if fstat(fd, &info) == 0 { publishedInode = info.st_ino }
                close(fd)
            case .staged(_, _, let folder?):
                // Its own mode and times, which the move may have changed.
                if fstat(folder.fd, &info) == 0 { publishedInode = info.st_ino }
                try? Self.applyMetadata(sourceStatus, toFile: folder.fd, owner: false)
            default:
                if case .success(let placed) = destination.status(of: target) { publishedInode = placed.st_ino }
            }
            published = target
            self.prepared = nil
            destination.sync()
            return .placed
        }
        let error = SystemError.current
        if error.code == EEXIST { return .taken }
        let call: String =
            switch prepared {
            case .unnamedFile: "linkat"
            case .staged: "renameat2"
            case .link: "symlinkat"
            }
        return .failed(
            .system("cannot publish the copy: \(error)", SystemError(error.code, call: call, path: target.escaped)))
    }

    /// Removes the source once the copy is published as `target`; a file
    /// written to since it was copied (or with a writer waiting for it)
    /// stays instead, and the copy is withdrawn.
    func complete(as target: FileName) -> Completion {
        switch sourceStatus.kind {
        case .regular: return completeFile(target)
        case .directory: return completeFolder(target)
        default:
            guard case .success(let now) = source.status(of: name) else { return .moved }
            guard now.st_ino == sourceStatus.st_ino && now.st_dev == sourceStatus.st_dev else {
                return .failed(
                    InboxProcessor.ItemFailure(
                        .originalKept,
                        "copied as \(target.escaped), but the original was replaced meanwhile and was kept"))
            }
            let removed = name.bytes.withCString { unlinkat(source.fd, $0, 0) }
            if removed == 0 || errno == ENOENT { return .moved }
            let error = SystemError.current
            return .failed(
                InboxProcessor.ItemFailure(
                    .originalKept, "copied as \(target.escaped), but the original was kept: \(error)",
                    systemError: SystemError(error.code, call: "unlinkat", path: name.escaped)))
        }
    }

    private func completeFile(_ target: FileName) -> Completion {
        guard let setAside else {
            return .failed(
                InboxProcessor.ItemFailure(
                    .originalKept, "copied as \(target.escaped), but the original was not set aside"))
        }
        guard sourceIsUnchanged() else {
            if withdraw(target) {
                giveBack()
                return .waiting(.changedRecently(secondsAgo: 0))
            }
            let back = giveBack().map { " (the original is \($0.escaped) again)" } ?? ""
            return .failed(
                InboxProcessor.ItemFailure(
                    .originalKept,
                    "changed after it was copied; both the original and the copy \(target.escaped) were kept\(back)"))
        }
        if SetAside.itemName.bytes.withCString({ unlinkat(setAside.folder.fd, $0, 0) }) != 0 && errno != ENOENT {
            let problem = SystemError.current
            let back = giveBack().map { "was kept as \($0.escaped)" } ?? "was kept"
            return .failed(
                InboxProcessor.ItemFailure(
                    .originalKept, "copied as \(target.escaped), but the original \(back): \(problem)",
                    systemError: SystemError(problem.code, call: "unlinkat", path: name.escaped)))
        }
        close(sourceFD)
        sourceFD = -1
        self.setAside = nil
        if let rest = setAside.end(left: "what was written to it meanwhile", isKnownExtension: isKnownExtension) {
            return .failed(InboxProcessor.ItemFailure(.originalKept, "copied, but \(rest)"))
        }
        return .moved
    }

    private func completeFolder(_ target: FileName) -> Completion {
        guard let tree = copied, let aside = setAside else {
            return .failed(
                InboxProcessor.ItemFailure(
                    .originalKept, "copied as \(target.escaped), but the original folder was kept"))
        }
        // From here what is left of it stays set aside, its record naming the copy, for a later run to finish.
        setAside = nil
        do {
            let folder = try aside.folder.openFolder(SetAside.itemName, displayPath: name.escaped)
            if let problem = tree.remove(from: folder, settle: settle) {
                return .failed(
                    InboxProcessor.ItemFailure(
                        .originalKept, "copied, but \(problem.message) (a later run finishes it)",
                        systemError: problem.systemError))
            }
        } catch {
            return .failed(
                InboxProcessor.ItemFailure(
                    .originalKept,
                    "copied, but the original could not be opened to remove it: \(error) (a later run finishes it)",
                    systemError: error))
        }
        _ = SetAside.itemName.bytes.withCString { unlinkat(aside.folder.fd, $0, AT_REMOVEDIR) }
        let left = "what it held that was not copied as it is now (added, changed or still being written)"
        return aside.end(left: left, isKnownExtension: isKnownExtension).map {
            .failed(InboxProcessor.ItemFailure(.originalKept, "copied, but \($0)"))
        } ?? .moved
    }

    /// Whether the set-aside file still is exactly what was copied (size,
    /// modification and change times), and no process has asked to write it
    /// since its lease was taken.
    private func sourceIsUnchanged() -> Bool {
        var now = stat()
        guard sourceFD >= 0, fstat(sourceFD, &now) == 0 else { return false }
        if holdsLease && uti_lease_held(sourceFD) != 1 { return false }
        return now.st_size == sourceStatus.st_size
            && now.st_mtim.tv_sec == sourceStatus.st_mtim.tv_sec && now.st_mtim.tv_nsec == sourceStatus.st_mtim.tv_nsec
            && now.st_ctim.tv_sec == sourceStatus.st_ctim.tv_sec && now.st_ctim.tv_nsec == sourceStatus.st_ctim.tv_nsec
    }

    /// Removes a published copy of a file again (the source changed after
    /// it was copied), only if `target` still names that copy.
    private func withdraw(_ target: FileName) -> Bool {
        guard case .success(let info) = destination.status(of: target), info.st_ino == publishedInode else {
            return false
        }
        return target.bytes.withCString { unlinkat(destination.fd, $0, 0) } == 0
    }

    /// Gives a set-aside file back to the Inbox; the name it has there.
    @discardableResult
    private func giveBack() -> FileName? {
        if sourceFD >= 0 {
            close(sourceFD)
            sourceFD = -1
        }  // ends the lease: a waiting writer goes on
        guard let setAside else { return nil }
        self.setAside = nil
        return setAside.giveBack(isKnownExtension: isKnownExtension)
    }

    /// Throws away an unpublished copy.
    func discard() {
        guard let prepared else { return }
        switch prepared {
        case .unnamedFile(let fd): close(fd)
        case .staged(let entry, let staging, _): Self.removeTree(in: staging.folder.fd, entry)
        case .link: break
        }
        self.prepared = nil
    }

    // MARK: Files

    /// Moves the source into a hidden folder of the Inbox, recorded
    /// (`SetAside`): from then on a killed run is finished by the next.
    @discardableResult
    private func setAsideSource() throws(Failure) -> SetAside {
        let records: RecordFolder
        do { records = try shared.records() } catch { throw .failed(error) }
        do {
            let aside = try SetAside.begin(name, in: source, to: recordedDestination, records: records)
            setAside = aside
            return aside
        } catch {
            switch error {
            case .gone: throw .sourceGone
            case .notRemovable(let reason):
                throw .failed(
                    .notRemovable, "cannot be removed from the Inbox (\(reason)), so it is not copied",
                    systemError: reason)
            case .failed(let reason): throw .system("cannot be set aside for the move: \(reason)", reason)
            }
        }
    }

    private func prepareFile() throws(Failure) {
        try checkRemovable()
        let aside = try setAsideSource()
        let fd = SetAside.itemName.bytes.withCString {
            openat(aside.folder.fd, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        }
        var info = stat()
        guard fd >= 0, fstat(fd, &info) == 0, info.isRegularFile else {
            let problem = SystemError.current
            let call = fd < 0 ? "openat" : "fstat"
            if fd >= 0 { close(fd) }
            giveBack()
            throw .system("cannot read: \(problem)", SystemError(problem.code, call: call, path: name.escaped))
        }
        sourceFD = fd
        sourceStatus = info
        // A writer that opened it before it was set aside still holds it:
        // it waits, as a single file in the Inbox would. Without one, the
        // lease now held makes any later writer wait until this run is done.
        switch uti_has_writer(fd) {
        case 0: holdsLease = true
        case 1 where settle.writerMatters(changed: info):
            giveBack()
            throw .notReady(.openForWriting)
        default: break
        }
        let mode = mode_t(info.st_mode & 0o7777)
        let unnamed = uti_open_unnamed_file(destination.fd, mode & 0o777 | 0o600)
        if unnamed >= 0 {
            prepared = .unnamedFile(fd: unnamed)
            try Self.copyContents(from: fd, to: unnamed, info)
            try checkUnchanged(fd, since: info)
            return
        }
        guard [EOPNOTSUPP, EISDIR, EINVAL, ENOENT].contains(errno) else {
            let problem = SystemError.current
            giveBack()
            throw .system(
                "cannot create a file in \(destination.path): \(problem)",
                SystemError(problem.code, call: "openat", path: destination.path))
        }
        let staging: StagingFolder
        do { staging = try stagingFolder() } catch {
            giveBack()
            throw error
        }
        let entry = staging.newEntryName()
        let out = entry.bytes.withCString {
            openat(staging.folder.fd, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        }
        guard out >= 0 else {
            let problem = SystemError.current
            giveBack()
            throw .system(
                "cannot create a copy in \(destination.path): \(problem)",
                SystemError(problem.code, call: "openat", path: entry.escaped))
        }
        prepared = .staged(entry, staging, folder: nil)
        defer { close(out) }
        try Self.copyContents(from: fd, to: out, info)
        try checkUnchanged(fd, since: info)
    }

    /// A file written to while it was copied is given back for the next run.
    private func checkUnchanged(_ fd: Int32, since before: stat) throws(Failure) {
        var after = stat()
        guard fstat(fd, &after) == 0, FileIdentity(after) == FileIdentity(before) else {
            throw .notReady(.changedRecently(secondsAgo: 0))
        }
    }

    /// Copies the `info.st_size` bytes of `from` to `to`, data segment by
    /// data segment (`SEEK_DATA`/`SEEK_HOLE`), so that the holes of a sparse
    /// file stay holes; then its metadata, and syncs it. A file that grows
    /// meanwhile is caught by the caller's unchanged check.
    private static func copyContents(from: Int32, to: Int32, _ info: stat) throws(Failure) {
        let size = off_t(info.st_size)
        // Past `ulimit -f` a write would end the process, copy half made.
        do { try checkFileSizeLimit(Int(size), call: "write") } catch {
            throw .system("cannot copy: \(SystemError(EFBIG)) (more than this process may write: ulimit -f)", error)
        }
        var offset: off_t = 0
        while offset < size {
            var data = uti_seek_data(from, offset)
            if data < 0 {
                if errno == ENXIO { break }  // only a hole is left
                data = offset  // no hole support: all data
            }
            guard data < size else { break }
            var hole = uti_seek_hole(from, data)
            if hole < 0 || hole > size { hole = size }
            try copyRange(from: from, to: to, start: data, end: hole)
            offset = hole
        }
        guard ftruncate(to, size) == 0 else { throw .current("cannot write the copy", "ftruncate") }
        do { try applyMetadata(info, toFile: to) } catch {
            throw .system("cannot keep owner, mode and time: \(error)", error)
        }
        guard fsync(to) == 0 else { throw .current("cannot sync the copy", "fsync") }
    }

    /// Bytes `start..<end` of `from` to the same offsets of `to`.
    private static func copyRange(from: Int32, to: Int32, start: off_t, end: off_t) throws(Failure) {
        var input = start, output = start
        var useRange = true
        var buffer: [UInt8] = []
        while input < end {
            let length = Int(min(end - input, 1 << 30))
            if useRange {
                let n = retryingInterrupts { uti_copy_range_at(from, &input, to, &output, length) }
                if n > 0 { continue }
                if n == 0 { break }  // the file shrank: the unchanged check says so
                guard [EXDEV, ENOSYS, EOPNOTSUPP, EINVAL].contains(errno) else {
                    throw .current("cannot copy", "copy_file_range")
                }
                useRange = false
                continue
            }
            if buffer.isEmpty { buffer = [UInt8](repeating: 0, count: 1 << 16) }
            let n = retryingInterrupts {
                buffer.withUnsafeMutableBytes { pread(from, $0.baseAddress, min($0.count, length), input) }
            }
            if n < 0 { throw .current("cannot copy", "pread") }
            if n == 0 { break }
            var done = 0
            while done < n {
                let written = retryingInterrupts {
                    buffer.withUnsafeBytes { pwrite(to, $0.baseAddress! + done, n - done, output + off_t(done)) }
                }
                if written <= 0 {
                    let error = SystemError(written < 0 ? errno : EIO, call: "pwrite")
                    throw .system("cannot write the copy: \(SystemError(error.code))", error)
                }
                done += written
            }
            input += off_t(n)
            output += off_t(n)
        }
    }

    /// Owner, mode and access and modification times of `info`, on a file
    /// or folder (the owner unless `owner` is false, the mode unless `mode`
    /// is). As root the owner and group are kept, or the call fails
    /// (`Ownership`); a set-user-ID or set-group-ID bit is kept only when
    /// the copy has the original's owner or group, so a copy made by root of
    /// another user's program never becomes a set-user-ID root program (as
    /// `cp -p` clears them).
    private static func applyMetadata(
        _ info: stat, toFile fd: Int32, owner: Bool = true, mode applyMode: Bool = true
    ) throws(SystemError) {
        if owner { try Ownership.keep(info, onFile: fd) }
        var mine = stat()
        guard fstat(fd, &mine) == 0 else { throw .current }
        var mode = mode_t(info.st_mode & 0o7777)
        if mine.st_uid != info.st_uid { mode &= ~mode_t(S_ISUID) }
        if mine.st_gid != info.st_gid { mode &= ~mode_t(S_ISGID) }
        if applyMode { guard fchmod(fd, mode) == 0 else { throw .current("fchmod") } }
        var times = [info.st_atim, info.st_mtim]
        guard futimens(fd, &times) == 0 else { throw .current }
    }

    private static func readLink(_ dir: Int32, _ name: FileName) throws(Failure) -> [UInt8] {
        do { return try LinkTarget.read(dir, name.bytes) } catch {
            if error.code == ENOENT { throw .sourceGone }
            throw .system("cannot read the link: \(error)", error)
        }
    }

    /// An item that cannot be removed from the Inbox afterwards is not
    /// copied: every later run would publish another copy of it.
    private func checkRemovable() throws(Failure) {
        guard let problem = SetAside.removalProblem(name, in: source) else { return }
        if problem.code == ENOENT { throw .sourceGone }
        throw .failed(
            .notRemovable, "cannot be removed from the Inbox (\(problem)), so it is not copied", systemError: problem)
    }

    /// Opens the source folder and takes its lock, so that one run at a
    /// time copies it: another run finds it locked, or no longer under its
    /// name once locked (set aside by the run that held the lock), and
    /// takes it for gone rather than publishing a second copy.
    private func lockFolder(_ info: stat) throws(Failure) {
        let folder: FolderDescriptor
        do { folder = try source.openFolder(name, displayPath: name.escaped) } catch {
            throw error.code == ENOENT ? .sourceGone : .failed(InboxProcessor.ItemFailure(error))
        }
        guard retryingInterrupts({ flock(folder.fd, LOCK_EX | LOCK_NB) }) == 0 else {
            if errno == EWOULDBLOCK { throw .sourceGone }
            throw .current("cannot lock it", "flock")
        }
        guard case .success(let now) = source.status(of: name), now.st_ino == info.st_ino, now.st_dev == info.st_dev
        else { throw .sourceGone }
        lockedFolder = folder
    }

    /// The pass's staging folder, or why there is none.
    private func stagingFolder() throws(Failure) -> StagingFolder {
        do { return try shared.stagingFolder(in: recordedDestination) } catch { throw .failed(error) }
    }

    // MARK: Folders

    private func copyFolder(from: FolderDescriptor, to: FolderDescriptor, record: inout CopiedTree, depth: Int) throws {
        guard depth < Self.maximumDepth else {
            throw Failure.failed(.tooDeep, "nested deeper than \(Self.maximumDepth) folders")
        }
        // What cannot be removed from the Inbox afterwards is not copied:
        // every later run would publish another copy of it.
        guard faccessat(from.fd, ".", W_OK | X_OK, AT_EACCESS) == 0 else {
            let error = SystemError.current
            throw Failure.failed(
                .notRemovable, "\(from.path) could not be emptied afterwards (\(error)); not copied",
                systemError: SystemError(error.code, call: "faccessat", path: from.path))
        }
        for entry in try from.names() {
            let info = try from.status(of: entry).get()
            switch info.kind {
            case .regular:
                // Each file waits as it would alone: a folder with a file
                // still being written is left for a later run.
                if let wait = settle.wait(for: info, kind: .file, entry, in: from) { throw Failure.notReady(wait) }
                let input = entry.bytes.withCString {
                    openat(from.fd, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
                }
                guard input >= 0 else { throw Failure.current("cannot read \(entry)", "openat", path: entry.escaped) }
                defer { close(input) }
                let output = entry.bytes.withCString {
                    openat(to.fd, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
                }
                guard output >= 0 else {
                    throw Failure.current("cannot create \(entry)", "openat", path: entry.escaped)
                }
                defer { close(output) }
                try Self.copyContents(from: input, to: output, info)
                record.files.append((entry, FileIdentity(info)))
            case .symbolicLink:
                let target = try Self.readLink(from.fd, entry)
                let made = target.withCString { text in entry.bytes.withCString { symlinkat(text, to.fd, $0) } }
                guard made == 0 else {
                    throw Failure.current("cannot copy the link \(entry)", "symlinkat", path: entry.escaped)
                }
                do { try Ownership.keep(info, onLink: entry, in: to.fd) } catch {
                    throw Failure.system("cannot keep the owner of \(entry.escaped): \(error)", error)
                }
                record.files.append((entry, FileIdentity(info)))
            case .directory:
                let made = entry.bytes.withCString { mkdirat(to.fd, $0, 0o700) }
                guard made == 0 else { throw Failure.current("cannot create \(entry)", "mkdirat", path: entry.escaped) }
                let inner = try from.openFolder(entry, displayPath: entry.escaped)
                let innerCopy = try to.openFolder(entry, displayPath: entry.escaped)
                var sub = CopiedTree()
                try copyFolder(from: inner, to: innerCopy, record: &sub, depth: depth + 1)
                try Self.applyMetadata(info, toFile: innerCopy.fd)
                innerCopy.sync()
                record.folders.append((entry, FileIdentity(info), sub))
            default:
                throw Failure.failed(
                    .uncopyableKind, "holds \(entry), which is not a file, folder or link and cannot be copied")
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

    /// Whether `folder` holds exactly these entries, in the states copied.
    func matches(_ folder: FolderDescriptor) -> Bool {
        guard let names = try? folder.names() else { return false }
        let present = Set(names)
        guard present == Set(files.map(\.0) + folders.map(\.0)) else { return false }
        for (name, identity) in files {
            guard case .success(let info) = folder.status(of: name), FileIdentity(info) == identity else {
                return false
            }
        }
        for (name, identity, tree) in folders {
            guard case .success(let info) = folder.status(of: name), info.st_ino == identity.inode,
                let inner = try? folder.openFolder(name, displayPath: name.escaped), tree.matches(inner)
            else { return false }
        }
        return true
    }

    /// Removes from `folder` the entries copied, in the states copied; a
    /// file some process has open for writing stays (with its folder), as
    /// it would have waited alone (changed within the writer window).
    func remove(from folder: FolderDescriptor, settle: SettlePolicy) -> (message: String, systemError: SystemError)? {
        for (name, identity) in files {
            let fd = name.bytes.withCString { openat(folder.fd, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
            var info = stat()
            if fd >= 0 {
                defer { close(fd) }
                // The lease (held until the close) keeps a writer waiting until the file is gone.
                guard fstat(fd, &info) == 0, FileIdentity(info) == identity,
                    !(uti_has_writer(fd) == 1 && settle.writerMatters(changed: info))
                else { continue }
            } else {
                // A link, or a file that cannot be read: its status decides.
                guard case .success(let found) = folder.status(of: name), FileIdentity(found) == identity else {
                    continue
                }
            }
            if name.bytes.withCString({ unlinkat(folder.fd, $0, 0) }) != 0 && errno != ENOENT {
                let error = SystemError.current
                return (
                    "\(name) could not be removed from the original: \(error)",
                    SystemError(error.code, call: "unlinkat", path: name.escaped)
                )
            }
        }
        for (name, identity, tree) in folders {
            guard case .success(let info) = folder.status(of: name), info.st_ino == identity.inode else { continue }
            guard let inner = try? folder.openFolder(name, displayPath: name.escaped) else { continue }
            if let problem = tree.remove(from: inner, settle: settle) { return problem }
            if name.bytes.withCString({ unlinkat(folder.fd, $0, AT_REMOVEDIR) }) != 0 && errno != ENOENT
                && errno != ENOTEMPTY && errno != EEXIST
            {
                let error = SystemError.current
                return (
                    "\(name) was kept in the original: \(error)",
                    SystemError(error.code, call: "unlinkat", path: name.escaped)
                )
            }
        }
        return nil
    }
}
