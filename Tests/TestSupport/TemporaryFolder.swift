import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A folder made for one test in the system's temporary folder (or `base`),
/// under a name no other run can have, and removed with everything in it
/// when released.
public final class TemporaryFolder: @unchecked Sendable {
    /// The folder's absolute path, without a trailing `/`.
    public let path: String

    /// Makes `BASE/PREFIX-XXXXXX` with `mkdtemp`.
    public init(_ prefix: String, base: String = NSTemporaryDirectory()) {
        var template = Array((base.hasSuffix("/") ? base : base + "/").utf8) + Array("\(prefix)-XXXXXX".utf8) + [0]
        let made = template.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { mkdtemp($0.baseAddress!) }
        }
        precondition(made != nil, "mkdtemp in \(base) failed: \(String(cString: strerror(errno)))")
        path = String(decoding: template.dropLast(), as: UTF8.self)
    }

    /// Copies the program at `source` to `relative` in the folder (mode 0755).
    public func copyProgram(_ source: String, to relative: String) throws {
        try Self.create(path(relative), Array(try Data(contentsOf: URL(fileURLWithPath: source))), mode: 0o755)
    }

    /// Writes a new file through a descriptor opened close-on-exec: a
    /// process another test's thread starts meanwhile would otherwise keep
    /// it open for writing, and running the file (a program, a script)
    /// would fail with ETXTBSY ("Text file busy").
    static func create(_ path: String, _ bytes: [UInt8], mode: mode_t) throws {
        try create(pathBytes: Array(path.utf8), bytes, mode: mode)
    }

    /// `create` for a path given as bytes, which need not be UTF-8.
    static func create(pathBytes path: [UInt8], _ bytes: [UInt8], mode: mode_t) throws {
        let fd = (path + [0]).withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) {
                open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
            }
        }
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            done += n
        }
    }

    deinit {
        // Everything goes, however deep (a test may build a tree deeper
        // than a path can name) and whatever its modes.
        Self.removeTree(path)
    }

    /// Removes `path` and everything under it without following links, and
    /// says whether it is gone. Folders are opened by descriptor, one level
    /// at a time, so a tree deeper than `PATH_MAX` (or than the descriptors
    /// a process may hold) goes too; each folder is made writable first.
    @discardableResult
    public static func removeTree(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return errno == ENOENT }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return unlink(path) == 0 }
        let parentPath = (path as NSString).deletingLastPathComponent
        let parent = open(parentPath.isEmpty ? "." : parentPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard parent >= 0 else { return false }
        defer { close(parent) }
        removeFolder(named: Array((path as NSString).lastPathComponent.utf8), in: parent)
        return lstat(path, &info) != 0 && errno == ENOENT
    }

    /// Empties and removes the folder `name` in the folder `top`: goes down
    /// into the first subfolder left until one holds none, removes it, and
    /// climbs back by `..`, holding one descriptor at a time. A subfolder
    /// that cannot be opened or removed is passed over, so this ends.
    private static func removeFolder(named name: [UInt8], in top: Int32) {
        // Names are bytes: a test may make names that are not UTF-8.
        func call<R>(_ name: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
            (name + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) } }
        }
        _ = call(name) { fchmodat(top, $0, 0o700, 0) }
        var current = call(name) { openat(top, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        guard current >= 0 else { return }
        // The way down from `name`: each folder entered, with the subfolders of it passed over.
        var levels: [(name: [UInt8], passedOver: Set<[UInt8]>)] = [(name, [])]
        while true {
            var subfolder: [UInt8]?
            if let listing = fdopendir(dup(current)) {
                while let entry = readdir(listing) {
                    let entryName = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
                    if entryName == [46] || entryName == [46, 46]
                        || levels[levels.count - 1].passedOver.contains(entryName)
                    {
                        continue
                    }
                    if call(entryName, { unlinkat(current, $0, 0) }) == 0 { continue }
                    if errno == EISDIR || errno == EPERM {
                        subfolder = entryName
                        break
                    }
                }
                closedir(listing)
            }
            if let subfolder {
                _ = call(subfolder) { fchmodat(current, $0, 0o700, 0) }
                let next = call(subfolder) { openat(current, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
                if next >= 0 {
                    close(current)
                    current = next
                    levels.append((subfolder, []))
                } else {
                    levels[levels.count - 1].passedOver.insert(subfolder)
                }
                continue
            }
            let finished = levels.removeLast().name
            if levels.isEmpty {
                close(current)
                _ = call(name) { unlinkat(top, $0, AT_REMOVEDIR) }
                return
            }
            let up = openat(current, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            close(current)
            guard up >= 0 else { return }
            current = up
            if call(finished, { unlinkat(current, $0, AT_REMOVEDIR) }) != 0 {
                levels[levels.count - 1].passedOver.insert(finished)
            }
        }
    }

    /// The absolute path of `relative` in the folder.
    /// An XDG tree of this folder only, for a child process: data in
    /// `share` and `home-share`, configuration in `config` and `etc-xdg`,
    /// no desktop named and no app bundle folder, so nothing of the
    /// machine's (desktop entries, mimeapps.list, bundles) is read.
    public var privateXDGEnvironment: [String: String] {
        [
            "XDG_DATA_DIRS": path + "/share", "XDG_DATA_HOME": path + "/home-share",
            "XDG_CONFIG_HOME": path + "/config", "XDG_CONFIG_DIRS": path + "/etc-xdg", "XDG_CURRENT_DESKTOP": "",
            "UTI_APPS": "",
        ]
    }

    public func path(_ relative: String) -> String { relative.isEmpty ? path : path + "/" + relative }

    /// Makes `relative` and the folders above it.
    public func makeFolder(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: path(relative), withIntermediateDirectories: true)
    }

    /// Writes `bytes` to `relative`, making the folders above it.
    public func write(_ relative: String, bytes: [UInt8]) throws {
        let full = path(relative)
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Self.create(full, bytes, mode: 0o644)
    }

    /// Writes `bytes` to a file in this folder named by `name`'s bytes,
    /// which need not be UTF-8 (`bad\xFFname.png`).
    public func write(name: [UInt8], bytes: [UInt8]) throws {
        try Self.create(pathBytes: Array((path + "/").utf8) + name, bytes, mode: 0o644)
    }

    /// Writes `text` (UTF-8) to `relative`, making the folders above it.
    public func write(_ relative: String, _ text: String) throws {
        try write(relative, bytes: Array(text.utf8))
    }
}
