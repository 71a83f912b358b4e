import SystemBase
import UniformTypes

/// A settled change in a watched folder.
public struct FolderEvent: Sendable {
    /// What happened to the item.
    public enum Change: String, Sendable {
        /// It appeared (created, moved in, or found by a rescan), and has
        /// settled.
        case added
        /// It is gone (deleted, or moved out of the watched tree). A folder's
        /// items are reported removed before the folder.
        case removed
        /// Its content was written (its size, modification time or inode
        /// changed), and it has settled again.
        case changed
        /// It was renamed or moved within the watched tree (`oldPath` is
        /// where it was); a folder's items move with it, unreported.
        case renamed
    }

    /// What happened.
    public var change: Change
    /// The watched folder the item is in, as it was given.
    public var root: String
    /// The item's path: `root`, a slash, and its path inside `root`, as bytes
    /// (a name need not be UTF-8).
    public var path: [UInt8]
    /// Where a renamed item was, in the same form as `path`.
    public var oldPath: [UInt8]?
    /// What the item is (for a removed item, what it was).
    public var kind: EntryKind
    /// Its type, as `FileTyping.type(forPath:options:)` gives it (what
    /// `uti file` prints): for an item that exists, nil for a removed one.
    public var type: FileTyping.Result?
    /// Whether the item was already there when the watch began (reported
    /// only with `FolderWatcher.Options.reportsExisting`).
    public var isInitial: Bool

    /// `path` printable on one line, escaped as `uti inbox` escapes names.
    public var displayPath: String { FileName(path).escaped }
    /// `oldPath` printable on one line.
    public var displayOldPath: String? { oldPath.map { FileName($0).escaped } }
}

/// What a watch tells, in order.
public enum FolderWatchReport: Sendable {
    /// Every folder is watched and was listed: changes from now on are
    /// reported. `items` is how many items the watched folders held.
    case ready(items: Int)
    /// A settled change.
    case event(FolderEvent)
    /// The folder was listed again and compared with what was known,
    /// because events may have been lost (`reason`); the differences follow
    /// as events.
    case rescanned(root: String, reason: String)
    /// A folder inside a recursive watch that cannot be watched (its
    /// permissions refuse it, `reason`): it is reported, but changes inside
    /// it are not.
    case notWatched(path: String, reason: String)
}
