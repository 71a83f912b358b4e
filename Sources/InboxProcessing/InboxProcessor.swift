import CLinuxCalls
import SystemBase

#if canImport(Glibc)
    import Glibc
#endif

/// Moves every entry of an Inbox folder into its Documents folder, as a
/// unit and without ever replacing anything there: a taken name gets the
/// next free counter before its extension (`report-1.pdf`,
/// `archive-1.tar.gz`), items still being written are left for a later run,
/// and the emptied Inbox is removed (never recursively).
///
/// Safe with other processes at work in the same folders: every move is an
/// atomic no-replace rename (or, across file systems, a synced copy that is
/// published no-replace before its source is removed); a taken destination
/// means "next name" and a vanished source means "another processor took it".
public final class InboxProcessor {
    /// The settings of every run: where the Inbox is, when an item has
    /// finished arriving, and whether anything is moved or removed.
    public struct Options: Sendable {
        /// The Inbox: a name inside Documents, or a path when it holds a `/`
        /// before its end (`Inbox/` is the name `Inbox`). An Inbox that is not a folder is moved as a document, unless the
        /// path ends in `/`, which asks for a folder: the run then fails.
        public var inbox: String = "Inbox"
        /// When an item has finished arriving; until then it waits for a later run.
        public var settle = SettlePolicy()
        /// Report what would happen without moving anything.
        public var dryRun = false
        /// Remove the Inbox once it is empty.
        public var removeEmptyInbox = true
        /// The folder where runs keep the records of their moves across file
        /// systems, which the next run finishes when one is killed midway:
        /// of the running user, and writable by no one else. By default
        /// `$XDG_STATE_HOME/uti/inbox` (`~/.local/state/uti/inbox`); nil when
        /// neither `XDG_STATE_HOME` nor `HOME` is set, and then nothing is
        /// moved across file systems.
        public var recordFolder: String? = RecordFolder.defaultPath()
        /// Entries of the Inbox whose name matches one of these are left in
        /// place (`Outcome.leftInPlace`, with `ItemReport.ignoredBy`), never
        /// opened: by default `IgnorePattern.defaults`, so that an editor's
        /// swap file or a download in progress is never moved, however long
        /// it stays unchanged. A folder is matched by its name as a folder;
        /// what is inside an entry moves with it, unmatched.
        public var ignore: [IgnorePattern] = IgnorePattern.defaults
        /// Where items go by their type (`InboxRouting`): each item is
        /// typed by its name and content, and moved into the folder of
        /// Documents of the first rule its type conforms to (made when
        /// missing), under the same guarantees as into Documents itself.
        /// Nil (the default): every item goes to Documents, untyped.
        public var routing: InboxRouting?
        /// The defaults: the Inbox `Documents/Inbox`, the default settle
        /// policy, items moved for real, the emptied Inbox removed, and
        /// editors', downloads' and version control's own files left in place.
        public init() {}
    }

    /// What an entry is (defined in `SystemBase`, which `FolderWatching`
    /// shares). The raw value names it in messages and JSON (`symbolic link`, `FIFO`).
    public typealias Kind = EntryKind

    /// Why an item is not ready and was left in the Inbox for a later run
    /// (defined with `SettlePolicy`, in `SystemBase`).
    public typealias WaitReason = SettlePolicy.WaitReason

    /// What a run did with one entry, and so where it is now.
    public enum Outcome: Sendable, Equatable {
        /// Moved under this name; `copied` when it crossed file systems.
        case moved(to: FileName, copied: Bool)
        /// A dry run's answer.
        case wouldMove(to: FileName)
        /// Not ready; left for a later run.
        case waiting(WaitReason)
        /// A FIFO, socket or device, or an entry whose name matches
        /// `Options.ignore` (`ItemReport.ignoredBy`): never moved.
        case leftInPlace
        /// Another process moved or removed it first.
        case gone
        /// Not moved, for the reason given; the item is still in the Inbox.
        /// After a copy across file systems, the reason says what was copied
        /// and what was kept (`copied as report-1.pdf, but the original was kept: …`).
        case failed(ItemFailure)
    }

    /// A system call that failed: which call, on which path, and its errno
    /// (defined in `SystemBase`, which every module shares).
    public typealias SystemError = SystemBase.SystemError

    /// Why an item was not moved: what kind of failure, what went wrong
    /// and, where a system call failed, that call with its path and errno.
    public struct ItemFailure: Error, Sendable, Equatable, CustomStringConvertible,
        ExpressibleByStringInterpolation
    {
        /// What kind of failure it is, for a caller to switch on. Where a
        /// system call failed, `systemError` says which, on what path, and
        /// its errno.
        public enum Code: Sendable, Hashable {
            /// The run may not read, move or write what the move needs
            /// (`EACCES`, `EPERM`).
            case permissionDenied
            /// Another system call failed: `systemError` says which, and why.
            case systemCallFailed
            /// Every name tried in Documents was taken.
            case noFreeName
            /// A relative symbolic link that would point elsewhere from
            /// Documents, or whose folder cannot be told; left in the Inbox.
            case linkWouldBreak
            /// The item could not be removed from the Inbox afterwards (no
            /// right to, a read-only file system), so it was not copied
            /// across file systems.
            case notRemovable
            /// The item, or an entry inside it, is not a file, folder or
            /// link, which cannot be copied across file systems.
            case uncopyableKind
            /// Folders nested deeper than a copy across file systems goes.
            case tooDeep
            /// No record of a move across file systems could be kept (no
            /// record folder, or one that cannot be used), so nothing was
            /// copied.
            case recordsUnavailable
            /// The file system cannot move the item without the risk of
            /// replacing something (a folder where `RENAME_NOREPLACE` is
            /// refused).
            case unsupportedFileSystem
            /// The item reached Documents, but its original, or a part of
            /// it, is still in the Inbox too; the message says where.
            case originalKept
            /// The folder of Documents an item is routed to cannot be used:
            /// a component of it is a symbolic link (never followed) or not
            /// a folder, it is the Inbox or inside it, or it cannot be made.
            case destinationUnusable
            /// A failure of no more definite kind, such as one made from
            /// words alone (`init(_:)`, a string literal).
            case other
        }

        /// What kind of failure it is.
        public var code: Code
        /// What went wrong, in words (with the system error's text when there is one).
        public var message: String
        /// The system call that failed, with its path and errno, when one did.
        public var systemError: SystemError?

        /// A failure described in words only, of code `other`.
        public init(_ message: String) {
            self.init(.other, message)
        }

        /// A failure of `code` described by `message`; `systemError` when a
        /// system call failed.
        public init(_ code: Code, _ message: String, systemError: SystemError? = nil) {
            self.code = code
            self.message = message
            self.systemError = systemError
        }

        /// A failure of a system call; `context` says what was being done.
        /// The code is `permissionDenied` for `EACCES` and `EPERM`, else
        /// `systemCallFailed`.
        public init(_ error: SystemError, context: String? = nil) {
            self.init(
                error.kind == .permissionDenied ? .permissionDenied : .systemCallFailed,
                context.map { "\($0): \(error)" } ?? error.description, systemError: error)
        }

        /// A failure described in words only, of code `other`.
        public init(stringLiteral value: String) { self.init(value) }

        /// The message.
        public var description: String { message }

        /// A failure of the system call `error`, told by `message` (which
        /// says itself what failed); its code as `init(_:context:)` gives it.
        static func system(_ message: String, _ error: SystemError) -> ItemFailure {
            var failure = ItemFailure(error)
            failure.message = message
            return failure
        }
    }

    /// What happened to one entry of the Inbox.
    public struct ItemReport: Sendable {
        /// The entry's name in the Inbox (for an Inbox that is not a folder, its own name).
        public var name: FileName
        /// Where the entry is, for messages: `Inbox/report.pdf`.
        public var displayPath: String
        /// Where the entry was found, as a path to open (nil when its name is not UTF-8).
        public var sourcePath: String?
        /// What the entry is; `unknown` when its status could not be read.
        public var kind: Kind
        /// What the run did with the entry, and so where it is now.
        public var outcome: Outcome
        /// The pattern of `Options.ignore` the entry's name matches, when it
        /// was left in place for it.
        public var ignoredBy: IgnorePattern?
        /// With `Options.routing`: the folder of Documents the entry was
        /// routed to (nil: Documents itself).
        public var folder: RouteFolder?
        /// With `Options.routing`: the identifier of the type the entry
        /// was routed by, when it was typed.
        public var type: String?
        /// With `Options.routing`: why the entry was not routed by its name
        /// (its content contradicts it), when it was not.
        public var notRoutedByName: String?
    }

    /// What `run(_:)` reports as it goes: `started` once the Inbox is read,
    /// then one `item` per entry as it is done.
    ///
    /// A run that finds no Inbox reports nothing; an Inbox that is not a
    /// folder is reported as one item.
    public enum Event: Sendable {
        /// The Inbox was read; this many entries follow.
        case started(itemCount: Int)
        /// One entry is done: what it is and what happened to it.
        case item(ItemReport)
    }

    /// What became of the Inbox itself at the end of a run.
    public enum InboxState: Sendable, Equatable {
        /// There was no Inbox: nothing to do.
        case absent
        /// It was left empty and was removed.
        case removed
        /// Kept, with the reason.
        case kept(String)
        /// The Inbox was not a folder; it was handled as a document.
        case notAFolder
    }

    /// The totals of one run and what became of the Inbox.
    ///
    /// Each entry counts once, in one of `moved`, `waiting`, `leftInPlace`,
    /// `gone` and `failed`, by its outcome.
    public struct Summary: Sendable {
        /// Entries moved into Documents (in a dry run: that would be moved).
        public var moved = 0
        /// Entries not ready, left in the Inbox for a later run.
        public var waiting = 0
        /// FIFOs, sockets, devices and entries of unknown kind, left in the Inbox.
        public var leftInPlace = 0
        /// Entries another process moved or removed first.
        public var gone = 0
        /// Entries that could not be moved; each item's outcome gives the reason.
        public var failed = 0
        /// What became of the Inbox; `absent` when there was none.
        public var inbox: InboxState = .absent
        /// What a run killed midway left that this one could not finish
        /// (a folder given back because entries were added, one without its journal).
        public var recoveryProblems: [String] = []
        /// With `dryRun`: what recovery would do (one line each), as
        /// `uti inbox --dry-run` prints it.
        public var recoveryPlan: [String] = []
        /// Folders of the Inbox that records of this user's runs still at
        /// work (or on another machine, which cannot be asked) name: items
        /// those runs are moving, left to them.
        public var heldByOtherRuns: [FileName] = []
        /// Something was left behind or failed.
        public var isComplete: Bool { waiting == 0 && leftInPlace == 0 && failed == 0 && recoveryProblems.isEmpty }
    }

    /// A problem that stops the run: Documents or the Inbox cannot be used.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What kind of failure it is, for a caller to switch on.
        public enum Code: Sendable, Hashable {
            /// Documents, or the folder that holds the Inbox, does not exist.
            case notFound
            /// A folder may not be opened or read by this process.
            case permissionDenied
            /// Documents, or the folder that holds the Inbox, is not a folder;
            /// or the Inbox, given as a path that ends in `/`, is not one.
            case notAFolder
            /// A symbolic link on the path is another user's, and is not followed.
            case untrustedLink
            /// The Inbox is Documents itself, or Documents is inside the Inbox.
            case foldersOverlap
            /// Another system call failed (listing the Inbox, watching it,
            /// the signal handling of a watch): `systemError` says which.
            case systemCallFailed
        }

        /// The path at fault: Documents, the Inbox or the folder that holds
        /// it (`signals` when a watcher cannot set up its signal handling).
        public var path: String
        /// What is wrong, as a phrase that follows the path: `is not a folder`.
        public var reason: String
        /// What kind of failure it is.
        public var code: Code
        /// The system call that failed, with its path and errno, when one did.
        public var systemError: SystemError?
        /// The path and the reason, as `path: reason`.
        public var description: String { "\(path): \(reason)" }

        init(_ code: Code, path: String, reason: String, systemError: SystemError? = nil) {
            self.code = code
            self.path = path
            self.reason = reason
            self.systemError = systemError
        }

        /// The failure of the system call `error` at `path`, told by `reason`.
        static func system(_ error: SystemError, path: String, reason: String) -> Failure {
            let code: Code =
                switch error.kind {
                case .notFound: .notFound
                case .permissionDenied: .permissionDenied
                case .notADirectory: .notAFolder
                default: .systemCallFailed
                }
            return Failure(code, path: path, reason: reason, systemError: error)
        }

        /// The failure of `call` (on `path`) with the current errno, told
        /// as `what: REASON`.
        static func current(_ what: String, _ call: String, path: String) -> Failure {
            let error = SystemError.current(call, path: path)
            return .system(error, path: path, reason: "\(what): \(SystemError(error.code))")
        }

        /// A folder at `path` that could not be opened, as `reason(_:)` tells it.
        static func opening(_ path: String, _ error: GuardedPath.Failure) -> Failure {
            switch error {
            case .system(let system): .system(system, path: path, reason: InboxProcessor.reason(error))
            case .foreignLink: Failure(.untrustedLink, path: path, reason: InboxProcessor.reason(error))
            }
        }
    }

    /// The Documents folder entries are moved into, as given to the initializer.
    public let documentsPath: String
    /// The settings every run uses.
    public let options: Options
    private let isKnownExtension: (ArraySlice<UInt8>) -> Bool
    /// `options.ignore`, read once for matching every name.
    private let ignoring: IgnorePattern.Matcher
    /// The name pickers of the pass, one for each destination folder (by
    /// its components below Documents; none for Documents itself).
    private var pickers: [[FileName]: NamePicker] = [:]
    /// What the moves across file systems of the pass under way share.
    private var crossDevice: CrossDeviceState?
    /// The names a dry run gave, in each destination folder.
    private var reserved: [[FileName]: Set<FileName>] = [:]
    /// Where each item of this pass went, for links that point at one: the
    /// destination folder's components below Documents, and its name there.
    private var movedThisPass: [FileName: (folder: [FileName], name: FileName)] = [:]
    /// The destination folders of the pass opened so far, by their components below Documents.
    private var destinations: [[FileName]: FolderDescriptor] = [:]
    /// Documents and the Inbox of the pass under way.
    private var passFolders: (documents: FolderDescriptor, inbox: FileID?)?

    /// Makes a processor for the Inbox of `documents`; nothing is opened
    /// until `run(_:)`.
    ///
    /// - Parameters:
    ///   - documents: the path of the Documents folder: where entries are
    ///     moved, and where the Inbox is unless `options.inbox` holds a `/`.
    ///   - options: where the Inbox is, when an item has finished arriving,
    ///     whether this is a dry run and whether the emptied Inbox is removed.
    ///   - isKnownExtension: whether an extension (without its dot)
    ///     is one a type claims, so that counters go before `tar.gz`, not `gz`.
    public init(
        documents: String, options: Options = Options(),
        isKnownExtension: @escaping (ArraySlice<UInt8>) -> Bool
    ) {
        self.documentsPath = documents
        self.options = options
        self.isKnownExtension = isKnownExtension
        self.ignoring = IgnorePattern.Matcher(options.ignore)
    }

    /// Where the Inbox is, for messages and for watching.
    public var inboxPath: String {
        inboxWithoutSlash.contains("/") ? inboxWithoutSlash : Self.join(documentsPath, inboxWithoutSlash)
    }

    /// `options.inbox` without the slashes that end it (`/` stays).
    private var inboxWithoutSlash: String {
        var path = Substring(options.inbox)
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }

    /// Whether `options.inbox` ends in `/`, which asks for a folder.
    private var inboxMustBeAFolder: Bool { options.inbox.count > 1 && options.inbox.hasSuffix("/") }

    /// One pass over the Inbox. `observe` hears of each item as it is done.
    ///
    /// A move across file systems takes read leases to see writers, and a
    /// writer that breaks one sends SIGIO, whose default action ends the
    /// process. So while any run is in progress SIGIO is ignored, when its
    /// action was the default; the default comes back when the last run
    /// ends. A process started meanwhile inherits the ignored SIGIO.
    public func run(_ observe: (Event) -> Void) throws(Failure) -> Summary {
        // Leases taken to find writers are all released by the end of the pass.
        uti_lease_scope_begin()
        defer { uti_lease_scope_end() }
        reserved = [:]
        movedThisPass = [:]
        destinations = [:]
        // Counters are remembered within a pass only: between the passes of
        // a watch, names in Documents may have gone.
        pickers = [:]
        let documents: FolderDescriptor
        do { documents = try FolderDescriptor.openGuarded(documentsPath) } catch {
            throw .opening(documentsPath, error)
        }
        passFolders = (documents, nil)
        var summary = Summary()
        let shared = CrossDeviceState(recordPath: options.recordFolder)
        crossDevice = shared
        defer {
            shared.finish()
            crossDevice = nil
            destinations = [:]
            passFolders = nil
        }
        guard let (inbox, parent, inboxName) = try openInbox(documents, &summary, observe) else {
            return summary
        }
        passFolders = (documents, FileID(of: inbox))
        // What runs killed midway left, known only from the records of this
        // user's runs: removals to finish, staging folders to clear, in
        // Documents and in the folders of it the records name, whatever the
        // rules of this run. What the records name is not a document of this
        // pass; anything else is.
        let recorded = shared.existingRecords()
        let plan = SetAside.plan(recorded, inbox: inbox, documents: documents)
        var recordedHere: Set<FileName> = []
        for step in plan {
            switch step {
            case .removal(_, let hidden, _, _), .giveBack(_, let hidden, _): recordedHere.insert(hidden)
            case .emptyFolder(let entry, let name, _): if case .moving = entry.what { recordedHere.insert(name) }
            case .staging, .stale, .lostStaging: break
            }
        }
        if !options.dryRun {
            if let records = try? shared.records() {
                summary.recoveryProblems = SetAside.recover(
                    plan, records: records, inbox: inbox, isKnownExtension: isKnownExtension)
            }
        } else {
            summary.recoveryPlan = plan.compactMap { step in
                switch step {
                case .staging(_, let name, _):
                    return "would remove \(name.escaped), the unfinished copies of an interrupted run"
                case .removal(_, let hidden, let original, _):
                    return
                        "would finish moving \(original.escaped), set aside as \(hidden.escaped) by an interrupted run"
                case .giveBack(_, let hidden, let original):
                    return
                        "would give back \(original.escaped) whole, set aside as \(hidden.escaped) by an interrupted run "
                        + "moving it into a folder that cannot be found"
                case .emptyFolder(_, let name, _):
                    return "would remove \(name.escaped), an empty folder of an interrupted run"
                case .lostStaging(let entry, let name): return SetAside.lostStagingLine(entry, name, dryRun: true)
                case .stale: return nil
                }
            }
        }
        let held = SetAside.held(recorded, inbox: inbox)
        let entries: [(name: FileName, type: UInt8)]
        do {
            let all = try inbox.entries()
            summary.heldByOtherRuns = all.map(\.name).filter(held.contains).sorted()
            entries = all.filter { !held.contains($0.name) && !recordedHere.contains($0.name) }.sorted {
                $0.name < $1.name
            }
        } catch {
            throw .system(error, path: inboxPath, reason: "cannot be read: \(error)")
        }
        observe(.started(itemCount: entries.count))
        movedThisPass.reserveCapacity(entries.count)
        let shownInbox = displayInbox
        func handle(_ name: FileName, _ type: UInt8) {
            let displayPath = Self.join(shownInbox, name.escaped)
            let report =
                leftOut(name, in: inbox, displayPath: displayPath)
                ?? process(name, typeHint: type, in: inbox, displayPath: displayPath, to: documents)
            switch report.outcome {
            case .moved(let target, _), .wouldMove(let target):
                movedThisPass[name] = (report.folder?.components ?? [], target)
            default: break
            }
            count(report.outcome, in: &summary)
            observe(.item(report))
        }
        // Links last, so that one pointing at another item can follow it;
        // one pointing at another link after that link.
        let isLink = { (type: UInt8) in Int32(type) == Int32(DT_LNK) }
        for (name, type) in entries where !isLink(type) { handle(name, type) }
        var links = entries.filter { isLink($0.type) }
        let inboxPath = LinkTarget.path(of: inbox)
        while !links.isEmpty {
            let pending = Set(links.map(\.name))
            let ready = links.filter { link in
                guard let inboxPath, let target = LinkTarget.inboxEntry(linkedBy: link.name, in: inbox, at: inboxPath)
                else { return true }
                return target == link.name || !pending.contains(target)
            }
            // A cycle of links: taken as they are.
            let now = ready.isEmpty ? links : ready
            for (name, type) in now { handle(name, type) }
            let done = Set(now.map(\.name))
            links.removeAll { done.contains($0.name) }
        }
        // The staging folders go before the Inbox: a run killed between the
        // two leaves an Inbox, whose next run reads the records, never a
        // staging folder with no Inbox to bring a run to it.
        shared.finish()
        summary.inbox = removeInbox(parent, inboxName, summary)
        return summary
    }

    // MARK: The Inbox

    private var displayInbox: String { inboxWithoutSlash.contains("/") ? inboxPath : inboxWithoutSlash }

    /// The open Inbox with the folder that holds it and its name there; nil
    /// when there is none or it is not a folder (then handled as a document).
    private func openInbox(
        _ documents: FolderDescriptor, _ summary: inout Summary,
        _ observe: (Event) -> Void
    ) throws(Failure) -> (FolderDescriptor, FolderDescriptor, FileName)? {
        let parent: FolderDescriptor
        let name: FileName
        if inboxWithoutSlash.contains("/") {
            let (parentPath, inboxName) = Self.split(inboxPath)
            name = FileName(inboxName)
            do { parent = try FolderDescriptor.openGuarded(parentPath) } catch {
                if case .system(let error) = error, error.code == ENOENT { return nil }
                throw .opening(parentPath, error)
            }
        } else {
            parent = documents
            name = FileName(inboxWithoutSlash)
        }
        let info: stat
        switch parent.status(of: name) {
        case .success(let found): info = found
        case .failure(let error):
            if error.code == ENOENT { return nil }
            throw .system(error, path: inboxPath, reason: error.description)
        }
        // A path that ends in "/" asks for a folder, as it does of every
        // system call: a file or a link there is not taken for one, nor moved.
        if inboxMustBeAFolder && !info.isDirectory {
            throw Failure(
                .notAFolder, path: inboxPath,
                reason: (info.st_mode & S_IFMT) == S_IFLNK
                    ? "is a symbolic link, which is never followed, not a folder" : "is not a folder")
        }
        guard info.isDirectory else {
            // Not a folder (a file, or a link that is never followed): a document like any other.
            observe(.started(itemCount: 1))
            let report = process(
                name, typeHint: UInt8(DT_UNKNOWN), in: parent, displayPath: displayInbox, to: documents,
                alwaysNumber: parent === documents)
            count(report.outcome, in: &summary)
            observe(.item(report))
            summary.inbox = .notAFolder
            return nil
        }
        let inbox: FolderDescriptor
        do { inbox = try parent.openFolder(name, displayPath: inboxPath) } catch {
            throw .system(error, path: inboxPath, reason: "cannot be opened: \(error)")
        }
        try checkSeparate(inbox, documents)
        return (inbox, parent, name)
    }

    /// Refuses an Inbox that is Documents itself (every document would be
    /// renamed on each run) or that holds Documents (the move would put a
    /// folder inside itself).
    private func checkSeparate(_ inbox: FolderDescriptor, _ documents: FolderDescriptor) throws(Failure) {
        var inboxInfo = stat(), info = stat()
        guard fstat(inbox.fd, &inboxInfo) == 0, fstat(documents.fd, &info) == 0 else { return }
        func same(_ a: stat, _ b: stat) -> Bool { a.st_dev == b.st_dev && a.st_ino == b.st_ino }
        if same(inboxInfo, info) {
            throw Failure(
                .foldersOverlap, path: inboxPath, reason: "is the Documents folder itself; give another --inbox")
        }
        // Up from Documents through "..", as deep as a path can go.
        var current = dup(documents.fd)
        defer { close(current) }
        for _ in 0..<Int(PATH_MAX / 2) {
            let up = openat(current, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard up >= 0 else { return }
            var upInfo = stat()
            guard fstat(up, &upInfo) == 0 else {
                close(up)
                return
            }
            close(current)
            current = up
            if same(upInfo, inboxInfo) {
                throw Failure(
                    .foldersOverlap, path: documentsPath,
                    reason: "is inside the Inbox \(inboxPath); a folder cannot be moved into itself")
            }
            if same(upInfo, info) { return }  // the root: its ".." is itself
            info = upInfo
        }
    }

    /// Why a folder could not be opened, as a phrase after its path.
    private static func reason(_ error: GuardedPath.Failure) -> String {
        switch error {
        case .system(let error) where error.code == ENOTDIR: "is not a folder"
        case .system(let error): SystemError(error.code).description
        case .foreignLink: "cannot be opened: \(error)"
        }
    }

    private func removeInbox(_ parent: FolderDescriptor, _ name: FileName, _ summary: Summary) -> InboxState {
        let left = summary.waiting + summary.leftInPlace + summary.failed
        if left > 0 { return .kept(left == 1 ? "1 item is left in it" : "\(left) items are left in it") }
        let held = summary.heldByOtherRuns.count
        if held > 0 {
            return .kept(
                (held == 1 ? "it holds 1 item" : "it holds \(held) items") + " another run is moving ("
                    + summary.heldByOtherRuns.map(\.escaped).joined(separator: ", ") + ")")
        }
        guard options.removeEmptyInbox else { return .kept("removal was not asked for") }
        if options.dryRun { return .kept("dry run") }
        if name.bytes.withCString({ unlinkat(parent.fd, $0, AT_REMOVEDIR) }) == 0 { return .removed }
        let error = SystemError.current
        switch error.code {
        case ENOTEMPTY, EEXIST: return .kept("new items arrived while it was processed")
        case ENOENT: return .absent
        default: return .kept("cannot be removed: \(error)")
        }
    }

    private func count(_ outcome: Outcome, in summary: inout Summary) {
        switch outcome {
        case .moved, .wouldMove: summary.moved += 1
        case .waiting: summary.waiting += 1
        case .leftInPlace: summary.leftInPlace += 1
        case .gone: summary.gone += 1
        case .failed: summary.failed += 1
        }
    }

    // MARK: One item

    /// The report of an entry left in place because its name matches
    /// `options.ignore`, nil for any other. Only its status is read, to tell
    /// a folder (for patterns ending with `/`) and to say what it is.
    private func leftOut(_ name: FileName, in folder: FolderDescriptor, displayPath: String) -> ItemReport? {
        guard !ignoring.isEmpty else { return nil }
        let asAnything = ignoring.firstMatch(name.bytes, isFolder: false)
        let asFolder = ignoring.firstMatch(name.bytes, isFolder: true, foldersOnly: true)
        guard asAnything != nil || asFolder != nil, case .success(let info) = folder.status(of: name) else {
            return nil
        }
        let kind = EntryKind(of: info)
        guard let pattern = asAnything ?? (kind == .folder ? asFolder : nil) else { return nil }
        var report = ItemReport(name: name, displayPath: displayPath, kind: kind, outcome: .leftInPlace)
        if let text = name.text { report.sourcePath = Self.join(folder.path, text) }
        report.ignoredBy = pattern
        return report
    }

    private func process(
        _ name: FileName, typeHint: UInt8, in folder: FolderDescriptor, displayPath: String,
        to documents: FolderDescriptor, alwaysNumber: Bool = false
    ) -> ItemReport {
        var report = ItemReport(name: name, displayPath: displayPath, kind: .unknown, outcome: .gone)
        if let text = name.text { report.sourcePath = Self.join(folder.path, text) }
        let inspection: SettlePolicy.Inspection
        switch options.settle.inspect(folder, name, typeHint: typeHint) {
        case .success(let found): inspection = found
        case .failure(let error):
            report.outcome = error.code == ENOENT ? .gone : .failed(ItemFailure(error))
            return report
        }
        report.kind = inspection.kind
        switch report.kind {
        case .fifo, .socket, .device, .unknown:
            report.outcome = .leftInPlace
            return report
        default: break
        }
        if let wait = inspection.wait {
            report.outcome = .waiting(wait)
            return report
        }
        // Where it goes: Documents, or the folder of Documents its type is
        // routed to (nil in a dry run when that folder is still to be made).
        var destination: FolderDescriptor? = documents
        var key: [FileName] = []
        if let routing = options.routing {
            let typing = routing.typeEntry(folder.fd, name)
            let decision = routing.decide(typing)
            report.type = typing?.identifier
            report.notRoutedByName = decision.notRoutedByName
            if let routeFolder = decision.folder {
                report.folder = routeFolder
                key = routeFolder.components
                switch openDestination(routeFolder, create: !options.dryRun) {
                case .success(let opened): destination = opened
                case .failure(let failure):
                    report.outcome = .failed(failure)
                    return report
                }
            }
        }
        // The item named like the Inbox it was (an Inbox that is not a
        // folder) takes a counter only where it is already.
        let alwaysNumber = alwaysNumber && key.isEmpty
        let linkMove = report.kind == .symbolicLink ? relink(name, in: folder, toFolder: key) : .asItIs
        switch linkMove {
        case .refused(let failure):
            report.outcome = .failed(failure)
            return report
        case .waits(let item):
            report.outcome = .waiting(.linkTargetInInbox(item))
            return report
        case .asItIs, .relink: break
        }
        if options.dryRun {
            if let target = pickDryRunName(name, in: destination, key: key, alwaysNumber: alwaysNumber) {
                report.outcome = .wouldMove(to: target)
            } else {
                report.outcome = .failed(noFreeName(key))
            }
            return report
        }
        guard let destination else {
            report.outcome = .failed(ItemFailure(.destinationUnusable, "\(destinationPath(key)) was not made"))
            return report
        }
        if case .relink(let original, let target) = linkMove {
            var relinking = RelinkPlacement(
                source: folder, name: name, original: original, target: target, destination: destination)
            switch placeUnderFreeName(
                name, in: destination, key: key, alwaysNumber: alwaysNumber, placement: &relinking)
            {
            case .placed(let target): report.outcome = .moved(to: target, copied: false)
            case .gone: report.outcome = .gone
            case .failed(let reason): report.outcome = .failed(reason)
            case .crossDevice:
                report.outcome = .failed(ItemFailure(.other, "cannot be linked in \(destinationPath(key))"))
            }
            return report
        }
        var placement = RenamePlacement(
            source: folder, name: name, isFolder: report.kind == .folder, destination: destination)
        switch placeUnderFreeName(name, in: destination, key: key, alwaysNumber: alwaysNumber, placement: &placement) {
        case .placed(let target): report.outcome = .moved(to: target, copied: false)
        case .gone: report.outcome = .gone
        case .failed(let reason): report.outcome = .failed(reason)
        case .crossDevice:
            report.outcome = copyAcross(name, in: folder, to: destination, key: key, alwaysNumber: alwaysNumber)
        }
        return report
    }

    // MARK: Destinations

    /// Where the destination folder of components `key` is, for messages.
    private func destinationPath(_ key: [FileName]) -> String {
        key.reduce(documentsPath) { Self.join($0, $1.escaped) }
    }

    /// The open folder `route` of Documents, made when missing and
    /// `create` (each component with `mkdirat`, mode 0777 less the umask;
    /// as root, given the owner and group of the folder it is made in). Each
    /// component is opened with `O_NOFOLLOW | O_DIRECTORY`: one that is a
    /// symbolic link or not a folder, or that is the Inbox, fails the item.
    /// Nil when the folder is missing and not to be made.
    private func openDestination(_ route: RouteFolder, create: Bool) -> Result<FolderDescriptor?, ItemFailure> {
        if let open = destinations[route.components] { return .success(open) }
        guard let (documents, inboxID) = passFolders else {
            return .failure(ItemFailure(.destinationUnusable, "\(destinationPath(route.components)) cannot be opened"))
        }
        func unusable(_ what: String, _ error: SystemError? = nil) -> ItemFailure {
            ItemFailure(.destinationUnusable, "cannot be moved into \(route): \(what)", systemError: error)
        }
        var current = documents
        var shown = documentsPath
        for (index, component) in route.components.enumerated() {
            shown = Self.join(shown, component.escaped)
            if let open = destinations[Array(route.components[...index])] {
                current = open
                continue
            }
            let parent = current
            func open() -> Int32 {
                component.bytes.withCString { openat(parent.fd, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            }
            var fd = open()
            if fd < 0 && errno == ENOENT {
                guard create else { return .success(nil) }
                var made = component.bytes.withCString { mkdirat(parent.fd, $0, 0o777) } == 0
                if !made && errno != EEXIST {
                    let error = SystemError.current("mkdirat", path: shown)
                    return .failure(unusable("\(shown) cannot be made: \(SystemError(error.code))", error))
                }
                fd = open()
                if fd < 0 { made = false }
                if made {
                    // As root, the new folder is the owner's of the folder it is in, never root's.
                    var info = stat()
                    do throws(SystemError) {
                        guard fstat(parent.fd, &info) == 0 else {
                            throw SystemError.current("fstat", path: parent.path)
                        }
                        try Ownership.keep(info, onFile: fd)
                    } catch {
                        close(fd)
                        _ = component.bytes.withCString { unlinkat(parent.fd, $0, AT_REMOVEDIR) }
                        return .failure(
                            unusable("\(shown) cannot be given its owner: \(SystemError(error.code))", error))
                    }
                    parent.sync()
                }
            }
            guard fd >= 0 else {
                let error = SystemError.current("openat", path: shown)
                switch parent.status(of: component) {
                case .success(let info) where info.isSymbolicLink:
                    return .failure(unusable("\(shown) is a symbolic link, which is never followed", error))
                case .success(let info) where !info.isDirectory:
                    return .failure(unusable("\(shown) is not a folder", error))
                default:
                    return .failure(unusable("\(shown) cannot be opened: \(SystemError(error.code))", error))
                }
            }
            let next = FolderDescriptor(adopting: fd, path: shown)
            if let inboxID, FileID(of: next) == inboxID {
                return .failure(unusable("\(shown) is the Inbox"))
            }
            destinations[Array(route.components[...index])] = next
            current = next
        }
        return .success(current)
    }

    /// For a relative link whose target would mean something else from
    /// its destination folder (Documents, or the folder of Documents of
    /// components `toFolder`): the target that points where it pointed.
    /// `asItIs` when the link can be moved as it is (an absolute target,
    /// or one that reads the same from there).
    private func relink(_ name: FileName, in folder: FolderDescriptor, toFolder: [FileName]) -> LinkMove {
        guard case .success(let info) = folder.status(of: name), info.isSymbolicLink,
            let target = try? LinkTarget.read(folder.fd, name.bytes)
        else { return .asItIs }
        guard target.first != UInt8(ascii: "/") else { return .asItIs }
        guard let from = LinkTarget.path(of: folder), let documents = passFolders?.documents,
            let documentsPath = LinkTarget.path(of: documents)
        else {
            return .refused(
                ItemFailure(
                    .linkWouldBreak, "a relative link, and where its folder is cannot be told; left in the Inbox"))
        }
        // A route folder is made of real folders (never a link): its path is Documents' and its names.
        let documentsComponents = LinkTarget.components(documentsPath)
        let to = documentsComponents + toFolder.map(\.bytes)
        guard var absolute = LinkTarget.absolute(target, from: from) else {
            return .refused(
                ItemFailure(
                    .linkWouldBreak,
                    "a relative link whose target (\(FileName(target).escaped)) goes up after a name; "
                        + "moved, it would point elsewhere, so it is left in the Inbox"))
        }
        // Into an item of this Inbox: to where this pass moved it; one still
        // in the Inbox keeps the link waiting with it.
        let inbox = LinkTarget.components(from)
        if absolute.count > inbox.count, absolute.starts(with: inbox) {
            let item = FileName(absolute[inbox.count])
            if let moved = movedThisPass[item] {
                absolute =
                    documentsComponents + moved.folder.map(\.bytes) + [moved.name.bytes]
                    + absolute[(inbox.count + 1)...]
            } else if item != name, folder.contains(item) {
                return .waits(item)
            }
        }
        let rebased = LinkTarget.relative(
            absolute, from: [UInt8(ascii: "/")] + Array(to.joined(separator: [UInt8(ascii: "/")])),
            trailingSlash: target.last == UInt8(ascii: "/"))
        if rebased == target { return .asItIs }
        return .relink(original: info, target: rebased)
    }

    private enum LinkMove {
        case asItIs
        /// Made anew with `target`; `original` is the link's status when it was read.
        case relink(original: stat, target: [UInt8])
        case refused(ItemFailure)
        /// It points at this item of the Inbox, which is not moved yet.
        case waits(FileName)
    }

    private func copyAcross(
        _ name: FileName, in folder: FolderDescriptor, to destination: FolderDescriptor, key: [FileName],
        alwaysNumber: Bool
    ) -> Outcome {
        // Where the counter would go is settled before the copy, so that
        // nothing slow (such as waiting for the registry to know extensions)
        // comes between the copy and the removal of its source.
        _ = NumberedName(name, isKnownExtension: isKnownExtension)
        guard let crossDevice, let documents = passFolders?.documents else {
            return .failed(ItemFailure(.other, "cannot be copied into \(destinationPath(key))"))
        }
        guard let documentsID = FileID(of: documents) else {
            let error = SystemError.current("fstat", path: documentsPath)
            return .failed(ItemFailure(error, context: "cannot be copied into \(destinationPath(key))"))
        }
        let copy = CrossDeviceCopy(
            source: folder, name: name,
            destination: CopyDestination(folder: destination, path: key, documents: documentsID),
            settle: options.settle, shared: crossDevice,
            isKnownExtension: isKnownExtension)
        do { try copy.prepare() } catch {
            switch error {
            case .sourceGone: return .gone
            case .notReady(let wait): return .waiting(wait)
            case .failed(let failure): return .failed(failure)
            }
        }
        var placement: CrossDeviceCopy = copy
        switch placeUnderFreeName(name, in: destination, key: key, alwaysNumber: alwaysNumber, placement: &placement) {
        case .placed(let target):
            switch copy.complete(as: target) {
            case .moved: return .moved(to: target, copied: true)
            case .waiting(let reason): return .waiting(reason)
            case .failed(let reason): return .failed(reason)
            }
        case .gone: return .gone
        case .failed(let reason): return .failed(reason)
        case .crossDevice: return .failed(ItemFailure(.other, "cannot be copied into \(destinationPath(key))"))
        }
    }

    private enum Placed {
        case placed(FileName), gone, failed(ItemFailure), crossDevice
    }

    /// Tries the name itself, then numbered names from the picker's first
    /// counter upward, until `placement` succeeds or fails for good, in the
    /// destination folder `destination` (of components `key` below Documents).
    private func placeUnderFreeName<P: Placement>(
        _ name: FileName, in destination: FolderDescriptor, key: [FileName],
        alwaysNumber: Bool, placement: inout P
    ) -> Placed {
        // Taken out while in use, so that its counters are changed in place, not copied.
        var picker = pickers.removeValue(forKey: key) ?? NamePicker()
        defer { pickers[key] = picker }
        let placed = picker.search(
            for: name, alwaysNumbered: alwaysNumber, isKnownExtension: isKnownExtension, isTaken: destination.contains
        ) { (candidate) -> NamePicker.Attempt<Placed> in
            switch placement.place(as: candidate) {
            case .placed: return .placed(.placed(candidate))
            case .taken: return .taken
            case .sourceGone: return .stopped(.gone)
            case .crossDevice: return .stopped(.crossDevice)
            case .failed(let reason): return .stopped(.failed(reason))
            }
        }
        return placed ?? .failed(noFreeName(key))
    }

    /// The name a move would get, counting names this dry run already gave
    /// in the same folder; nil when none is free. A destination folder
    /// still to be made (nil) holds no name yet.
    private func pickDryRunName(
        _ name: FileName, in destination: FolderDescriptor?, key: [FileName], alwaysNumber: Bool
    ) -> FileName? {
        // Taken out while in use, so that a name given is added in place, not to a copy.
        var given = reserved.removeValue(forKey: key) ?? []
        defer { reserved[key] = given }
        let isTaken = { (candidate: FileName) in
            given.contains(candidate) || (destination?.contains(candidate) ?? false)
        }
        // Taken out while in use, so that its counters are changed in place, not copied.
        var picker = pickers.removeValue(forKey: key) ?? NamePicker()
        defer { pickers[key] = picker }
        let target = picker.search(
            for: name, alwaysNumbered: alwaysNumber, isKnownExtension: isKnownExtension, isTaken: isTaken
        ) { candidate in
            isTaken(candidate) ? .taken : .placed(candidate)
        }
        if let target { given.insert(target) }
        return target
    }

    /// Why an item was not moved when every name a search tried was taken.
    private func noFreeName(_ key: [FileName]) -> ItemFailure {
        ItemFailure(.noFreeName, "no free name in \(destinationPath(key)) after \(NamePicker.searchLimit) tries")
    }

    /// The folder holding `path` and the last component: `a/b` is `a`, `b`;
    /// `b` is `.`, `b`; `/b` is `/`, `b`.
    static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = slash == path.startIndex ? "/" : String(path[..<slash])
        return (folder, String(path[path.index(after: slash)...]))
    }

    static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }
}
