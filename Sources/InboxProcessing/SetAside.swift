import CLinuxCalls
import SystemBase

#if canImport(Glibc)
    import Glibc
#endif

/// An Inbox item on its way out across file systems, so that a run killed
/// at any moment is finished by the next, never loses the item and never
/// publishes a part of a package as a new one.
///
/// Before its source is removed, an item is moved into a new folder of the
/// Inbox (mode 0700, a random name) as `item`. No program finds the item
/// under its name any more: a writer that opens it by name makes a new
/// file, which a later run takes.
///
/// What the folder is, the item's first name and, once the copy is
/// published, the copy's name and inode are kept in a `RunRecord` in the
/// running user's record folder, never beside the item. A later run that
/// finds the record of a run that has ended (`RunIdentity`) checks that the
/// folder is still the one recorded (device, inode, owner, mode), removes
/// from the item what the published copy holds, and gives anything else
/// back to the Inbox under the item's first name (or a numbered one when
/// that is taken). A folder no record names is a document, whatever its name.
final class SetAside {
    static let itemName = FileName("item")

    let inbox: FolderDescriptor
    /// The hidden folder's name in the Inbox.
    let hidden: FileName
    /// The item's name in the Inbox before it was set aside.
    let original: FileName
    let folder: FolderDescriptor
    /// Where the record naming the folder is, and its name there.
    private let records: RecordFolder
    private let recordName: FileName
    /// The record, while this run holds it open to add the copy.
    private let record: RunRecord?

    private init(
        inbox: FolderDescriptor, hidden: FileName, original: FileName, folder: FolderDescriptor,
        records: RecordFolder, recordName: FileName, record: RunRecord?
    ) {
        self.inbox = inbox
        self.hidden = hidden
        self.original = original
        self.folder = folder
        self.records = records
        self.recordName = recordName
        self.record = record
    }

    /// Whether `name` is one path component as a record may name it.
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

    /// Moves `name` of `inbox` into a new hidden folder, recorded in
    /// `records` before the item is moved into it; the copy in
    /// `destination` is added to the record (`record(copy:inode:)`) before
    /// it is published.
    static func begin(
        _ name: FileName, in inbox: FolderDescriptor, to destination: CopyDestination, records: RecordFolder
    ) throws(Refusal) -> SetAside {
        if let problem = removalProblem(name, in: inbox) {
            throw problem.code == ENOENT ? .gone : .notRemovable(problem)
        }
        guard let inboxID = FileID(of: inbox) else { throw .failed(.current("fstat", path: inbox.path)) }
        let made: (name: FileName, folder: FolderDescriptor, record: RunRecord)
        do {
            let destinationFields = try destination.fields()
            made = try RunRecord.makeRecordedFolder(
                .moving, prefix: ".uti-moving-", in: inbox, records: records,
                fields: { hidden in
                    destinationFields + [
                        RunRecord.field(inboxID.device), RunRecord.field(inboxID.inode), hidden.bytes, name.bytes,
                    ]
                },
                completion: [])
        } catch { throw .failed(error) }
        let (hidden, folder, record) = made
        let setAside = SetAside(
            inbox: inbox, hidden: hidden, original: name, folder: folder, records: records, recordName: record.name,
            record: record)
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

    /// Records the name a copy (the file or folder of `inode` in
    /// Documents) is published under, before it is: a run killed after the
    /// publication removes the original rather than giving it back for a
    /// second copy. The last record counts.
    func record(copy: FileName, inode: UInt64) throws(SystemError) {
        guard let record else { throw SystemError(EBADF, call: "write") }
        try record.append([copy.bytes, RunRecord.field(inode)])
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

    /// Removes the hidden folder and its record once the item is gone; an
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

    /// Removes the hidden folder (once empty), then the record naming it.
    private func removeFolder() {
        let removal = InboxProcessing.removeFolder(hidden, in: inbox, ifItIs: folder)
        inbox.sync()
        if removal == .removed {
            if let record { record.remove() } else { records.remove(recordName) }
        }
    }

    private static func giveBack(
        from folder: FolderDescriptor, to inbox: FolderDescriptor, _ original: FileName,
        isKnownExtension: (ArraySlice<UInt8>) -> Bool
    ) -> FileName? {
        var picker = NamePicker()
        let given = picker.search(
            for: original, alwaysNumbered: false, isKnownExtension: isKnownExtension, isTaken: inbox.contains
        ) { (candidate) -> NamePicker.Attempt<FileName?> in
            let moved = itemName.bytes.withCString { from in
                candidate.bytes.withCString { to in uti_rename_noreplace(folder.fd, from, inbox.fd, to) }
            }
            if moved == 0 { return .placed(candidate) }
            if errno == ENOENT && !folder.contains(itemName) { return .placed(candidate) }
            guard errno == EEXIST else { return .stopped(nil) }
            return .taken
        }
        return given ?? nil
    }

    // MARK: Recovery

    /// What a run that ended midway left, and what recovery does with it.
    enum Recovery {
        /// A staging folder of a destination folder (`in`), holding
        /// unpublished copies: removed.
        case staging(RecordedEntry, FileName, in: FolderDescriptor)
        /// An item set aside: what its copy in `destination` holds is
        /// removed, the rest given back.
        case removal(RecordedEntry, hidden: FileName, original: FileName, destination: FolderDescriptor)
        /// An item set aside whose destination folder cannot be found (gone,
        /// renamed, no longer the recorded one, or in another Documents):
        /// what its copy holds cannot be checked, so it is given back whole.
        case giveBack(RecordedEntry, hidden: FileName, original: FileName)
        /// The staging folder `name` of a destination folder that cannot be
        /// found where it was (removed, renamed or replaced by a link): its
        /// record is removed, and the copies it may still hold, wherever
        /// that folder went, are named so that they can be removed.
        case lostStaging(RecordedEntry, FileName)
        /// A hidden folder made just before its run ended, still empty,
        /// in `in` (the Inbox or a destination folder): removed.
        case emptyFolder(RecordedEntry, FileName, in: FolderDescriptor)
        /// A record whose folder is gone (or is no longer the one recorded):
        /// the record alone is removed.
        case stale(RecordedEntry)
    }

    /// What the records of runs that have ended ask of this Inbox and of
    /// `documents` with the folders of it copies went to. A record names
    /// the folder a copy went to by device and inode, and by its path below
    /// Documents (`CopyDestination`): that folder counts only when the path
    /// leads to it from this Documents (`locate(_:in:)`), whatever the rules
    /// of this run. A staging record of another Documents is left for a run
    /// over it; one whose folder cannot be found is stale. An item set
    /// aside in this Inbox whose destination cannot be found is given back
    /// whole. Each folder a record names counts only while it is the very
    /// folder recorded: same device and inode (once recorded), the running
    /// user's, mode 0700.
    static func plan(_ recorded: [RecordedEntry], inbox: FolderDescriptor, documents: FolderDescriptor) -> [Recovery] {
        guard let inboxID = FileID(of: inbox), let documentsID = FileID(of: documents) else { return [] }
        var located: [[FileName]: Located] = [:]
        /// The entry's destination folder: found, missing, or not to be told now.
        func destination(of entry: RecordedEntry) -> Located {
            guard entry.documents == documentsID else { return .unknown }
            let found = located[entry.path] ?? locate(entry.path, in: documents)
            located[entry.path] = found
            guard case .found(let folder) = found else { return found }
            return FileID(of: folder) == entry.destination ? found : .missing
        }
        var plan: [Recovery] = []
        for entry in recorded where !entry.run.mayBeRunning {
            switch entry.what {
            case .staging(let name, let inode):
                let parent: FolderDescriptor
                switch destination(of: entry) {
                case .found(let folder): parent = folder
                case .missing:
                    // A staging folder that was made may hold copies wherever its folder went.
                    plan.append(inode == nil ? .stale(entry) : .lostStaging(entry, name))
                    continue
                // Another Documents, or a folder that cannot be read now: left for a later run.
                case .unknown: continue
                }
                switch ownFolder(name, in: parent, device: entry.destination.device, inode: inode) {
                case .some(true): plan.append(.staging(entry, name, in: parent))
                case .some(false): plan.append(.emptyFolder(entry, name, in: parent))
                case nil: plan.append(.stale(entry))
                }
            case .moving(let inboxOfEntry, let hidden, let original, let inode, _):
                guard inboxOfEntry == inboxID else { continue }
                switch ownFolder(hidden, in: inbox, device: inboxID.device, inode: inode) {
                case .some(true):
                    if case .found(let folder) = destination(of: entry) {
                        plan.append(.removal(entry, hidden: hidden, original: original, destination: folder))
                    } else {
                        plan.append(.giveBack(entry, hidden: hidden, original: original))
                    }
                case .some(false): plan.append(.emptyFolder(entry, hidden, in: inbox))
                case nil: plan.append(.stale(entry))
                }
            }
        }
        return plan
    }

    /// What is said of a staging folder whose folder was not found.
    static func lostStagingLine(_ entry: RecordedEntry, _ name: FileName, dryRun: Bool) -> String {
        let folder = entry.path.map(\.escaped).joined(separator: "/")
        return "\(folder.isEmpty ? "" : folder + "/")\(name.escaped): the unfinished copies of an interrupted run "
            + "are no longer there (their folder was removed, renamed or replaced by a link), so they "
            + (dryRun ? "would be forgotten" : "were forgotten")
            + "; where that folder went, its \(name.escaped) may be removed"
    }

    /// What `locate(_:in:)` found.
    enum Located {
        case found(FolderDescriptor)
        /// A component is missing, not a folder, or a symbolic link.
        case missing
        /// It cannot be told now (a component cannot be searched, or
        /// another error), or the record is of another Documents.
        case unknown
    }

    /// The folder at `path` below `documents`, each component opened with
    /// `O_NOFOLLOW | O_DIRECTORY`: a symbolic link is never followed and
    /// nothing is made. Documents itself for an empty path.
    static func locate(_ path: [FileName], in documents: FolderDescriptor) -> Located {
        var current = documents
        for component in path {
            let parent = current
            let fd = component.bytes.withCString {
                openat(parent.fd, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            guard fd >= 0 else { return [ENOENT, ENOTDIR, ELOOP].contains(errno) ? .missing : .unknown }
            current = FolderDescriptor(adopting: fd, path: InboxProcessor.join(parent.path, component.escaped))
        }
        return .found(current)
    }

    /// Whether `name` of `parent` is the recorded folder: nil when it is
    /// not (or is gone); true when it may be worked on; false when only
    /// its removal as an empty folder is allowed (its inode was never
    /// recorded, so it was made just before its run ended and holds nothing
    /// of the user's).
    private static func ownFolder(
        _ name: FileName, in parent: FolderDescriptor, device: UInt64, inode: UInt64?
    ) -> Bool? {
        guard case .success(let info) = parent.status(of: name), info.isDirectory, UInt64(info.st_dev) == device,
            info.st_uid == geteuid(), info.st_mode & 0o7777 == 0o700
        else { return nil }
        guard let inode else { return false }
        return UInt64(info.st_ino) == inode ? true : nil
    }

    /// The names of the Inbox that records of runs still at work (or on
    /// another machine, which cannot be asked) name as theirs: left to them.
    static func held(_ recorded: [RecordedEntry], inbox: FolderDescriptor) -> Set<FileName> {
        guard let inboxID = FileID(of: inbox) else { return [] }
        var held: Set<FileName> = []
        for entry in recorded where entry.run.mayBeRunning {
            guard case .moving(let inboxOfEntry, let hidden, _, let inode, _) = entry.what, inboxOfEntry == inboxID,
                case .success(let info) = inbox.status(of: hidden), info.isDirectory, info.st_uid == geteuid(),
                inode == nil || UInt64(info.st_ino) == inode
            else { continue }
            held.insert(hidden)
        }
        return held
    }

    /// Carries out `plan`. Returns a line for each entry it could not finish.
    static func recover(
        _ plan: [Recovery], records: RecordFolder, inbox: FolderDescriptor,
        isKnownExtension: (ArraySlice<UInt8>) -> Bool
    ) -> [String] {
        var problems: [String] = []
        for step in plan {
            switch step {
            case .stale(let entry):
                records.remove(entry.name)
            case .lostStaging(let entry, let name):
                records.remove(entry.name)
                problems.append(lostStagingLine(entry, name, dryRun: false))
            case .emptyFolder(let entry, let name, let parent):
                if name.bytes.withCString({ unlinkat(parent.fd, $0, AT_REMOVEDIR) }) == 0 || errno == ENOENT {
                    records.remove(entry.name)
                }
            case .staging(let entry, let name, let parent):
                if CrossDeviceCopy.removeTree(in: parent.fd, name) {
                    records.remove(entry.name)
                } else {
                    problems.append(
                        "\(name.escaped): unpublished copies of an interrupted run could not be removed whole; "
                            + "what is left is kept")
                }
            case .giveBack(let entry, let hidden, let original):
                guard case .moving(_, _, _, _, let copy) = entry.what,
                    let folder = try? inbox.openFolder(hidden, displayPath: hidden.escaped)
                else { continue }
                let setAside = SetAside(
                    inbox: inbox, hidden: hidden, original: original, folder: folder, records: records,
                    recordName: entry.name, record: nil)
                let left =
                    copy == nil
                    ? "it was not copied by the interrupted run moving it, so it"
                    : "an interrupted run published a copy of it in a folder that cannot be found any more "
                        + "(removed, renamed or replaced), so what that copy holds cannot be checked and all of it"
                // What the copy holds cannot be checked: nothing is removed
                // from the item. One the run had published a copy of goes
                // back with a word, as it may now be there twice.
                if let rest = setAside.end(left: left, isKnownExtension: isKnownExtension),
                    copy != nil || folder.contains(itemName)
                {
                    problems.append("\(original.escaped): \(rest)")
                }
            case .removal(let entry, let hidden, let original, let documents):
                guard case .moving(_, _, _, _, let copy) = entry.what,
                    let folder = try? inbox.openFolder(hidden, displayPath: hidden.escaped)
                else { continue }
                let copied = copy.map { removeCopied(itemIn: folder, copy: $0, in: documents) } ?? false
                let setAside = SetAside(
                    inbox: inbox, hidden: hidden, original: original, folder: folder, records: records,
                    recordName: entry.name, record: nil)
                let left =
                    copied
                    ? "what an interrupted run had not copied of it"
                    : "it was not copied by the interrupted run moving it, so it"
                // An item the run had not copied simply goes back, as if
                // that run had not begun; one it had copied in part, or
                // one that cannot go back, is said.
                if let rest = setAside.end(left: left, isKnownExtension: isKnownExtension),
                    copied || folder.contains(itemName)
                {
                    problems.append("\(original.escaped): \(rest)")
                }
            }
        }
        return problems
    }

    /// Removes the set-aside item, or what of it `copy` in `documents`
    /// holds too, when `copy` is the very file or folder the record
    /// names (same inode, on Documents' file system): a file (or link)
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
