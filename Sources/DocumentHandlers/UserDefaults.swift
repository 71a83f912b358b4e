import PropertyLists
import SystemBase

#if canImport(Glibc)
    import Glibc
#endif

/// Writes the user's choice of application into `mimeapps.list`
/// (`[Default Applications]`, `MIME/TYPE=ID;`), the file GLib, KDE and
/// xdg-utils read, and edits its `[Added Associations]` and `[Removed
/// Associations]` as GIO's `g_app_info_add_supports_type` and
/// `g_app_info_remove_supports_type` do. Everything else in the file is
/// kept byte for byte; the file is replaced atomically under a lock, and a
/// symbolic link of the running user or of root is written through (one of
/// another user is refused, wherever it is in the path).
///
/// A default for one role (Launch Services' `LSSetDefaultRoleHandlerForContentType`)
/// goes into a group of its own, `[X-UTI Default Viewer]`, `[X-UTI Default
/// Editor]` or `[X-UTI Default Shell]`, which other readers ignore.
public enum UserDefaultsWriter {
    /// Why the list could not be changed; the file is left as it was.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong, for a person to read.
        public var message: String
        /// The same as `message`.
        public var description: String { message }
    }

    /// One change: the keys of a type or scheme (its MIME types,
    /// `x-scheme-handler/NAME`, or its identifier), the role it is for (nil:
    /// every role), the application, and what to do with it.
    public struct Change: Sendable, Equatable {
        /// What a change does to the application and the keys.
        public enum Action: String, Sendable {
            /// Makes the application the default (a nil application clears
            /// the default) in the role's group.
            case setDefault
            /// Appends the application to `[Added Associations]` (where it
            /// keeps its place if already there) and takes it out of
            /// `[Removed Associations]`.
            case addAssociation
            /// Takes the application out of `[Added Associations]` and out
            /// of every default group, and puts it first in `[Removed
            /// Associations]`, which hides what it declares.
            case removeAssociation
        }

        /// The keys to change: a type's MIME types, `x-scheme-handler/NAME`, or its identifier.
        public var keys: [String]
        /// The role whose group `setDefault` writes (`[X-UTI Default Viewer]` and the like); nil, or a role that opens
        /// nothing, for `[Default Applications]`. The other actions ignore it.
        public var role: AppBundle.Role?
        /// The desktop file ID or bundle identifier. Nil makes `setDefault`
        /// remove the default, and the other actions do nothing.
        public var handlerID: String?
        /// What to do with the application and the keys.
        public var action: Action

        /// A change of `keys`; by default, making `handlerID` the default for every role.
        public init(keys: [String], role: AppBundle.Role? = nil, handlerID: String?, action: Action = .setDefault) {
            self.keys = keys
            self.role = role
            self.handlerID = handlerID
            self.action = action
        }
    }

    /// One key whose value a change rewrote.
    public struct Edit: Sendable, Equatable {
        /// The group the key is in (`Default Applications`, `Added Associations`, …).
        public var group: String
        /// The key, spelled as the change gave it.
        public var key: String
        /// The applications the key named before (every copy of the group merged).
        public var before: [String]
        /// The applications it names now; empty when the key was removed.
        public var after: [String]
    }

    static let group = "Default Applications"
    /// The group of applications offered besides the default.
    public static let addedGroup = "Added Associations"
    /// The group of applications hidden from a type.
    public static let removedGroup = "Removed Associations"

    /// The group holding defaults for `role` (nil or a role that opens
    /// nothing: every role).
    public static func groupName(for role: AppBundle.Role?) -> String {
        switch role {
        case .viewer?: "X-UTI Default Viewer"
        case .editor?: "X-UTI Default Editor"
        case .shell?: "X-UTI Default Shell"
        default: group
        }
    }

    /// The role whose defaults a group holds; nil for any other group.
    static func role(ofGroup name: String) -> AppBundle.Role? {
        [AppBundle.Role.viewer, .editor, .shell].first { groupName(for: $0) == name }
    }

    /// Sets (or with `handlerID` nil, removes) the default for each key in
    /// `types` in the file at `path`, creating the file and its folder when
    /// missing. Refuses to rewrite a file it cannot read completely.
    public static func set(
        _ handlerID: String?, for types: [String], role: AppBundle.Role? = nil, in path: String
    ) throws(Failure) {
        try apply([Change(keys: types, role: role, handlerID: handlerID)], in: path)
    }

    /// Makes every change in one rewrite of the file at `path`, in order:
    /// all of them or, when the file cannot be read or written, none.
    /// Returns each key whose value changed.
    ///
    /// Runs that edit the same file take turns: each holds an exclusive
    /// lock from reading the file to renaming the new one over it, so that
    /// no run's change is lost to another's. The lock is a file of the
    /// running user beside the list (`.NAME.uti-lock`, mode 0600), which no
    /// other user can open; a run waits for it at most `lockWait` seconds.
    @discardableResult
    public static func apply(_ changes: [Change], in path: String) throws(Failure) -> [Edit] {
        let list = try ListFile(path)
        defer { close(list.folder) }
        let lock = try lockFile(beside: list)
        defer { close(lock) }
        var text = ""
        var table = AssociationTable(file: nil)
        let existing = try read(list)
        if let (bytes, _) = existing {
            let file = KeyFile(bytes: bytes, path: list.path, parsing: .asGKeyFile)
            if let problem = file.diagnostics.first(where: { $0.severity == .error }) {
                throw Failure(message: "not rewritten, so nothing in it is lost: \(problem)")
            }
            // Rewritten only as text it can give back byte for byte.
            guard let decoded = String(validating: bytes, as: UTF8.self) else {
                let offset = KeyFile.firstInvalidUTF8(bytes)
                let line = bytes[..<offset].reduce(1) { $0 + ($1 == 10 ? 1 : 0) }
                throw Failure(message: "\(list.path):\(line): not UTF-8; not rewritten, so nothing in it is lost")
            }
            text = decoded
            table = AssociationTable(file: file)
        }
        for change in changes { try checkWritable(change) }
        for change in changes { try table.apply(change) }
        let edits = table.edits
        guard !edits.isEmpty else { return [] }
        var updated = text
        var groups: [String] = []
        for edit in edits where !groups.contains(edit.group) { groups.append(edit.group) }
        for name in groups {
            let entries = edits.filter { $0.group == name }.map { (key: $0.key, values: $0.after) }
            updated = edited(updated, group: name, entries: entries)
        }
        try write(updated, to: list, replacing: existing?.status)
        // The rename is made durable before the next run may read the file.
        _ = fsync(list.folder)
        return edits
    }

    /// The list file to edit: its folder, open, its name there, and its
    /// path for messages. A symbolic link at the path given (a dotfiles
    /// manager's) is followed to the file it names when the running user or
    /// root owns it, so that it stays a link; the folder of the path given
    /// is made (mode 0755) when missing. No link of another user is
    /// followed, in the folders or at the name.
    struct ListFile {
        var folder: Int32
        var name: String
        var path: String

        init(_ given: String) throws(Failure) {
            var path = given
            // At most 40 links, as the kernel follows.
            for followed in 0...40 {
                let opened: (folder: Int32, name: String)
                do {
                    opened = try GuardedPath.openParent(of: path, creating: followed == 0 ? 0o755 : nil)
                } catch {
                    throw Self.failure(error, given: given, followed: followed)
                }
                let target: String?
                do {
                    target = try GuardedPath.linkTarget(opened.folder, opened.name)
                } catch {
                    // Named by the whole path, not the name alone.
                    let named: GuardedPath.Failure =
                        switch error {
                        case .system(let failure): .system(SystemError(failure.code, call: failure.call, path: path))
                        case .foreignLink(_, let owner): .foreignLink(link: path, owner: owner)
                        }
                    if followed == 0, case .system(let failure) = named, failure.code == ENOENT {
                        target = nil  // No list yet: the first write makes it.
                    } else {
                        close(opened.folder)
                        throw Self.failure(named, given: given, followed: followed)
                    }
                }
                guard let target else {
                    (folder, name, self.path) = (opened.folder, opened.name, path)
                    return
                }
                close(opened.folder)
                let parent = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
                path = target.hasPrefix("/") ? target : parent + target
            }
            throw Failure(message: "\(given) is a symbolic link that cannot be followed: \(SystemError(ELOOP).reason)")
        }

        /// What `apply` says when the list cannot be reached; `followed`
        /// links were followed from `given`.
        static func failure(_ error: GuardedPath.Failure, given: String, followed: Int) -> Failure {
            switch error {
            case .foreignLink: Failure(message: "\(error); nothing was written")
            case .system(let failure) where followed > 0:
                Failure(
                    message: "\(given) is a symbolic link that cannot be followed: "
                        + "\(failure.path ?? given): \(failure.reason)")
            case .system(let failure): Failure(message: "\(failure.path ?? given): \(failure.reason)")
            }
        }
    }

    /// The bytes of the list and its status, or nil when there is none
    /// yet. Only a regular file is read, opened without following a link.
    static func read(_ list: ListFile) throws(Failure) -> (bytes: [UInt8], status: stat)? {
        let fd = openat(list.folder, list.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw Failure(message: "\(list.path): \(SystemError.current.reason)")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(message: "\(list.path): \(SystemError.current.reason)") }
        guard info.isRegularFile else {
            throw Failure(message: "\(list.path): \(info.isDirectory ? "is a directory" : "is not a regular file")")
        }
        let limit = KeyFile.maximumBytes
        if Int(info.st_size) > limit {
            throw Failure(message: "\(list.path): is \(info.st_size) bytes; the limit is \(limit)")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = retryingInterrupts { buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) } }
            if n < 0 { throw Failure(message: "\(list.path): \(SystemError.current.reason)") }
            if n == 0 { return (bytes, info) }
            bytes += buffer[..<n]
            if bytes.count > limit {
                throw Failure(message: "\(list.path): grew past the limit of \(limit) bytes while being read")
            }
        }
    }

    /// Refuses a key or application ID this file format (as `uti` and
    /// GLib read it) cannot hold, so nothing is written that would make the
    /// file unreadable: keys of key characters (a `*` only as `major/*`),
    /// IDs without control characters.
    /// Whether `key` can be written so that `uti` and GLib read it back:
    /// key characters only, and a `*` only as `major/*`.
    public static func isWritableKey(_ key: String) -> Bool {
        !key.isEmpty && key.unicodeScalars.allSatisfy(KeyFile.isKeyCharacter)
            && (!key.contains("*") || AssociationClaim.isWildcard(key))
    }

    static func checkWritable(_ change: Change) throws(Failure) {
        for key in change.keys {
            if !isWritableKey(key) {
                throw Failure(message: "\"\(key)\" cannot be a key of mimeapps.list; nothing was written")
            }
        }
        if let id = change.handlerID,
            id.isEmpty || id.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        {
            throw Failure(
                message:
                    "an application ID with a control character cannot be written to mimeapps.list; nothing was written"
            )
        }
    }

    /// How long a run waits for another to release the lock, in seconds.
    public static let lockWait = 10.0

    /// An open descriptor of the lock file beside the list holding an
    /// exclusive `flock`, released when closed: a regular file of the
    /// running user (made with mode 0600), waited for at most `lockWait`.
    private static func lockFile(beside list: ListFile) throws(Failure) -> Int32 {
        let name = ".\(list.name).uti-lock"
        let path = (list.path.lastIndex(of: "/").map { String(list.path[...$0]) } ?? "") + name
        let fd = openat(list.folder, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o600)
        guard fd >= 0 else {
            throw Failure(message: "\(path): cannot open the lock: \(SystemError.current.reason); nothing was written")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.isRegularFile, info.st_uid == geteuid(),
            info.st_mode & 0o077 == 0
        else {
            close(fd)
            throw Failure(message: "\(path): the lock is not a private file of this user; nothing was written")
        }
        var waited = 0.0
        while retryingInterrupts({ flock(fd, LOCK_EX | LOCK_NB) }) != 0 {
            guard errno == EWOULDBLOCK, waited < lockWait else {
                let reason =
                    errno == EWOULDBLOCK
                    ? "another process has held it for \(Int(lockWait)) s" : SystemError.current.reason
                close(fd)
                throw Failure(
                    message: "\(path): cannot lock it against other runs of uti (\(reason)); nothing was written")
            }
            usleep(50_000)
            waited += 0.05
        }
        return fd
    }

    /// `text` with the keys of `entries` in `group` replaced, added
    /// (creating the group at the end if needed) or, for no values,
    /// removed; a key given twice takes the later value. The keys are
    /// removed from every copy of the group (a repeated group is merged by
    /// readers), and the new ones go at the end of the first. Lines are
    /// split at line feeds only, so a line ending in CR LF keeps its CR, and
    /// added lines follow the file's line ending.
    static func edited(_ text: String, group: String, entries: [(key: String, values: [String])]) -> String {
        var raw = KeyFile.lines(of: text)
        if raw.last?.isEmpty == true { raw.removeLast() }
        let lineEnd = raw.first?.last == "\r" ? "\r" : ""
        // A last line without its line feed gets the file's line ending, CR included, as an added line does.
        if !text.isEmpty, !text.hasSuffix("\n"), !lineEnd.isEmpty, let last = raw.indices.last, raw[last].last != "\r" {
            raw[last] = Substring(String(raw[last]) + lineEnd).unicodeScalars
        }
        let wanted = Set(entries.map { $0.key.lowercased() })
        var last: [String: Int] = [:]
        for (index, entry) in entries.enumerated() { last[entry.key.lowercased()] = index }
        let added = entries.enumerated().compactMap { index, entry in
            !entry.values.isEmpty && last[entry.key.lowercased()] == index ? (entry.key, entry.values) : nil
        }
        var lines: [String] = []
        var inDefaults = false
        var inFirstDefaults = false
        var insertAt: Int?
        for rawLine in raw {
            let line = KeyFile.Line(rawLine)
            if case .header(let name) = line {
                inDefaults = name == group
                inFirstDefaults = inDefaults && insertAt == nil
                lines.append(String(rawLine))
                if inFirstDefaults { insertAt = lines.count }
                continue
            }
            // `text/plain[de]` is another key (GKeyFile's locale suffix): it stays.
            if inDefaults, case .entry(_, let key, nil, _) = line, wanted.contains(key.lowercased()) { continue }
            lines.append(String(rawLine))
            // New entries go after the first group's last line that is not blank.
            if inFirstDefaults && line != .blank { insertAt = lines.count }
        }
        guard !added.isEmpty else { return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n" }
        if insertAt == nil {
            if let last = lines.last, KeyFile.Line(Substring(last).unicodeScalars) != .blank { lines.append(lineEnd) }
            lines.append("[\(group)]" + lineEnd)
            insertAt = lines.count
        }
        // Escaped as GLib's g_key_file_set_string_list escapes each item,
        // so that every reader gets the item back as it was read.
        func escaped(_ id: String) -> String {
            var out = ""
            for (index, c) in id.unicodeScalars.enumerated() {
                switch c {
                case " " where index == 0: out += "\\s"
                case "\n": out += "\\n"
                case "\t": out += "\\t"
                case "\r": out += "\\r"
                case "\\": out += "\\\\"
                case ";": out += "\\;"
                default: out.unicodeScalars.append(c)
                }
            }
            return out
        }
        lines.insert(
            contentsOf: added.map { "\($0.0)=" + $0.1.map { escaped($0) + ";" }.joined() + lineEnd }, at: insertAt!)
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes `text` to a new file beside the list, syncs it, and renames it
    /// over the list; the new file takes the owner and mode of the one it
    /// replaces (its `status` when read), else mode 0644.
    static func write(_ text: String, to list: ListFile, replacing status: stat?) throws(Failure) {
        let mode = status.map { $0.st_mode & 0o7777 } ?? 0o644
        let temporary = ".\(list.name).uti-\(getpid()).tmp"
        let shown = (list.path.lastIndex(of: "/").map { String(list.path[...$0]) } ?? "") + temporary
        let fd = openat(list.folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw Failure(message: "\(shown): \(SystemError.current.reason)") }
        var failure: String?
        do { try writeAll(fd, Array(text.utf8)) } catch { failure = error.reason }
        // The file keeps its owner (root editing a user's list) and mode.
        var mine = stat()
        if failure == nil, let status, fstat(fd, &mine) == 0,
            mine.st_uid != status.st_uid || mine.st_gid != status.st_gid,
            fchown(fd, status.st_uid, status.st_gid) != 0
        {
            failure = "cannot keep its owner (\(SystemError.current.reason))"
        }
        if failure == nil && fchmod(fd, mode) != 0 { failure = SystemError.current.reason }
        if failure == nil && fsync(fd) != 0 { failure = SystemError.current.reason }
        close(fd)
        if failure == nil && renameat(list.folder, temporary, list.folder, list.name) != 0 {
            failure = SystemError.current.reason
        }
        if let failure {
            unlinkat(list.folder, temporary, 0)
            throw Failure(message: "\(list.path): \(failure); the file is unchanged")
        }
    }
}

/// The applications each key of a `mimeapps.list` names, group by group
/// (every copy of a group merged, as readers merge them), and the keys the
/// changes made so far have rewritten.
struct AssociationTable {
    private var values: [String: [String]] = [:]
    private var firstValues: [String: [String]] = [:]
    private var spelling: [String: String] = [:]
    /// Slots (`group NUL lowercased key`) in the order they were first changed.
    private var order: [String] = []
    private var changed: Set<String> = []

    init(file: KeyFile?) {
        self.file = file
        for group in file?.groups ?? [] {
            for entry in group.entries where entry.locale == nil {
                entries[Self.slot(group.name, entry.key), default: []].append(entry)
            }
        }
    }

    private let file: KeyFile?
    /// The file's unlocalized entries by slot, read once.
    private var entries: [String: [KeyFile.Entry]] = [:]

    /// Each key whose applications differ from the file's.
    var edits: [UserDefaultsWriter.Edit] {
        order.compactMap { slot in
            let before = firstValues[slot] ?? []
            let after = values[slot] ?? []
            guard before != after else { return nil }
            let group = String(slot.prefix { $0 != "\u{0}" })
            return UserDefaultsWriter.Edit(group: group, key: spelling[slot]!, before: before, after: after)
        }
    }

    mutating func apply(_ change: UserDefaultsWriter.Change) throws(UserDefaultsWriter.Failure) {
        for key in change.keys {
            switch change.action {
            case .setDefault:
                try set(UserDefaultsWriter.groupName(for: change.role), key, change.handlerID.map { [$0] } ?? [])
            case .addAssociation:
                guard let id = change.handlerID else { continue }
                let added = try current(UserDefaultsWriter.addedGroup, key)
                if !added.contains(id) { try set(UserDefaultsWriter.addedGroup, key, added + [id]) }
                let removed = try current(UserDefaultsWriter.removedGroup, key)
                if removed.contains(id) { try set(UserDefaultsWriter.removedGroup, key, removed.filter { $0 != id }) }
            case .removeAssociation:
                guard let id = change.handlerID else { continue }
                let added = try current(UserDefaultsWriter.addedGroup, key)
                if added.contains(id) { try set(UserDefaultsWriter.addedGroup, key, added.filter { $0 != id }) }
                let removed = try current(UserDefaultsWriter.removedGroup, key)
                if !removed.contains(id) { try set(UserDefaultsWriter.removedGroup, key, [id] + removed) }
                for role in [nil, AppBundle.Role.viewer, .editor, .shell] {
                    let group = UserDefaultsWriter.groupName(for: role)
                    let defaults = try current(group, key)
                    if defaults.contains(id) { try set(group, key, defaults.filter { $0 != id }) }
                }
            }
        }
    }

    /// One key of one group, as readers match it: MIME types compared case-insensitively.
    static func slot(_ group: String, _ key: String) -> String { group + "\u{0}" + key.lowercased() }

    /// The applications `key` names in `group` now.
    private mutating func current(_ group: String, _ key: String) throws(UserDefaultsWriter.Failure) -> [String] {
        let slot = Self.slot(group, key)
        if let known = values[slot] { return known }
        var found: [String] = []
        var seen: Set<String> = []
        for entry in entries[slot] ?? [] {
            let ids: [String]
            do { ids = try KeyFileValue.strings(entry.rawValue) } catch {
                throw UserDefaultsWriter.Failure(
                    message: "\(file!.path):\(entry.line): \(entry.key): \(error.message); "
                        + "not rewritten, so nothing in it is lost")
            }
            // Items as GLib reads them, spaces kept: ` c.desktop` names no application there.
            for id in ids where !id.isEmpty && seen.insert(id).inserted {
                found.append(id)
            }
        }
        values[slot] = found
        firstValues[slot] = found
        return found
    }

    private mutating func set(_ group: String, _ key: String, _ ids: [String]) throws(UserDefaultsWriter.Failure) {
        let slot = Self.slot(group, key)
        _ = try current(group, key)
        values[slot] = ids
        spelling[slot] = key
        if changed.insert(slot).inserted { order.append(slot) }
    }
}
