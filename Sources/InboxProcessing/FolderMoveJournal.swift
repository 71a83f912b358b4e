#if canImport(Glibc)
import Glibc
#endif
import CLinuxCalls
import SystemBase

/// How a folder copied across file systems leaves the Inbox, so that a run
/// killed at any moment is finished by the next and never publishes a part
/// of a package as a new one.
///
/// Once the whole copy is published, a journal naming it is written into
/// the source folder, and the folder is renamed to a hidden
/// `.uti-inbox-removing-PID-N` name in the Inbox: from then on no run takes
/// it for a document. The copied entries are removed, then the journal and
/// the folder. A later run that finds such a folder of a process no longer
/// running removes what the published copy holds too, and gives anything
/// else (added meanwhile) back under the folder's first name.
enum FolderMoveJournal {
    /// The journal file inside a folder being removed: the published copy's
    /// name, a NUL byte, the folder's name in the Inbox.
    static let journalName = FileName(".uti-inbox-journal")
    static let removingPrefix = Array(".uti-inbox-removing-".utf8)
    static let partialPrefix = Array(".uti-inbox-".utf8)

    /// Whether `name` is one of the processor's own hidden entries, never a document.
    static func isInternal(_ name: FileName) -> Bool {
        name.bytes.starts(with: removingPrefix) || name == journalName || isPartialCopy(name)
    }

    /// Whether `name` is an unpublished copy (`.uti-inbox-PID-N.partial`).
    static func isPartialCopy(_ name: FileName) -> Bool {
        name.bytes.starts(with: partialPrefix) && name.bytes.reversed().starts(with: Array(".partial".utf8).reversed())
    }

    /// Marks `name` in `inbox` (a published copy's source) as being removed:
    /// writes the journal into it, then renames it out of the way. Returns
    /// the hidden name.
    static func begin(_ name: FileName, in inbox: FolderDescriptor, copy target: FileName) throws(SystemError) -> FileName {
        let folder = try inbox.openFolder(name, displayPath: name.escaped)
        let fd = journalName.bytes.withCString { openat(folder.fd, $0, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw .current }
        let record = target.bytes + [0] + name.bytes
        let written = record.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == record.count, synced == 0 else { throw .current }
        for attempt in 0..<100 {
            let hidden = FileName(removingPrefix + Array("\(getpid())-\(UInt32.random(in: 0...UInt32.max))-\(attempt)".utf8))
            let moved = name.bytes.withCString { from in
                hidden.bytes.withCString { to in uti_rename_noreplace(inbox.fd, from, inbox.fd, to) }
            }
            if moved == 0 { inbox.sync(); return hidden }
            if errno != EEXIST { throw .current }
        }
        throw SystemError(EEXIST)
    }

    /// Ends a removal: the journal goes, then the folder if it is empty;
    /// otherwise (entries added meanwhile) the folder gets its first name
    /// back. Nil when all is gone, else what was done with the rest.
    static func finish(_ hidden: FileName, in inbox: FolderDescriptor, originalName: FileName) -> String? {
        if let folder = try? inbox.openFolder(hidden, displayPath: hidden.escaped) {
            _ = journalName.bytes.withCString { unlinkat(folder.fd, $0, 0) }
        }
        if hidden.bytes.withCString({ unlinkat(inbox.fd, $0, AT_REMOVEDIR) }) == 0 || errno == ENOENT { return nil }
        let back = hidden.bytes.withCString { from in
            originalName.bytes.withCString { to in uti_rename_noreplace(inbox.fd, from, inbox.fd, to) }
        }
        return back == 0
            ? "entries added to it meanwhile were left in the Inbox as \(originalName.escaped)"
            : "entries added to it meanwhile were left in the Inbox as \(hidden.escaped) (\(originalName.escaped) is taken)"
    }

    /// Finishes the removals that runs killed before they were done left in
    /// `inbox`, and removes partial copies such runs left in `documents`.
    /// Entries of a process still running are left to it. Returns a line
    /// for each entry it could not finish.
    static func recover(inbox: FolderDescriptor, documents: FolderDescriptor) -> [String] {
        var problems: [String] = []
        for name in (try? documents.names()) ?? [] where isPartialCopy(name) && !ownerIsRunning(name, prefix: partialPrefix) {
            CrossDeviceCopy.removeTree(in: documents.fd, name)
        }
        for name in (try? inbox.names()) ?? [] where name.bytes.starts(with: removingPrefix) && !ownerIsRunning(name, prefix: removingPrefix) {
            guard let folder = try? inbox.openFolder(name, displayPath: name.escaped),
                  let (target, original) = readJournal(folder) else {
                problems.append("\(name.escaped): an interrupted move left this folder without its journal; it is kept")
                continue
            }
            if let copy = try? documents.openFolder(target, displayPath: target.escaped) {
                removeCopied(from: folder, matching: copy, depth: 0)
            }
            if let rest = finish(name, in: inbox, originalName: original) { problems.append("\(original.escaped): \(rest)") }
        }
        return problems
    }

    /// Whether the process named in `name` (after `prefix`, before the next
    /// `-`) still runs.
    private static func ownerIsRunning(_ name: FileName, prefix: [UInt8]) -> Bool {
        let digits = name.bytes.dropFirst(prefix.count).prefix { $0 >= 48 && $0 <= 57 }
        guard let pid = Int32(String(decoding: digits, as: UTF8.self)), pid > 0 else { return false }
        return pid == getpid() || kill(pid, 0) == 0 || errno == EPERM
    }

    private static func readJournal(_ folder: FolderDescriptor) -> (FileName, FileName)? {
        let fd = journalName.bytes.withCString { openat(folder.fd, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0, let split = buffer[..<n].firstIndex(of: 0) else { return nil }
        let target = Array(buffer[..<split]), original = Array(buffer[(split + 1)..<n])
        guard !target.isEmpty, !original.isEmpty else { return nil }
        return (FileName(target), FileName(original))
    }

    /// Removes from `folder` each entry `copy` holds too: a file or link of
    /// the same size and modification time, a folder (entered).
    private static func removeCopied(from folder: FolderDescriptor, matching copy: FolderDescriptor, depth: Int) {
        guard depth < CrossDeviceCopy.maximumDepth else { return }
        for name in (try? folder.names()) ?? [] where name != journalName {
            guard case .success(let info) = folder.status(of: name), case .success(let copied) = copy.status(of: name),
                  info.st_mode & S_IFMT == copied.st_mode & S_IFMT else { continue }
            if info.st_mode & S_IFMT == S_IFLNK {
                _ = name.bytes.withCString { unlinkat(folder.fd, $0, 0) }    // links are copied with new times
            } else if info.st_mode & S_IFMT == S_IFDIR {
                guard let inner = try? folder.openFolder(name, displayPath: name.escaped),
                      let innerCopy = try? copy.openFolder(name, displayPath: name.escaped) else { continue }
                removeCopied(from: inner, matching: innerCopy, depth: depth + 1)
                _ = name.bytes.withCString { unlinkat(folder.fd, $0, AT_REMOVEDIR) }
            } else if info.st_size == copied.st_size && info.st_mtim.tv_sec == copied.st_mtim.tv_sec
                        && info.st_mtim.tv_nsec == copied.st_mtim.tv_nsec {
                _ = name.bytes.withCString { unlinkat(folder.fd, $0, 0) }
            }
        }
    }
}
