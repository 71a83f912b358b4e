#if canImport(Glibc)
    import Glibc
#endif

/// What an entry of a folder is. The raw value names it in messages and
/// JSON (`symbolic link`, `FIFO`).
public enum EntryKind: String, Sendable {
    /// A regular file.
    case file
    /// A folder, moved as a unit with everything in it.
    case folder
    /// A symbolic link, moved as the link itself (never followed); a
    /// relative one that would point elsewhere from Documents is made anew.
    case symbolicLink = "symbolic link"
    /// A named pipe, left in place.
    case fifo = "FIFO"
    /// A Unix domain socket, left in place.
    case socket
    /// A character or block device, left in place.
    case device
    /// None of the others, left in place; also the kind of an entry whose
    /// status could not be read (its outcome is then `gone` or `failed`).
    case unknown
}

extension EntryKind {
    /// The kind of the file `info` describes.
    package init(of info: stat) {
        switch info.kind {
        case .regular: self = .file
        case .directory: self = .folder
        case .symbolicLink: self = .symbolicLink
        case .fifo: self = .fifo
        case .socket: self = .socket
        case .characterDevice, .blockDevice: self = .device
        default: self = .unknown
        }
    }

    /// The kind readdir reports as `type` (`DT_REG`, `DT_DIR`, …); nil for
    /// `DT_UNKNOWN` and any other value.
    package init?(directoryEntryType type: UInt8) {
        switch Int32(type) {
        case Int32(DT_REG): self = .file
        case Int32(DT_DIR): self = .folder
        case Int32(DT_LNK): self = .symbolicLink
        case Int32(DT_FIFO): self = .fifo
        case Int32(DT_SOCK): self = .socket
        case Int32(DT_CHR), Int32(DT_BLK): self = .device
        default: return nil
        }
    }
}
