import SystemBase

#if canImport(Glibc)
    import Glibc
#endif

/// A file or folder named by its device and inode.
struct FileID: Equatable, Hashable, Sendable {
    var device: UInt64
    var inode: UInt64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    /// The open folder's identity, or nil when it cannot be read.
    init?(of folder: FolderDescriptor) {
        var info = stat()
        guard fstat(folder.fd, &info) == 0 else { return nil }
        self.init(info)
    }
}

/// The folder where runs of the inbox keep their records: of the running
/// user, and writable by no one else, so that nothing another user can name
/// or write is ever taken for recovery state. `$XDG_STATE_HOME/uti/inbox`
/// by default (`~/.local/state/uti/inbox`), made with mode 0700 when it is
/// missing; a symbolic link on the way to it is followed only when it is
/// the running user's or root's.
final class RecordFolder {
    let folder: FolderDescriptor

    private init(_ folder: FolderDescriptor) { self.folder = folder }

    /// The default place: `STATE/uti/inbox`, where STATE is
    /// `$XDG_STATE_HOME`, else `$HOME/.local/state`; nil with neither set.
    static func defaultPath(_ variables: [String: String] = ProcessEnvironment.current) -> String? {
        XDGBaseDirectories(variables).stateHome.map { $0 == "/" ? "/uti/inbox" : $0 + "/uti/inbox" }
    }

    /// Opens (making it when missing) the record folder at `path`. Throws
    /// a message when it cannot be used: not a folder of the running user,
    /// or one others may write.
    static func open(_ path: String) throws(InboxProcessor.ItemFailure) -> RecordFolder {
        let fd: Int32
        do { fd = try GuardedPath.openFolder(path, creating: 0o700) } catch {
            throw unavailable("cannot keep a record of the move in \(path): \(error)", error)
        }
        return try checked(FolderDescriptor(adopting: fd, path: path))
    }

    /// The record folder at `path` when there is one (nil when it is
    /// missing), opened as `open(_:)` opens it.
    static func openExisting(_ path: String) -> Result<RecordFolder, InboxProcessor.ItemFailure>? {
        let fd: Int32
        do { fd = try GuardedPath.openFolder(path) } catch {
            if case .system(let error) = error, error.code == ENOENT { return nil }
            return .failure(unavailable("cannot read the records in \(path): \(error)", error))
        }
        do { return .success(try checked(FolderDescriptor(adopting: fd, path: path))) } catch {
            return .failure(error)
        }
    }

    /// A record folder that cannot be used, told by `message`.
    private static func unavailable(_ message: String, _ error: GuardedPath.Failure) -> InboxProcessor.ItemFailure {
        guard case .system(let system) = error else { return InboxProcessor.ItemFailure(.recordsUnavailable, message) }
        return InboxProcessor.ItemFailure(.recordsUnavailable, message, systemError: system)
    }

    private static func checked(_ folder: FolderDescriptor) throws(InboxProcessor.ItemFailure) -> RecordFolder {
        let path = folder.path
        let fd = folder.fd
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = SystemError.current("fstat", path: path)
            throw InboxProcessor.ItemFailure(.recordsUnavailable, "cannot keep a record: \(error)", systemError: error)
        }
        guard info.st_uid == geteuid(), info.st_mode & 0o022 == 0 else {
            throw InboxProcessor.ItemFailure(
                .recordsUnavailable,
                "cannot keep a record of the move in \(path): it is "
                    + (info.st_uid != geteuid()
                        ? "owned by user \(info.st_uid)"
                        : "writable by others (mode \(String(info.st_mode & 0o7777, radix: 8)))")
                    + "; records are kept only in a folder of the running user that no one else may write")
        }
        return RecordFolder(folder)
    }

    /// The records of every run, as this program writes them: regular
    /// files of the running user that no one else may write, with one link,
    /// named `MACHINE-PID-START-RANDOM.KIND` and holding fields each ended
    /// by a NUL byte. Anything else in the folder is passed over.
    func records() -> [RecordedEntry] {
        var found: [RecordedEntry] = []
        for name in (try? folder.names()) ?? [] {
            guard let (run, kind) = RunRecord.parseName(name), let fields = read(name) else { continue }
            if let entry = RecordedEntry(name: name, run: run, kind: kind, fields: fields) { found.append(entry) }
        }
        return found.sorted { $0.name < $1.name }
    }

    private func read(_ name: FileName) -> [[UInt8]]? {
        let fd = name.bytes.withCString { openat(folder.fd, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.isRegularFile, info.st_uid == geteuid(), info.st_nlink == 1,
            info.st_mode & 0o022 == 0, info.st_size <= RunRecord.maximumSize
        else { return nil }
        var buffer = [UInt8](repeating: 0, count: RunRecord.maximumSize + 1)
        var count = 0
        while count < buffer.count {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            count += n
        }
        // A record cut short by a crash keeps the fields that were written whole.
        guard let end = buffer[..<count].lastIndex(of: 0) else { return [] }
        return buffer[..<end].split(separator: 0, omittingEmptySubsequences: false).map(Array.init)
    }

    /// Removes the record `name`.
    func remove(_ name: FileName) {
        _ = name.bytes.withCString { unlinkat(folder.fd, $0, 0) }
    }
}

/// One record a run keeps while it has something under way that a run
/// killed midway would leave: an item set aside in the Inbox (`moving`), or
/// the folder of Documents that copies are assembled in (`staging`). It is
/// written before the thing it names exists, completed with that thing's
/// inode once it does, and removed once the thing is gone.
final class RunRecord {
    enum Kind: String {
        /// Fields: the destination (the folder the item is copied into,
        /// Documents or a folder of it the item is routed to, as
        /// `CopyDestination.fields` gives it), the Inbox's device and
        /// inode, the hidden folder's name in the Inbox, the item's name
        /// there; then the hidden folder's inode; then, any number of
        /// times, the name and inode of the published copy (the last counts).
        case moving = "move"
        /// Fields: the destination (the folder copies are published in, as
        /// `CopyDestination.fields` gives it), the staging folder's name
        /// there; then its inode.
        case staging = "stage"
        /// A `moving` record as earlier versions wrote it, read and never
        /// written: its destination is the device and inode alone (no
        /// Documents, no path), taken to be Documents.
        case movingWithoutPath = "moving"
        /// A `staging` record as earlier versions wrote it (see `movingWithoutPath`).
        case stagingWithoutPath = "staging"
    }

    /// A record is never larger: a few names and numbers.
    static let maximumSize = 64 * (FileName.maximumLength + 24)

    /// The longest destination path a record holds, in bytes.
    static let maximumPathLength = Int(PATH_MAX)

    let folder: RecordFolder
    let name: FileName
    private var fd: Int32

    private init(folder: RecordFolder, name: FileName, fd: Int32) {
        self.folder = folder
        self.name = name
        self.fd = fd
    }

    deinit { if fd >= 0 { close(fd) } }

    /// A new record of `kind` in `folder` holding `fields`. Not synced: a
    /// record matters once an inode is added to it (`append(_:)` syncs).
    static func create(
        _ kind: Kind, in folder: RecordFolder, _ fields: [[UInt8]], run: RunIdentity = .current
    ) throws(SystemError) -> RunRecord {
        for _ in 0..<100 {
            let name = FileName(
                Array("\(run.token)-\(String(UInt64.random(in: 0...UInt64.max), radix: 16)).".utf8)
                    + Array(kind.rawValue.utf8))
            let fd = name.bytes.withCString {
                openat(folder.folder.fd, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0o600)
            }
            if fd < 0 {
                if errno == EEXIST { continue }
                throw .current("open", path: folder.folder.path)
            }
            let record = RunRecord(folder: folder, name: name, fd: fd)
            do { try record.write(fields, sync: false) } catch {
                record.remove()
                throw error
            }
            return record
        }
        throw SystemError(EEXIST, call: "open", path: folder.folder.path)
    }

    /// A new folder of `parent` (mode 0700, named `prefix` and a random
    /// number), recorded before it is made: a new record of `kind` holding
    /// `fields` (given the folder's name) is written first, then the folder
    /// is made, and its inode and `completion` are added to the record,
    /// synced, before it is returned. A name taken meanwhile is tried anew;
    /// on failure nothing is left but, at worst, an empty folder the record
    /// names without an inode (which recovery removes).
    static func makeRecordedFolder(
        _ kind: Kind, prefix: String, in parent: FolderDescriptor, records: RecordFolder,
        fields: (FileName) -> [[UInt8]], completion: [[UInt8]] = []
    ) throws(SystemError) -> (name: FileName, folder: FolderDescriptor, record: RunRecord) {
        for _ in 0..<100 {
            let name = FileName(Array((prefix + String(UInt64.random(in: 0...UInt64.max), radix: 16)).utf8))
            let record = try create(kind, in: records, fields(name))
            guard name.bytes.withCString({ mkdirat(parent.fd, $0, 0o700) }) == 0 else {
                let error = SystemError.current("mkdir", path: parent.path)
                record.remove()
                if error.code == EEXIST { continue }
                throw error
            }
            do throws(SystemError) {
                let folder = try parent.openFolder(name, displayPath: parent.path + "/" + name.escaped)
                guard let id = FileID(of: folder) else { throw SystemError.current("fstat", path: folder.path) }
                try record.append([field(id.inode)] + completion)
                return (name, folder, record)
            } catch {
                if name.bytes.withCString({ unlinkat(parent.fd, $0, AT_REMOVEDIR) }) == 0 { record.remove() }
                throw error
            }
        }
        throw SystemError(EEXIST, call: "mkdir", path: parent.path)
    }

    /// Adds `fields` and makes them durable before returning.
    func append(_ fields: [[UInt8]]) throws(SystemError) {
        try write(fields, sync: true)
    }

    private func write(_ fields: [[UInt8]], sync: Bool) throws(SystemError) {
        let bytes: [UInt8] = fields.flatMap { $0 + [0] }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .current("write", path: folder.folder.path) }
            done += n
        }
        if sync {
            guard fsync(fd) == 0 else { throw .current("fsync", path: folder.folder.path) }
            folder.folder.sync()
        }
    }

    /// Removes the record: what it named is gone.
    func remove() {
        folder.remove(name)
        close(fd)
        fd = -1
    }

    /// A decimal number as a field.
    static func field(_ number: UInt64) -> [UInt8] { Array(String(number).utf8) }

    /// The run and the kind a record's name gives, when it has the form
    /// this program gives it.
    static func parseName(_ name: FileName) -> (RunIdentity, Kind)? {
        guard let (run, rest) = RunIdentity.parse(name.bytes[...]), let dot = rest.firstIndex(of: UInt8(ascii: "."))
        else { return nil }
        let random = rest[..<dot]
        guard !random.isEmpty, random.count <= 16,
            random.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }),
            let kind = Kind(rawValue: String(decoding: rest[(dot + 1)...], as: UTF8.self))
        else { return nil }
        return (run, kind)
    }
}

/// A record read back: what a run had under way.
struct RecordedEntry {
    /// The record's name in the record folder.
    var name: FileName
    /// The run that wrote it.
    var run: RunIdentity
    /// The folder the copy goes to: Documents, or a folder of it items are routed to.
    var destination: FileID
    /// The Documents folder the destination is in, and the destination's
    /// path below it (none for Documents itself). A record of an earlier
    /// version names neither: its destination is taken to be Documents.
    var documents: FileID
    var path: [FileName]
    var what: What

    enum What {
        /// An item set aside in the Inbox of identity `inbox`, in the
        /// folder `hidden` (of inode `hiddenInode` once it was made), under
        /// its first name `original`; `copy`, its copy once published.
        case moving(
            inbox: FileID, hidden: FileName, original: FileName, hiddenInode: UInt64?,
            copy: (name: FileName, inode: UInt64)?)
        /// The folder `staging` of the destination (of inode `inode` once made).
        case staging(FileName, inode: UInt64?)
    }

    init?(name: FileName, run: RunIdentity, kind: RunRecord.Kind, fields: [[UInt8]]) {
        func number(_ field: [UInt8]) -> UInt64? {
            guard !field.isEmpty, field.count <= 20, field.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            return UInt64(String(decoding: field, as: UTF8.self))
        }
        func component(_ field: [UInt8]) -> FileName? {
            SetAside.isSingleComponent(field) ? FileName(field) : nil
        }
        guard fields.count >= 2, let device = number(fields[0]), let inode = number(fields[1]) else { return nil }
        self.name = name
        self.run = run
        destination = FileID(device: device, inode: inode)
        // The fields after the destination's, as a record of an earlier version has them.
        var fields = fields
        switch kind {
        case .moving, .staging:
            guard fields.count >= 5, let documentsDevice = number(fields[2]), let documentsInode = number(fields[3]),
                let path = CopyDestination.path(fields[4])
            else { return nil }
            documents = FileID(device: documentsDevice, inode: documentsInode)
            self.path = path
            fields.removeSubrange(2..<5)
        case .movingWithoutPath, .stagingWithoutPath:
            documents = destination
            path = []
        }
        switch kind {
        case .staging, .stagingWithoutPath:
            guard fields.count == 3 || fields.count == 4, let staging = component(fields[2]) else { return nil }
            var stagingInode: UInt64?
            if fields.count == 4 {
                guard let value = number(fields[3]) else { return nil }
                stagingInode = value
            }
            what = .staging(staging, inode: stagingInode)
        case .moving, .movingWithoutPath:
            guard fields.count >= 6, let inboxDevice = number(fields[2]), let inboxInode = number(fields[3]),
                let hidden = component(fields[4]), let original = component(fields[5])
            else { return nil }
            var hiddenInode: UInt64?
            var copy: (name: FileName, inode: UInt64)?
            if fields.count > 6 {
                guard let value = number(fields[6]), (fields.count - 7) % 2 == 0 else { return nil }
                hiddenInode = value
                for index in stride(from: 7, to: fields.count, by: 2) {
                    guard let copyName = component(fields[index]), let copyInode = number(fields[index + 1]) else {
                        return nil
                    }
                    copy = (copyName, copyInode)
                }
            }
            what = .moving(
                inbox: FileID(device: inboxDevice, inode: inboxInode), hidden: hidden, original: original,
                hiddenInode: hiddenInode, copy: copy)
        }
    }
}

/// The folder a copy goes to, as a record names it: by its device and
/// inode, and by where it is, so that any later run over the same Documents
/// finds it whatever its rules: the device and inode of Documents, and the
/// folder's path below it (none for Documents itself). A later run opens
/// the path one component at a time and uses what it finds only when it is
/// the folder of the recorded device and inode (`SetAside.locate`).
struct CopyDestination {
    /// The folder, open.
    let folder: FolderDescriptor
    /// Its components below Documents, each a single name.
    let path: [FileName]
    /// The device and inode of Documents.
    let documents: FileID

    /// The fields that name it in a record: its device and inode,
    /// Documents' device and inode, and its path, the components joined by
    /// `/` (an empty field for Documents itself). Throws when it cannot be
    /// read, or its path is longer than a record holds.
    func fields() throws(SystemError) -> [[UInt8]] {
        guard let id = FileID(of: folder) else { throw .current("fstat", path: folder.path) }
        let joined = Array(path.map(\.bytes).joined(separator: [UInt8(ascii: "/")]))
        guard joined.count <= RunRecord.maximumPathLength, path.allSatisfy({ SetAside.isSingleComponent($0.bytes) })
        else { throw SystemError(ENAMETOOLONG, call: "write", path: folder.path) }
        return [
            RunRecord.field(id.device), RunRecord.field(id.inode), RunRecord.field(documents.device),
            RunRecord.field(documents.inode), joined,
        ]
    }

    /// The path a record's field names: its components, each a single
    /// name; none for an empty field; nil when it is not such a path.
    static func path(_ field: [UInt8]) -> [FileName]? {
        guard !field.isEmpty else { return [] }
        guard field.count <= RunRecord.maximumPathLength else { return nil }
        var components: [FileName] = []
        for part in field.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            guard SetAside.isSingleComponent(Array(part)) else { return nil }
            components.append(FileName(Array(part)))
        }
        return components
    }
}
