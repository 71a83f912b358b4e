import CLinuxCalls
import SystemBase
import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

/// The state of a watch: what is known of each item of the watched folders,
/// the inotify watches, and the items waiting to settle. inotify's events
/// only say where to look: each item is compared with what was known of it,
/// so that events merged, repeated or lost (then a rescan) still give each
/// change once. Used by one thread.
final class WatchEngine {
    /// An item: the index of its watched folder and its path inside it
    /// (empty for the folder itself).
    struct Key: Hashable {
        var root: Int
        var relative: [UInt8]

        func child(_ name: [UInt8]) -> Key {
            Key(root: root, relative: relative.isEmpty ? name : relative + [0x2F] + name)
        }

        func isInside(_ folder: Key) -> Bool {
            root == folder.root && relative.count > folder.relative.count + 1
                && relative[folder.relative.count] == 0x2F && relative.starts(with: folder.relative)
        }

        var name: [UInt8] { Array(relative.split(separator: 0x2F, omittingEmptySubsequences: false).last ?? []) }
    }

    /// What decides whether content changed: the inode and its size and
    /// modification time.
    struct Stamp: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int
        var modifiedNanoseconds: Int

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modified = info.st_mtim.tv_sec
            modifiedNanoseconds = info.st_mtim.tv_nsec
        }
    }

    enum State: Equatable {
        /// Reported, or there when the watch began (and not reported).
        case known
        /// New, not reported until settled.
        case settlingAdd(initial: Bool)
        /// Known, written since, not reported until settled.
        case settlingChange
    }

    struct Entry {
        var kind: EntryKind
        var stamp: Stamp
        var state: State
        /// Which queued look at it counts (older ones are stale).
        var generation = 0
        /// Its type when last reported.
        var type: UniformType?
    }

    struct Root {
        /// As given, escaped for display.
        let path: String
        /// As given (without a trailing slash): the start of the paths reported.
        let shown: [UInt8]
        /// Where it leads when the watch begins (symbolic links resolved):
        /// every look goes there, so a link put in its place later is not followed.
        var bytes: [UInt8]
        var watch: Int32?
        /// While the folder is missing: the watch on the folder holding it.
        var parentWatch: Int32?
    }

    let options: FolderWatcher.Options
    let typing: FileTyping
    let notify: InotifyQueue
    private let sink: (FolderWatchReport) -> Void
    private var roots: [Root]
    private var entries: [Key: Entry] = [:]
    /// The items of each folder that has any (an index of `entries`).
    private var children: [Key: Set<Key>] = [:]
    private var watches: [Int32: Key] = [:]
    /// The watch of each folder watched (the reverse of `watches`).
    private var watchOf: [Key: Int32] = [:]
    private var due = DueQueue<(key: Key, generation: Int)>()
    /// Items to look at once the events read are paired, in the order seen.
    private var dirty: [Key] = []
    private var dirtySet: Set<Key> = []
    private var parentCache: (key: Key, folder: FolderDescriptor)?
    /// During a rescan: every item listed.
    private var listed: Set<Key>?
    /// Folders to list, with `existing` as `inspect` takes it.
    private var toList: [(Key, Bool?)] = []

    static let folderMask = UInt32(
        IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB
            | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK)
    /// Added to what a folder watched already is watched for (`IN_MASK_ADD`).
    static let parentMask = UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_MASK_ADD)

    init(
        roots: [[UInt8]], options: FolderWatcher.Options, typing: FileTyping,
        emit: @escaping (FolderWatchReport) -> Void
    ) throws(FolderWatcher.Failure) {
        self.options = options
        self.typing = typing
        self.sink = emit
        self.notify = try InotifyQueue()
        self.roots = roots.map { bytes in
            var trimmed = bytes
            while trimmed.count > 1 && trimmed.last == 0x2F { trimmed.removeLast() }
            return Root(path: FileName(bytes).escaped, shown: trimmed, bytes: trimmed)
        }
    }

    /// Hands `report` on (telling the test hook how many folders are watched first).
    private func emit(_ report: FolderWatchReport) {
        options.watchCountBeforeEachReport?(watches.count)
        sink(report)
    }

    /// Whether the item is left out (`FolderWatcher.Options.ignore`) as a
    /// folder (`isFolder`) or as anything else. What is left out as anything
    /// else is left out as a folder too: only a pattern ending with `/`
    /// tells them apart.
    func isIgnored(_ key: Key, isFolder: Bool) -> Bool {
        !key.relative.isEmpty && !options.ignore.isEmpty
            && IgnorePattern.any(of: options.ignore, matches: key.relative, isFolder: isFolder)
    }

    /// The status of `path` (of a symbolic link itself unless `follow`),
    /// nil with `errno` set when there is none.
    static func status(_ path: [UInt8], follow: Bool = false) -> stat? {
        var info = stat()
        return FileStatus.withCPath(path) { follow ? stat($0, &info) : lstat($0, &info) } == 0 ? info : nil
    }

    /// `path` with symbolic links resolved, nil when it cannot be.
    static func realPath(_ path: [UInt8]) -> [UInt8]? {
        let resolved = (path + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { realpath($0.baseAddress!, nil) }
        }
        guard let resolved else { return nil }
        defer { free(resolved) }
        return Array(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Where the item is, to look at it.
    func path(_ key: Key) -> [UInt8] { join(roots[key.root].bytes, key.relative) }

    /// The item's path as reported: under the folder as it was given.
    func shownPath(_ key: Key) -> [UInt8] { join(roots[key.root].shown, key.relative) }

    private func join(_ root: [UInt8], _ relative: [UInt8]) -> [UInt8] {
        if relative.isEmpty { return root }
        return (root.last == 0x2F ? root : root + [0x2F]) + relative
    }

    // MARK: The index

    private func parent(of key: Key) -> Key {
        Key(root: key.root, relative: Array(key.relative.dropLast(min(key.name.count + 1, key.relative.count))))
    }

    private func insert(_ key: Key, _ entry: Entry) {
        if entries.updateValue(entry, forKey: key) == nil { children[parent(of: key), default: []].insert(key) }
    }

    @discardableResult
    private func remove(_ key: Key) -> Entry? {
        guard let entry = entries.removeValue(forKey: key) else { return nil }
        let folder = parent(of: key)
        children[folder]?.remove(key)
        if children[folder]?.isEmpty == true { children[folder] = nil }
        return entry
    }

    /// The items inside a folder, each before what it holds.
    private func descendants(of folder: Key) -> [Key] {
        var found: [Key] = []
        var pending = [folder]
        while let next = pending.popLast() {
            for child in children[next] ?? [] {
                found.append(child)
                pending.append(child)
            }
        }
        return found
    }

    private func bind(_ watch: Int32, to key: Key) {
        if let old = watches[watch], old != key, watchOf[old] == watch { watchOf[old] = nil }
        watches[watch] = key
        watchOf[key] = watch
    }

    /// Forgets a folder's watch, and asks the kernel to drop it.
    private func unbind(_ key: Key) {
        guard let watch = watchOf.removeValue(forKey: key) else { return }
        if watches[watch] == key {
            watches[watch] = nil
            notify.remove(watch)
        }
    }

    // MARK: Starting

    /// Watches and lists every folder; reports the items there as added
    /// when asked, else takes them as known. Throws when a folder cannot be
    /// watched.
    func start() throws(FolderWatcher.Failure) {
        var identities = Set<[UInt64]>()
        for index in roots.indices {
            let root = roots[index]
            guard let info = Self.status(root.bytes, follow: true) else {
                let error = SystemError.current("stat", path: root.path)
                throw FolderWatcher.Failure.system(error, path: root.path, reason: error.reason)
            }
            if let real = Self.realPath(root.bytes) { roots[index].bytes = real }
            guard info.isDirectory else {
                throw FolderWatcher.Failure(.notAFolder, path: root.path, reason: "is not a folder")
            }
            guard identities.insert([UInt64(info.st_dev), UInt64(info.st_ino)]).inserted else {
                throw FolderWatcher.Failure(.overlapping, path: root.path, reason: "is already watched (named twice)")
            }
        }
        for index in roots.indices { try attachRoot(index, reportExisting: options.reportsExisting) }
        emit(.ready(items: entries.count))
    }

    /// The failure for a folder reached twice: named twice, or one inside
    /// another watched with its subfolders (they would share watches).
    private func overlap(_ key: Key, _ other: Key) -> FolderWatcher.Failure {
        if other.relative.isEmpty && key.relative.isEmpty {
            return FolderWatcher.Failure(
                .overlapping, path: roots[key.root].path, reason: "is the same folder as \(roots[other.root].path)")
        }
        let (inner, outer) = key.relative.isEmpty ? (key, other) : (other, key)
        return FolderWatcher.Failure(
            .overlapping, path: roots[inner.root].path,
            reason: "is inside \(roots[outer.root].path), which is watched with its subfolders")
    }

    /// Watches the folder of root `index` (the folder first, then its
    /// contents are listed) and records what it holds.
    private func attachRoot(_ index: Int, reportExisting: Bool) throws(FolderWatcher.Failure) {
        releaseParentWatch(index)
        let key = Key(root: index, relative: [])
        switch try notify.add(roots[index].bytes, mask: Self.folderMask) {
        case .gone:
            try waitForRoot(index)
        case .refused(let error):
            throw FolderWatcher.Failure.system(error, path: roots[index].path, reason: "cannot watch: \(error.reason)")
        case .watching(let watch):
            if let other = watches[watch], other != key { throw overlap(key, other) }
            roots[index].watch = watch
            bind(watch, to: key)
            try walk(key, existing: reportExisting)
        }
    }

    /// Drops the watch on the folder holding a watched folder that was gone,
    /// unless another watched folder waits there too.
    private func releaseParentWatch(_ index: Int) {
        guard let parent = roots[index].parentWatch else { return }
        roots[index].parentWatch = nil
        if !roots.contains(where: { $0.parentWatch == parent }) && watches[parent] == nil { notify.remove(parent) }
    }

    /// Lists `folder` and looks at each item (`existing` as `look` takes
    /// it), then the folders still to list. During a rescan, each item
    /// listed joins `listed`, and folders known before are listed again.
    private func walk(_ folder: Key, existing: Bool?) throws(FolderWatcher.Failure) {
        toList.append((folder, existing))
        try listPending()
    }

    /// Lists the folders waiting to be listed, without recursion (a tree
    /// may be as deep as paths allow): new folders found join the list.
    private func listPending() throws(FolderWatcher.Failure) {
        while let (next, existing) = toList.popLast() {
            guard let names = DirectoryListing.names(inPath: path(next)) else { continue }
            for name in names {
                let child = next.child(name)
                listed?.insert(child)
                let wasKnownFolder = entries[child]?.kind == .folder
                try inspect(child, existing: existing)
                if listed != nil, options.recursive, wasKnownFolder, entries[child]?.kind == .folder {
                    if try watchFolder(child) == .watching { toList.append((child, existing)) }
                }
            }
        }
    }

    enum FolderWatch { case watching, gone, refused }

    /// Watches a folder inside the tree. One its permissions refuse is
    /// said (`FolderWatchReport.notWatched`) and left unwatched.
    private func watchFolder(_ key: Key) throws(FolderWatcher.Failure) -> FolderWatch {
        switch try notify.add(path(key), mask: Self.folderMask) {
        case .gone: return .gone
        case .refused(let error):
            emit(.notWatched(path: FileName(shownPath(key)).escaped, reason: error.reason))
            return .refused
        case .watching(let watch):
            if let other = watches[watch], other.relative.isEmpty, other != key { throw overlap(key, other) }
            // A folder found under a new name (moved while events were lost) is known by that name now.
            bind(watch, to: key)
            return .watching
        }
    }

    // MARK: Looking at an item

    /// Compares the item with what is known of it, and lists it if it is a
    /// new folder of a recursive watch.
    private func look(at key: Key) throws(FolderWatcher.Failure) {
        try inspect(key, existing: nil)
        try listPending()
    }

    /// Compares the item with what is known of it. `existing` is set while
    /// listing at the start: true reports the items found, false takes them
    /// as known. A new folder of a recursive watch is watched, then queued
    /// to be listed (`listPending`).
    private func inspect(_ key: Key, existing: Bool?) throws(FolderWatcher.Failure) {
        // Left out whatever it is: not even its status is read. (Known, it
        // was not left out before: a folder it is in was renamed.)
        if isIgnored(key, isFolder: false) {
            vanish(key)
            return
        }
        guard let info = Self.status(path(key)) else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { vanish(key) }
            return
        }
        let kind = EntryKind(of: info)
        // A folder left out is never watched or listed.
        if kind == .folder && isIgnored(key, isFolder: true) {
            vanish(key)
            return
        }
        let stamp = Stamp(info)
        if var entry = entries[key] {
            if entry.kind != kind {
                vanish(key)
            } else {
                if kind != .folder && entry.stamp != stamp {
                    if entry.state == .known { entry.state = .settlingChange }
                    entry.stamp = stamp
                    insert(key, entry)
                    schedule(key, after: 0)
                } else if entry.state != .known {
                    // Settling, and something happened to it (a writer closed it): look again now.
                    schedule(key, after: 0)
                }
                return
            }
        }
        if let existing, !existing {
            insert(key, Entry(kind: kind, stamp: stamp, state: .known))
            if kind == .folder && options.recursive, try watchFolder(key) == .watching { toList.append((key, false)) }
            return
        }
        let initial = existing ?? false
        if kind == .folder {
            // A folder is reported at once: its items settle each on their own.
            insert(key, Entry(kind: kind, stamp: stamp, state: .known))
            // Watched before it is listed, so nothing created in it meanwhile is missed.
            let watch = options.recursive ? try watchFolder(key) : .refused
            if watch == .gone {
                // Moved on (or removed) before it could be watched, and never reported: a rename event
                // lists it where it went.
                remove(key)
                return
            }
            report(.added, key, initial: initial)
            if watch == .watching { toList.append((key, existing)) }
            return
        }
        insert(key, Entry(kind: kind, stamp: stamp, state: .settlingAdd(initial: initial)))
        schedule(key, after: 0)
    }

    /// The item is gone: reported removed if it was reported (a folder's
    /// items first, deepest first), forgotten if it was still settling.
    private func vanish(_ key: Key) {
        guard let entry = entries[key] else { return }
        if entry.kind == .folder {
            for item in descendants(of: key).reversed() { vanishOne(item) }
        }
        vanishOne(key)
    }

    private func vanishOne(_ key: Key) {
        guard let entry = remove(key) else { return }
        if entry.kind == .folder { unbind(key) }
        if case .settlingAdd = entry.state { return }
        let event = FolderEvent(
            change: .removed, root: roots[key.root].path, path: shownPath(key), oldPath: nil, kind: entry.kind,
            type: nil, isInitial: false)
        if passes(event, remembered: entry.type) { emit(.event(event)) }
    }

    /// `from` was renamed to `to` inside the tree.
    private func rename(_ from: Key, to: Key) throws(FolderWatcher.Failure) {
        guard var entry = entries[from] else {
            markDirty(to)
            return
        }
        // Renamed to a name left out: gone from view, as if moved out.
        if isIgnored(to, isFolder: entry.kind == .folder) {
            vanish(from)
            return
        }
        guard let info = Self.status(path(to)), EntryKind(of: info) == entry.kind else {
            // Moved on again, or replaced, before it was looked at.
            vanish(from)
            markDirty(to)
            return
        }
        // Items of the batch still to be looked at moved with it.
        if dirty.contains(where: { $0 == from || $0.isInside(from) }) {
            dirty = dirty.map { $0 == from || $0.isInside(from) ? moved($0, from: from, to: to) : $0 }
            dirtySet = Set(dirty)
        }
        let replaced = entries[to]
        if replaced != nil { vanishQuietly(to) }
        // The item and everything in it move to their new paths.
        for item in [from] + descendants(of: from) {
            let moved = moved(item, from: from, to: to)
            guard let value = remove(item) else { continue }
            insert(moved, value)
            if let watch = watchOf.removeValue(forKey: item) { bind(watch, to: moved) }
            // What was settling there settles under its new path.
            if item != from && value.state != .known { schedule(moved, after: 0) }
        }
        let stamp = Stamp(info)
        let written = entry.kind != .folder && stamp != entry.stamp
        entry.stamp = stamp
        switch entry.state {
        case .settlingAdd:
            // Never reported: it replaces what was at `to` (a changed file) or is still new there.
            if let replaced, replaced.state != .settlingAdd(initial: false), replaced.kind == entry.kind {
                entry.state = .settlingChange
            }
            insert(to, entry)
            schedule(to, after: 0)
        case .known, .settlingChange:
            insert(to, entry)
            report(.renamed, to, from: from)
            if written || entry.state == .settlingChange {
                entries[to]?.state = .settlingChange
                schedule(to, after: 0)
            }
        }
        if entry.kind == .folder && options.recursive { try relist(to) }
    }

    /// Lists a folder and every folder known inside it again (a folder
    /// renamed just after it was made may have been listed under its old
    /// path, which was already gone); what was not known is reported.
    private func relist(_ folder: Key) throws(FolderWatcher.Failure) {
        let outer = listed
        listed = outer ?? []
        defer { listed = outer }
        try walk(folder, existing: nil)
    }

    /// Where `item`, at or inside `from`, is once `from` is renamed to `to`.
    private func moved(_ item: Key, from: Key, to: Key) -> Key {
        Key(root: to.root, relative: to.relative + item.relative[from.relative.count...])
    }

    /// Forgets an item replaced by a rename: the rename event says it.
    private func vanishQuietly(_ key: Key) {
        guard let entry = entries[key] else { return }
        if entry.kind == .folder {
            for item in descendants(of: key) {
                remove(item)
                unbind(item)
            }
            unbind(key)
        }
        remove(key)
    }

    // MARK: Settling

    private func schedule(_ key: Key, after delay: Double) {
        guard let generation = entries[key]?.generation else { return }
        entries[key]?.generation = generation + 1
        due.push((key, generation + 1), at: Self.now() + delay)
    }

    /// Seconds until the next item must be looked at; nil when none waits.
    var nextDelay: Double? { due.nextTime.map { max($0 - Self.now(), 0) } }

    /// Looks at the items whose time has come: reports those settled.
    func settleDue() throws(FolderWatcher.Failure) {
        let now = Self.now()
        while let (key, generation) = due.pop(dueBy: now) {
            guard var entry = entries[key], entry.generation == generation, entry.state != .known else { continue }
            guard let info = Self.status(path(key)), EntryKind(of: info) == entry.kind else {
                try look(at: key)
                continue
            }
            entry.stamp = Stamp(info)
            entries[key]?.stamp = entry.stamp
            if let reason = waitReason(key, info, kind: entry.kind) {
                schedule(key, after: options.settle.retryDelay(after: reason))
                continue
            }
            entries[key]?.state = .known
            switch entry.state {
            case .settlingAdd(let initial): report(.added, key, initial: initial)
            default: report(.changed, key)
            }
        }
    }

    /// Why the item must wait (the inbox's settle rules), nil when settled.
    private func waitReason(_ key: Key, _ info: stat, kind: EntryKind) -> SettlePolicy.WaitReason? {
        let parent = Key(root: key.root, relative: Array(key.relative.dropLast(key.name.count + 1)))
        let folder: FolderDescriptor
        if let cached = parentCache, cached.key == parent {
            folder = cached.folder
        } else {
            guard let opened = try? FolderDescriptor.open(path(parent)) else {
                // Its folder is gone: the next look finds the item gone too.
                return .changedRecently(secondsAgo: 0)
            }
            parentCache = (parent, opened)
            folder = opened
        }
        return options.settle.wait(for: info, kind: kind, FileName(key.name), in: folder)
    }

    // MARK: Reporting

    private func report(_ change: FolderEvent.Change, _ key: Key, from: Key? = nil, initial: Bool = false) {
        guard let entry = entries[key] else { return }
        let type = try? typing.type(forPath: path(key), options: options.typing)
        let remembered = entry.type
        entries[key]?.type = type?.type
        var event = FolderEvent(
            change: change, root: roots[key.root].path, path: shownPath(key), oldPath: from.map(shownPath),
            kind: entry.kind, type: type, isInitial: initial)
        guard let filter = options.conformingTo else {
            emit(.event(event))
            return
        }
        let now = type?.type.conforms(to: filter) ?? false
        guard change == .renamed, let from else {
            if now { emit(.event(event)) }
            return
        }
        // Seen through the filter, a rename into the type is an arrival and one out of it a departure.
        let before = (remembered ?? typing.type(forName: FileTyping.fileName(of: shownPath(from))).type)
            .conforms(to: filter)
        switch (before, now) {
        case (true, true): emit(.event(event))
        case (false, true):
            event.change = .added
            event.oldPath = nil
            emit(.event(event))
        case (true, false):
            emit(
                .event(
                    FolderEvent(
                        change: .removed, root: event.root, path: shownPath(from), oldPath: nil, kind: entry.kind,
                        type: nil, isInitial: false)))
        case (false, false): break
        }
    }

    /// Whether a removed item passes the filter: by the type it was
    /// reported with, else by its name's.
    private func passes(_ event: FolderEvent, remembered: UniformType?) -> Bool {
        guard let filter = options.conformingTo else { return true }
        let type = remembered ?? typing.type(forName: FileTyping.fileName(of: event.path)).type
        return type.conforms(to: filter)
    }

    // MARK: Events

    private func markDirty(_ key: Key) {
        if dirtySet.insert(key).inserted { dirty.append(key) }
    }

    /// Reads and handles every event ready: renames paired by cookie, other
    /// events mark their item to be looked at, and a lost event (queue
    /// overflow) or a watched folder moved or removed starts a rescan.
    func handleEvents() throws(FolderWatcher.Failure) {
        var movedFrom: (cookie: UInt32, key: Key)?
        var overflowed = false
        var goneRoots: [Int] = []
        var returnedRoots: [Int] = []
        var events = notify.read()
        while !events.isEmpty {
            for event in events {
                if event.has(IN_Q_OVERFLOW) {
                    overflowed = true
                    continue
                }
                let waiting = roots.indices.filter { roots[$0].parentWatch == event.watch }
                // The folder holding a missing watched folder may itself be watched: its events count twice.
                if !waiting.isEmpty {
                    let alsoWatched = watches[event.watch] != nil
                    if !alsoWatched && (event.has(IN_DELETE_SELF) || event.has(IN_MOVE_SELF) || event.has(IN_IGNORED)) {
                        throw FolderWatcher.Failure(
                            .parentGone, path: roots[waiting[0]].path,
                            reason: "the folder holding it was moved or removed")
                    }
                    returnedRoots += waiting.filter {
                        event.name == Array(roots[$0].bytes.split(separator: 0x2F).last ?? [])
                    }
                    if !alsoWatched { continue }
                }
                guard let folder = watches[event.watch] else { continue }
                if event.has(IN_IGNORED) {
                    watches[event.watch] = nil
                    if watchOf[folder] == event.watch { watchOf[folder] = nil }
                    if folder.relative.isEmpty && roots[folder.root].watch == event.watch {
                        goneRoots.append(folder.root)
                    }
                    continue
                }
                if event.has(IN_DELETE_SELF) || event.has(IN_MOVE_SELF) {
                    if folder.relative.isEmpty { goneRoots.append(folder.root) }
                    continue
                }
                // The folder's own mode or times changed: nothing to report.
                if event.name.isEmpty { continue }
                let key = folder.child(event.name)
                if event.has(IN_MOVED_FROM) {
                    if let pending = movedFrom { markDirty(pending.key) }
                    movedFrom = (event.cookie, key)
                    continue
                }
                if event.has(IN_MOVED_TO), let pending = movedFrom, pending.cookie == event.cookie {
                    movedFrom = nil
                    try rename(pending.key, to: key)
                    continue
                }
                if let pending = movedFrom {
                    markDirty(pending.key)
                    movedFrom = nil
                }
                markDirty(key)
            }
            // The other half of a rename may be on its way.
            events = movedFrom != nil && notify.waitReadable(milliseconds: 2) ? notify.read() : []
        }
        if let pending = movedFrom { markDirty(pending.key) }
        let keys = dirty
        dirty = []
        dirtySet = []
        parentCache = nil
        for key in keys where !overflowed { try look(at: key) }
        for index in Set(goneRoots).sorted() {
            try rescan(index, reason: "the folder was moved or removed")
        }
        for index in Set(returnedRoots).sorted() where roots[index].watch == nil {
            try rootReturned(index)
        }
        if overflowed {
            for index in roots.indices where roots[index].watch != nil {
                try rescan(
                    index,
                    reason: "the kernel's event queue overflowed " + InotifyQueue.limit("max_queued_events"))
            }
        }
    }

    /// Lists the folder again and reports every difference from what was
    /// known. A folder gone from its path has its items reported removed,
    /// and is watched for again from the folder holding it.
    private func rescan(_ index: Int, reason: String) throws(FolderWatcher.Failure) {
        emit(.rescanned(root: roots[index].path, reason: reason))
        let rootKey = Key(root: index, relative: [])
        // Never through a symbolic link put in the folder's place.
        let present = Self.status(roots[index].bytes)?.isDirectory ?? false
        var added = present ? try notify.add(roots[index].bytes, mask: Self.folderMask) : .gone
        if case .watching(let watch) = added, roots[index].watch == watch {
            listed = []
            defer { listed = nil }
            try walk(rootKey, existing: nil)
            let seen = listed ?? []
            for key in descendants(of: rootKey).reversed() where !seen.contains(key) { vanish(key) }
            return
        }
        // Another folder, or none, is at the path now: everything known is gone.
        for key in descendants(of: rootKey).reversed() { vanishOne(key) }
        for (watch, folder) in watches where folder.root == index {
            watches[watch] = nil
            watchOf[folder] = nil
            notify.remove(watch)
        }
        roots[index].watch = nil
        if case .watching(let watch) = added {
            // The new watch took the place of the old one, which was just removed: watch anew.
            notify.remove(watch)
            added = .gone
        }
        if present {
            // Said as when it comes back later, so the lines do not depend on how fast it came back.
            emit(.rescanned(root: roots[index].path, reason: "the folder is there again"))
            try attachRoot(index, reportExisting: true)
        } else {
            try waitForRoot(index)
        }
    }

    /// Watches the folder holding a missing watched folder for it to come back.
    private func waitForRoot(_ index: Int) throws(FolderWatcher.Failure) {
        let bytes = roots[index].bytes
        let parent: [UInt8]
        if let slash = bytes.lastIndex(of: 0x2F) {
            parent = slash == 0 ? [0x2F] : Array(bytes[..<slash])
        } else {
            parent = [0x2E]
        }
        guard case .watching(let watch) = try notify.add(parent, mask: Self.parentMask) else {
            throw FolderWatcher.Failure(.parentGone, path: roots[index].path, reason: "the folder holding it is gone")
        }
        roots[index].parentWatch = watch
        // It may have come back before the watch was in place.
        if Self.status(roots[index].bytes)?.isDirectory ?? false { try rootReturned(index) }
    }

    /// A folder that was gone is there again: said, watched, and what it
    /// holds reported as added.
    private func rootReturned(_ index: Int) throws(FolderWatcher.Failure) {
        guard Self.status(roots[index].bytes)?.isDirectory ?? false else { return }
        emit(.rescanned(root: roots[index].path, reason: "the folder is there again"))
        try attachRoot(index, reportExisting: true)
    }
}
