import SystemBase

#if canImport(Glibc)
    import Glibc
#endif

/// The folder of Documents that copies from another file system are
/// assembled in until they are whole: mode 0700 and a random name, so that
/// no other user can enter it and no copy is seen half made. It is
/// recorded (`RunRecord`) before it is made, with its inode once it is; a
/// run killed midway has it removed by the next run that finds the record.
/// Nothing is ever recognised by the folder's name.
final class StagingFolder {
    let documents: FolderDescriptor
    let name: FileName
    let folder: FolderDescriptor
    private let record: RunRecord
    private var entries = 0

    private init(documents: FolderDescriptor, name: FileName, folder: FolderDescriptor, record: RunRecord) {
        self.documents = documents
        self.name = name
        self.folder = folder
        self.record = record
    }

    /// Makes a new staging folder in `destination` (the folder copies are
    /// published in), recorded in `records`.
    static func make(in destination: CopyDestination, records: RecordFolder) throws(SystemError) -> StagingFolder {
        let fields = try destination.fields()
        let (name, folder, record) = try RunRecord.makeRecordedFolder(
            .staging, prefix: ".uti-staging-", in: destination.folder, records: records,
            fields: { fields + [$0.bytes] })
        return StagingFolder(documents: destination.folder, name: name, folder: folder, record: record)
    }

    /// A name no entry of the folder has had yet.
    func newEntryName() -> FileName {
        entries += 1
        return FileName(Array(String(entries).utf8))
    }

    /// Removes the folder and its record, when nothing is left in it; what
    /// is left (a copy that could not be removed) stays recorded, for a
    /// later run to remove.
    func finish() {
        switch removeFolder(name, in: documents, ifItIs: folder) {
        case .removed: record.remove()
        // Renamed away: a later run finds the record's name taken by
        // something else, or nothing, and drops the record.
        case .notThere, .kept: break
        }
    }
}

/// What the moves across file systems of one pass share: the record
/// folder, opened at the first need, and a staging folder in each folder
/// items are copied into (Documents, or a folder of it items are routed
/// to), made at the first need and removed at the end of the pass.
final class CrossDeviceState {
    private let recordPath: String?
    private var recordFolder: Result<RecordFolder, InboxProcessor.ItemFailure>?
    private var staging: [FileID: StagingFolder] = [:]

    init(recordPath: String?) {
        self.recordPath = recordPath
    }

    /// The record folder, or why it cannot be used (the same answer for the whole pass).
    func records() throws(InboxProcessor.ItemFailure) -> RecordFolder {
        if recordFolder == nil {
            if let recordPath {
                do { recordFolder = .success(try RecordFolder.open(recordPath)) } catch {
                    recordFolder = .failure(error)
                }
            } else {
                recordFolder = .failure(
                    InboxProcessor.ItemFailure(
                        .recordsUnavailable,
                        "cannot keep a record of the move: neither XDG_STATE_HOME nor HOME is set, so there is no record folder"
                    ))
            }
        }
        return try recordFolder!.get()
    }

    /// The records of this user's runs, read from the record folder when
    /// there is one (a run that only renames never makes it).
    func existingRecords() -> [RecordedEntry] {
        if recordFolder == nil, let recordPath {
            switch RecordFolder.openExisting(recordPath) {
            case .some(.success(let folder)): recordFolder = .success(folder)
            case .some(.failure(let error)): recordFolder = .failure(error)
            case nil: return []
            }
        }
        guard case .success(let folder) = recordFolder else { return [] }
        return folder.records()
    }

    /// The staging folder of this pass in `destination`.
    func stagingFolder(in destination: CopyDestination) throws(InboxProcessor.ItemFailure) -> StagingFolder {
        guard let id = FileID(of: destination.folder) else {
            throw InboxProcessor.ItemFailure(
                SystemError.current("fstat", path: destination.folder.path),
                context: "cannot make a folder to copy into")
        }
        if let made = staging[id] { return made }
        let records = try records()
        do {
            let made = try StagingFolder.make(in: destination, records: records)
            staging[id] = made
            return made
        } catch {
            throw InboxProcessor.ItemFailure(error, context: "cannot make a folder to copy into")
        }
    }

    /// Removes the staging folders, once empty.
    func finish() {
        for folder in staging.values { folder.finish() }
        staging = [:]
    }
}

/// What `removeFolder(_:in:ifItIs:)` did.
enum FolderRemoval {
    case removed
    /// The name holds another entry, or none: nothing was removed.
    case notThere
    /// It is still there (not empty, or it could not be removed).
    case kept
}

/// Removes the empty folder `name` of `parent` only while the name still
/// holds the open folder `folder` (same device and inode): a folder another
/// user renamed away and replaced under the same name is never removed.
func removeFolder(_ name: FileName, in parent: FolderDescriptor, ifItIs folder: FolderDescriptor) -> FolderRemoval {
    guard let id = FileID(of: folder), case .success(let info) = parent.status(of: name), FileID(info) == id else {
        return .notThere
    }
    if name.bytes.withCString({ unlinkat(parent.fd, $0, AT_REMOVEDIR) }) == 0 || errno == ENOENT { return .removed }
    return .kept
}
