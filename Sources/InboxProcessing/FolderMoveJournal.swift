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
/// `.uti-inbox-removing-MACHINE-PID-START-N-A` name in the Inbox: from then
/// on no run takes it for a document. The copied entries are removed, then
/// the journal and the folder. A later run that finds such a folder of a run
/// that has ended (`RunIdentity`) removes what the published copy holds
/// too, and gives anything else (added meanwhile) back under the folder's
/// first name.
///
/// Recovery state is trusted only as this program writes it: names of the
/// exact pattern (`.uti-inbox-report.partial` or a top-level
/// `.uti-inbox-journal` is a document like any other), a journal that is a
/// regular file of the running user, not writable by others, whose two
/// fields are single path components (never `/`, `.` or `..`: nothing
/// outside the Inbox and Documents is named), and walks bounded in depth.
enum FolderMoveJournal {
    /// The journal file inside a folder being removed: the published copy's
    /// name, a NUL byte, the folder's name in the Inbox.
    static let journalName = FileName(".uti-inbox-journal")
    static let removingPrefix = Array(".uti-inbox-removing-".utf8)
    static let partialPrefix = Array(".uti-inbox-".utf8)
    static let partialSuffix = Array(".partial".utf8)

    /// A hidden name of this run: `PREFIX` + `MACHINE-PID-START-N-A` + `suffix`.
    static func hiddenName(prefix: [UInt8], attempt: Int, suffix: [UInt8] = []) -> FileName {
        FileName(prefix + Array("\(RunIdentity.current.token)-\(UInt32.random(in: 0...UInt32.max))-\(attempt)".utf8) + suffix)
    }

    /// The run that wrote `name`, when it has the exact pattern of
    /// `hiddenName(prefix:attempt:suffix:)`; nil for any other name.
    static func writer(of name: FileName, prefix: [UInt8], suffix: [UInt8] = []) -> RunIdentity? {
        guard name.bytes.starts(with: prefix), name.bytes.count >= prefix.count + suffix.count,
              name.bytes.suffix(suffix.count).elementsEqual(suffix),
              let (run, rest) = RunIdentity.parse(name.bytes.dropFirst(prefix.count).dropLast(suffix.count)) else { return nil }
        // N-A: the random number and the attempt.
        let parts = rest.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.count <= 10 && $0.allSatisfy { $0 >= 48 && $0 <= 57 } })
        else { return nil }
        return run
    }

    /// Whether `name` in the Inbox is a folder another run is removing
    /// right now: it is left to that run. Any other name is a document,
    /// however it looks (a finished run's folder is recovered first).
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
            let hidden = hiddenName(prefix: removingPrefix, attempt: attempt)
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

    /// What a run that ended midway left, and what recovery does with it.
    enum Recovery: Equatable, Sendable {
        /// A partial copy in Documents, removed.
        case partialCopy(FileName)
        /// A folder whose removal is finished (`rest`: entries given back).
        case removal(hidden: FileName, original: FileName)
    }

    /// The recovery state of runs that have ended: partial copies in
    /// `documents` and removals in `inbox`, each only as this program
    /// writes it (see the type's notes). A hidden folder without a journal
    /// this program could have written is left for the pass, as a document.
    static func plan(inbox: FolderDescriptor, documents: FolderDescriptor) -> [Recovery] {
        var plan: [Recovery] = []
        let user = geteuid()
        for name in (try? documents.names()) ?? [] {
            guard let run = partialCopyWriter(name), !run.mayBeRunning, case .success(let info) = documents.status(of: name),
                  info.st_uid == user || user == 0 else { continue }
            plan.append(.partialCopy(name))
        }
        for name in (try? inbox.names()) ?? [] {
            guard let run = writer(of: name, prefix: removingPrefix), !run.mayBeRunning,
                  let folder = try? inbox.openFolder(name, displayPath: name.escaped),
                  let (_, original) = readJournal(folder) else { continue }
            plan.append(.removal(hidden: name, original: original))
        }
        return plan
    }

    /// Carries out `plan(inbox:documents:)`. Returns a line for each entry
    /// it could not finish.
    static func recover(inbox: FolderDescriptor, documents: FolderDescriptor) -> [String] {
        var problems: [String] = []
        for step in plan(inbox: inbox, documents: documents) {
            switch step {
            case .partialCopy(let name):
                if !CrossDeviceCopy.removeTree(in: documents.fd, name) {
                    problems.append("\(name.escaped): a partial copy of an interrupted run could not be removed whole; it is kept")
                }
            case .removal(let name, _):
                guard let folder = try? inbox.openFolder(name, displayPath: name.escaped),
                      let (target, original) = readJournal(folder) else { continue }
                if let copy = try? documents.openFolder(target, displayPath: target.escaped) {
                    removeCopied(from: folder, matching: copy, depth: 0)
                }
                if let rest = finish(name, in: inbox, originalName: original) { problems.append("\(original.escaped): \(rest)") }
            }
        }
        return problems
    }

    /// The copy's name and the folder's first name, from a journal this
    /// program could have written: a regular file of the running user that
    /// no one else may write, of two single path components. Nil otherwise.
    private static func readJournal(_ folder: FolderDescriptor) -> (FileName, FileName)? {
        let fd = journalName.bytes.withCString { openat(folder.fd, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(), info.st_nlink == 1,
              info.st_mode & 0o022 == 0, info.st_size <= 2 * FileName.maximumLength + 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 2 * FileName.maximumLength + 2)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0, n == Int(info.st_size), let split = buffer[..<n].firstIndex(of: 0) else { return nil }
        let target = Array(buffer[..<split]), original = Array(buffer[(split + 1)..<n])
        guard isSingleComponent(target), isSingleComponent(original) else { return nil }
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
