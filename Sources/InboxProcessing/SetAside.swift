import CLinuxCalls
import SystemBase

#if canImport(Glibc)
    import Glibc
#endif

/// An Inbox item on its way out across file systems, so that a run killed
/// at any moment is finished by the next, never loses the item and never
/// publishes a part of a package as a new one.
///
/// Before its source is removed, an item is moved into a hidden folder of
/// the Inbox, `.uti-inbox-removing-MACHINE-PID-START-N-A` (mode 0700), as
/// `item`, beside a `journal` naming its first name and, once the copy is
/// published, the copy's name in Documents. No program finds the item under
/// its name any more: a writer that opens it by name makes a new file,
/// which a later run takes, and no run takes it for a document.
///
/// A later run that finds such a folder of a run that has ended
/// (`RunIdentity`) removes from the item what the published copy holds, and
/// gives anything else back to the Inbox under the item's first name (or a
/// numbered one when that is taken).
///
/// Recovery state is trusted only as this program writes it: names of the
/// exact pattern (`.uti-inbox-report.partial` is a document like any
/// other), a folder and a journal of the running user that no one else may
/// write, journal fields that are single path components (never `/`, `.` or
/// `..`: nothing outside the Inbox and Documents is named), and walks
/// bounded in depth.
final class SetAside {
    static let journalName = FileName("journal")
    static let itemName = FileName("item")
    static let removingPrefix = Array(".uti-inbox-removing-".utf8)
    static let partialPrefix = Array(".uti-inbox-".utf8)
    static let partialSuffix = Array(".partial".utf8)

    let inbox: FolderDescriptor
    /// The hidden folder's name in the Inbox.
    let hidden: FileName
    /// The item's name in the Inbox before it was set aside.
    let original: FileName
    let folder: FolderDescriptor

    private init(inbox: FolderDescriptor, hidden: FileName, original: FileName, folder: FolderDescriptor) {
        self.inbox = inbox
        self.hidden = hidden
        self.original = original
        self.folder = folder
    }

    // MARK: Names

    /// A hidden name of this run: `PREFIX` + `MACHINE-PID-START-N-A` + `suffix`.
    static func hiddenName(prefix: [UInt8], attempt: Int, suffix: [UInt8] = []) -> FileName {
        FileName(
            prefix + Array("\(RunIdentity.current.token)-\(UInt32.random(in: 0...UInt32.max))-\(attempt)".utf8) + suffix
        )
    }

    /// The run that wrote `name`, when it has the exact pattern of
    /// `hiddenName(prefix:attempt:suffix:)`; nil for any other name.
    static func writer(of name: FileName, prefix: [UInt8], suffix: [UInt8] = []) -> RunIdentity? {
        guard name.bytes.starts(with: prefix), name.bytes.count >= prefix.count + suffix.count,
            name.bytes.suffix(suffix.count).elementsEqual(suffix),
            let (run, rest) = RunIdentity.parse(name.bytes.dropFirst(prefix.count).dropLast(suffix.count))
        else { return nil }
        // N-A: the random number and the attempt.
        let parts = rest.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard parts.count == 2,
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 10 && $0.allSatisfy { $0 >= 48 && $0 <= 57 } })
        else { return nil }
        return run
    }

    /// Whether `name` in the Inbox is an item another run is moving right
    /// now: it is left to that run. Any other name is a document, however it
    /// looks (a finished run's folder is recovered first).
    static func isInternal(_ name: FileName) -> Bool {
        writer(of: name, prefix: removingPrefix)?.mayBeRunning ?? false
    }

    /// The run that wrote `name` as an unpublished copy in Documents, when
    /// it has the exact pattern.
    static func partialCopyWriter(_ name: FileName) -> RunIdentity? {
        writer(of: name, prefix: partialPrefix, suffix: partialSuffix)
    }

    /// Whether `name` is one path component as a journal may name it.
    static func isSingleComponent(_ name: [UInt8]) -> Bool {
        !name.isEmpty && name.count <= FileName.maximumLength && !name.contains(UInt8(ascii: "/")) && !name.contains(0)
            && name != [UInt8(ascii: ".")] && name != [UInt8(ascii: "."), UInt8(ascii: ".")]
    }

    // MARK: One item

    /// Why an item could not be set aside.
    enum Refusal: Error {
        /// Another process moved or removed it first.
        case gone
        /// It cannot be removed from the Inbox (no right to, a read-only
        /// file system): nothing is copied, so no run copies it twice.
        case notRemovable(SystemError)
        case failed(SystemError)
    }

    /// Moves `name` of `inbox` into a new hidden folder beside a journal
    /// naming it (and `copy`, the published copy with its inode, when there is one).
    static func begin(
        _ name: FileName, in inbox: FolderDescriptor,
        copy: (name: FileName, inode: UInt64)? = nil
    ) throws(Refusal) -> SetAside {
        if let problem = removalProblem(name, in: inbox) {
            throw problem.code == ENOENT ? .gone : .notRemovable(problem)
        }
        var made: FileName?
        for attempt in 0..<100 {
            let candidate = hiddenName(prefix: removingPrefix, attempt: attempt)
            if candidate.bytes.withCString({ mkdirat(inbox.fd, $0, 0o700) }) == 0 {
                made = candidate
                break
            }
            if errno != EEXIST { throw .failed(.current) }
        }
        guard let hidden = made else { throw .failed(SystemError(EEXIST)) }
        let folder: FolderDescriptor
        do { folder = try inbox.openFolder(hidden, displayPath: hidden.escaped) } catch {
            _ = hidden.bytes.withCString { unlinkat(inbox.fd, $0, AT_REMOVEDIR) }
            throw .failed(error)
        }
        let setAside = SetAside(inbox: inbox, hidden: hidden, original: name, folder: folder)
        do {
            try setAside.writeJournal(name.bytes + [0] + (copy.map { Self.copyRecord($0.name, inode: $0.inode) } ?? []))
        } catch {
            setAside.removeFolder()
            throw .failed(error)
        }
        let moved = name.bytes.withCString { from in
            itemName.bytes.withCString { to in uti_rename_noreplace(inbox.fd, from, folder.fd, to) }
        }
        if moved != 0 {
            let error = SystemError.current
            setAside.removeFolder()
            switch error.code {
            case ENOENT: throw .gone
            case EACCES, EPERM, EROFS, EBUSY: throw .notRemovable(error)
            default: throw .failed(error)
            }
        }
        inbox.sync()
        return setAside
    }

    /// Why `name` could not be removed from `inbox`, when it could not: the
    /// folder is not the user's to write, or it is sticky (as `/tmp` is) and
    /// neither it nor the item is the user's. The rename that sets an item
    /// aside is refused then too; asked first, so that a folder is not
    /// copied in vain.
    static func removalProblem(_ name: FileName, in inbox: FolderDescriptor) -> SystemError? {
        if faccessat(inbox.fd, ".", W_OK | X_OK, AT_EACCESS) != 0 { return .current }
        var folder = stat()
        guard fstat(inbox.fd, &folder) == 0 else { return .current }
        let user = geteuid()
        guard folder.st_mode & S_ISVTX != 0, user != 0, folder.st_uid != user else { return nil }
        switch inbox.status(of: name) {
        case .success(let item): return item.st_uid == user ? nil : SystemError(EPERM)
        case .failure(let error): return error
        }
    }

    /// Records in the journal the name a copy (the file or folder of
    /// `inode` in Documents) is published under, before it is: a run killed
    /// after the publication removes the original rather than giving it back
    /// for a second copy. The last record counts.
    func record(copy: FileName, inode: UInt64) throws(SystemError) {
        let fd = Self.journalName.bytes.withCString {
            openat(folder.fd, $0, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
        }
        guard fd >= 0 else { throw .current }
        defer { close(fd) }
        let record = Self.copyRecord(copy, inode: inode)
        let written = record.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == record.count, fsync(fd) == 0 else { throw .current }
    }

    private static func copyRecord(_ copy: FileName, inode: UInt64) -> [UInt8] {
        copy.bytes + [0] + Array(String(inode).utf8) + [0]
    }

    /// Gives the item back to the Inbox under its first name, or the first
    /// free numbered one when that is taken (a writer made a new file of
    /// that name meanwhile), and removes the hidden folder. The name it got,
    /// or nil when it could not be given back (then it stays set aside, for
    /// a later run's recovery).
    @discardableResult
    func giveBack(isKnownExtension: (ArraySlice<UInt8>) -> Bool) -> FileName? {
        guard let name = Self.giveBack(from: folder, to: inbox, original, isKnownExtension: isKnownExtension) else {
            return nil
        }
        removeFolder()
        return name
    }

    /// Removes the journal and the hidden folder once the item is gone; an
    /// item still there goes back to the Inbox. What happened to it then
    /// (`left`: what it is, as "what it held that was not copied").
    func end(left: String, isKnownExtension: (ArraySlice<UInt8>) -> Bool) -> String? {
        if folder.contains(Self.itemName) {
            guard let name = giveBack(isKnownExtension: isKnownExtension) else {
                return "\(left) stays in the Inbox as \(hidden.escaped)/item (it could not be given back)"
            }
            return "\(left) went back to the Inbox as \(name.escaped)"
        }
        removeFolder()
        return nil
    }

    private func writeJournal(_ record: [UInt8]) throws(SystemError) {
        let fd = Self.journalName.bytes.withCString {
            openat(folder.fd, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        }
        guard fd >= 0 else { throw .current }
        defer { close(fd) }
        let written = record.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == record.count, fsync(fd) == 0 else { throw .current }
    }

    private func removeFolder() {
        _ = Self.journalName.bytes.withCString { unlinkat(folder.fd, $0, 0) }
        _ = hidden.bytes.withCString { unlinkat(inbox.fd, $0, AT_REMOVEDIR) }
        inbox.sync()
    }

    private static func giveBack(
        from folder: FolderDescriptor, to inbox: FolderDescriptor, _ original: FileName,
        isKnownExtension: (ArraySlice<UInt8>) -> Bool
    ) -> FileName? {
        var candidate = original
        var numbered: NumberedName?
        for counter in 1...1000 {
            let moved = itemName.bytes.withCString { from in
                candidate.bytes.withCString { to in uti_rename_noreplace(folder.fd, from, inbox.fd, to) }
            }
            if moved == 0 { return candidate }
            if errno == ENOENT && !folder.contains(itemName) { return candidate }
            guard errno == EEXIST else { return nil }
            let split = numbered ?? NumberedName(original, isKnownExtension: isKnownExtension)
            numbered = split
            candidate = split.numbered(counter)
        }
        return nil
    }

    // MARK: Recovery

    /// What a run that ended midway left, and what recovery does with it.
    enum Recovery: Equatable, Sendable {
        /// A partial copy in Documents, removed.
        case partialCopy(FileName)
        /// An item set aside: what its copy holds is removed, the rest given back.
        case removal(hidden: FileName, original: FileName)
        /// A hidden folder of this program's with nothing left in it, removed.
        case emptyFolder(FileName)
    }

    /// The recovery state of runs that have ended: partial copies in
    /// `documents` and set-aside items in `inbox`, each only as this program
    /// writes it (see the type's notes). A hidden folder without a journal
    /// this program could have written is left for the pass, as a document.
    static func plan(inbox: FolderDescriptor, documents: FolderDescriptor) -> [Recovery] {
        var plan: [Recovery] = []
        let user = geteuid()
        for name in (try? documents.names()) ?? [] {
            guard let run = partialCopyWriter(name), !run.mayBeRunning,
                case .success(let info) = documents.status(of: name),
                info.st_uid == user || user == 0
            else { continue }
            plan.append(.partialCopy(name))
        }
        for name in (try? inbox.names()) ?? [] {
            guard let run = writer(of: name, prefix: removingPrefix), !run.mayBeRunning else { continue }
            if let (_, journal) = openOwnFolder(name, in: inbox) {
                plan.append(.removal(hidden: name, original: journal.original))
            } else if isOwnEmptyFolder(name, in: inbox) {
                // Killed after its journal went and before the folder did.
                plan.append(.emptyFolder(name))
            }
        }
        return plan
    }

    /// Carries out `plan(inbox:documents:)`. Returns a line for each entry
    /// it could not finish.
    static func recover(
        inbox: FolderDescriptor, documents: FolderDescriptor,
        isKnownExtension: (ArraySlice<UInt8>) -> Bool
    ) -> [String] {
        var problems: [String] = []
        for step in plan(inbox: inbox, documents: documents) {
            switch step {
            case .partialCopy(let name):
                if !CrossDeviceCopy.removeTree(in: documents.fd, name) {
                    problems.append(
                        "\(name.escaped): a partial copy of an interrupted run could not be removed whole; it is kept")
                }
            case .removal(let name, _):
                guard let (folder, journal) = openOwnFolder(name, in: inbox) else { continue }
                let copied = journal.copy.map { removeCopied(itemIn: folder, copy: $0, in: documents) } ?? false
                let setAside = SetAside(inbox: inbox, hidden: name, original: journal.original, folder: folder)
                let left =
                    copied
                    ? "what an interrupted run had not copied of it"
                    : "it was not copied by the interrupted run moving it, so it"
                if let rest = setAside.end(left: left, isKnownExtension: isKnownExtension) {
                    problems.append("\(journal.original.escaped): \(rest)")
                }
            case .emptyFolder(let name):
                _ = name.bytes.withCString { unlinkat(inbox.fd, $0, AT_REMOVEDIR) }
            }
        }
        return problems
    }

    struct Journal: Equatable {
        var original: FileName
        /// The published copy's name in Documents and its inode.
        var copy: (name: FileName, inode: UInt64)?

        static func == (a: Journal, b: Journal) -> Bool {
            a.original == b.original && a.copy?.name == b.copy?.name && a.copy?.inode == b.copy?.inode
        }
    }

    /// Whether `name` is an empty folder of the running user that no one else may write.
    private static func isOwnEmptyFolder(_ name: FileName, in inbox: FolderDescriptor) -> Bool {
        guard let folder = try? inbox.openFolder(name, displayPath: name.escaped) else { return false }
        var info = stat()
        guard fstat(folder.fd, &info) == 0, info.st_uid == geteuid(), info.st_mode & 0o022 == 0 else { return false }
        return (try? folder.names())?.isEmpty == true
    }

    /// The hidden folder `name` and its journal, when both are as this
    /// program writes them: a folder of the running user that no one else
    /// may write, holding a journal that is a regular file of the running
    /// user, not writable by others, of single path components
    /// each ended by a NUL byte: the first name, then any number of
    /// records of a copy (its name and its inode in decimal), the last of
    /// which counts. Nil otherwise.
    static func openOwnFolder(_ name: FileName, in inbox: FolderDescriptor) -> (FolderDescriptor, Journal)? {
        guard let folder = try? inbox.openFolder(name, displayPath: name.escaped) else { return nil }
        var info = stat()
        guard fstat(folder.fd, &info) == 0, info.st_uid == geteuid(), info.st_mode & 0o022 == 0 else { return nil }
        let fd = journalName.bytes.withCString { openat(folder.fd, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let limit = 64 * (FileName.maximumLength + 24)
        guard fstat(fd, &info) == 0, info.isRegularFile, info.st_uid == geteuid(), info.st_nlink == 1,
            info.st_mode & 0o022 == 0, info.st_size <= limit
        else { return nil }
        var buffer = [UInt8](repeating: 0, count: limit + 1)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0, n == Int(info.st_size), buffer[n - 1] == 0 else { return nil }
        let fields = buffer[..<(n - 1)].split(separator: 0, omittingEmptySubsequences: false).map(Array.init)
        guard fields.count % 2 == 1, isSingleComponent(fields[0]) else { return nil }
        var journal = Journal(original: FileName(fields[0]))
        for index in stride(from: 1, to: fields.count, by: 2) {
            let digits = fields[index + 1]
            guard isSingleComponent(fields[index]), !digits.isEmpty, digits.count <= 20,
                digits.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                let inode = UInt64(String(decoding: digits, as: UTF8.self))
            else { return nil }
            journal.copy = (FileName(fields[index]), inode)
        }
        return (folder, journal)
    }

    /// Removes the set-aside item, or what of it `copy` in `documents`
    /// holds too, when `copy` is the very file or folder the journal
    /// recorded (same inode, on Documents' file system): a file (or link)
    /// whole, a folder's entries of the same size and modification time
    /// (entered). Whether the copy was found.
    private static func removeCopied(
        itemIn folder: FolderDescriptor, copy: (name: FileName, inode: UInt64),
        in documents: FolderDescriptor
    ) -> Bool {
        var documentsInfo = stat()
        guard case .success(let item) = folder.status(of: itemName),
            case .success(let copied) = documents.status(of: copy.name), fstat(documents.fd, &documentsInfo) == 0,
            UInt64(copied.st_ino) == copy.inode, copied.st_dev == documentsInfo.st_dev,
            item.kind == copied.kind
        else { return false }
        switch item.kind {
        case .directory:
            guard let inner = try? folder.openFolder(itemName, displayPath: itemName.escaped),
                let innerCopy = try? documents.openFolder(copy.name, displayPath: copy.name.escaped)
            else { return true }
            removeCopied(from: inner, matching: innerCopy, depth: 0)
            _ = itemName.bytes.withCString { unlinkat(folder.fd, $0, AT_REMOVEDIR) }
        case .symbolicLink, .regular:
            if sameContents(item, copied) { _ = itemName.bytes.withCString { unlinkat(folder.fd, $0, 0) } }
        default: break
        }
        return true
    }

    /// Links are made anew (their times are not kept): any two match.
    private static func sameContents(_ a: stat, _ b: stat) -> Bool {
        a.isSymbolicLink
            || (a.st_size == b.st_size && a.st_mtim.tv_sec == b.st_mtim.tv_sec
                && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec)
    }

    /// Removes from `folder` each entry `copy` holds too (see `removeCopied(itemIn:copy:in:)`).
    private static func removeCopied(from folder: FolderDescriptor, matching copy: FolderDescriptor, depth: Int) {
        guard depth < CrossDeviceCopy.maximumDepth else { return }
        for name in (try? folder.names()) ?? [] {
            guard case .success(let info) = folder.status(of: name), case .success(let copied) = copy.status(of: name),
                info.kind == copied.kind
            else { continue }
            if info.isDirectory {
                guard let inner = try? folder.openFolder(name, displayPath: name.escaped),
                    let innerCopy = try? copy.openFolder(name, displayPath: name.escaped)
                else { continue }
                removeCopied(from: inner, matching: innerCopy, depth: depth + 1)
                _ = name.bytes.withCString { unlinkat(folder.fd, $0, AT_REMOVEDIR) }
            } else if sameContents(info, copied) {
                _ = name.bytes.withCString { unlinkat(folder.fd, $0, 0) }
            }
        }
    }
}
