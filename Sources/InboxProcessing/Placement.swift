import CLinuxCalls
import SystemBase

#if canImport(Glibc)
    import Glibc
#endif

/// What happened when an item was to be given a name in the destination.
enum PlacementResult {
    case placed
    /// The name is taken; try the next one.
    case taken
    /// The source is no longer there: another process moved it.
    case sourceGone
    /// The destination is on another file system; the item must be copied.
    case crossDevice
    case failed(InboxProcessor.ItemFailure)
}

/// Gives an item a name in the destination folder without ever replacing
/// what is there: `place` is tried with one free-looking name after another
/// until it reports `.placed`.
protocol Placement {
    mutating func place(as name: FileName) -> PlacementResult
}

/// Renames the item within one file system: atomic and no-clobber with
/// `renameat2(RENAME_NOREPLACE)`; where the file system refuses that flag,
/// a hard link and an unlink (never for folders, which cannot be linked).
struct RenamePlacement: Placement {
    let source: FolderDescriptor
    let name: FileName
    let isFolder: Bool
    let destination: FolderDescriptor
    private var linkInstead = false

    init(source: FolderDescriptor, name: FileName, isFolder: Bool, destination: FolderDescriptor) {
        self.source = source
        self.name = name
        self.isFolder = isFolder
        self.destination = destination
    }

    mutating func place(as target: FileName) -> PlacementResult {
        if linkInstead { return link(as: target) }
        let result = name.bytes.withCString { from in
            target.bytes.withCString { to in uti_rename_noreplace(source.fd, from, destination.fd, to) }
        }
        if result == 0 { return .placed }
        let error = SystemError.current
        switch error.code {
        case EEXIST: return .taken
        case EXDEV: return .crossDevice
        case ENOENT where !source.contains(name): return .sourceGone
        case EINVAL, ENOSYS, ENOTSUP:
            guard !isFolder else {
                return .failed(
                    InboxProcessor.ItemFailure(
                        .unsupportedFileSystem,
                        "this file system cannot move a folder without the risk of replacing one (\(error))",
                        systemError: SystemError(error.code, call: "renameat2", path: name.escaped)))
            }
            linkInstead = true
            return link(as: target)
        default:
            return .failed(.system(error.description, SystemError(error.code, call: "renameat2", path: name.escaped)))
        }
    }

    private func link(as target: FileName) -> PlacementResult {
        let result = name.bytes.withCString { from in
            target.bytes.withCString { to in linkat(source.fd, from, destination.fd, to, 0) }
        }
        if result != 0 {
            let error = SystemError.current
            switch error.code {
            case EEXIST: return .taken
            case EXDEV: return .crossDevice
            case ENOENT where !source.contains(name): return .sourceGone
            default:
                return .failed(.system(error.description, SystemError(error.code, call: "linkat", path: name.escaped)))
            }
        }
        let unlinked = name.bytes.withCString { unlinkat(source.fd, $0, 0) }
        if unlinked != 0 && errno != ENOENT {
            let error = SystemError.current
            return .failed(
                InboxProcessor.ItemFailure(
                    .originalKept, "linked as \(target) but the original could not be removed: \(error)",
                    systemError: SystemError(error.code, call: "unlinkat", path: name.escaped)))
        }
        return .placed
    }
}
