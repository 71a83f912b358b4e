import PropertyLists
import SystemBase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where declaration files are looked for at run time, least important
/// first (later files override earlier ones):
/// each `$XDG_DATA_DIRS/uti/types` (default `/usr/local/share:/usr/share`,
/// the last listed first), `$XDG_DATA_HOME/uti/types` (default
/// `~/.local/share`), then each entry of `UTI_DECLARATIONS` (a `:` list).
/// A folder contributes its `*.plist` files in byte order of their names.
public struct DeclarationSearchPath: Sendable {
    /// Folders whose absence is normal (the XDG ones).
    public var optionalFolders: [String]
    /// Files or folders the user named; their absence is an error.
    public var explicitPaths: [String]

    /// A search path over `optionalFolders`, then `explicitPaths`.
    public init(optionalFolders: [String] = [], explicitPaths: [String] = []) {
        self.optionalFolders = optionalFolders
        self.explicitPaths = explicitPaths
    }

    /// The search path the environment describes.
    public static func environment(_ variables: [String: String] = ProcessEnvironment.current) -> DeclarationSearchPath
    {
        let folders = Array(XDGBaseDirectories(variables).dataFolders("uti/types").reversed())
        let explicit = (EnvironmentVariable.declarations.value(in: variables) ?? "").split(separator: ":").map(
            String.init)
        return DeclarationSearchPath(optionalFolders: folders, explicitPaths: explicit)
    }

    /// A path that could not be used.
    public struct Missing: Error, Sendable, CustomStringConvertible {
        /// The path as given.
        public var path: String
        /// Why it could not be used: the system's error text (`No such file or
        /// directory`).
        public var reason: String
        /// `path: reason`.
        public var description: String { "\(path): \(reason)" }
    }

    /// The `*.plist` files of the optional folders, in load order. The
    /// loader skips one that cannot be read; the others still count.
    public func folderFiles() -> [String] {
        optionalFolders.filter(Self.isDirectory).flatMap(Self.plistFiles)
    }

    /// The files the explicit paths name (folders give their `*.plist`
    /// files), in load order, and the paths that do not exist. The user
    /// named these, so any that fails stops the load.
    public func namedFiles() -> (files: [String], missing: [Missing]) {
        var files: [String] = []
        var missing: [Missing] = []
        for path in explicitPaths {
            var info = stat()
            if stat(path, &info) != 0 {
                missing.append(Missing(path: path, reason: SystemError.current.reason))
            } else if info.isDirectory {
                files.append(contentsOf: Self.plistFiles(in: path))
            } else {
                files.append(path)
            }
        }
        return (files, missing)
    }

    /// Every declaration file in load order (the folders' before the named
    /// ones), and the named paths that do not exist.
    public func resolve() -> (files: [String], missing: [Missing]) {
        let named = namedFiles()
        return (folderFiles() + named.files, named.missing)
    }

    /// The files to load, ignoring missing explicit paths.
    public func files() -> [String] { resolve().files }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.isDirectory
    }

    /// The `*.plist` entries of `folder`, sorted by their bytes.
    static func plistFiles(in folder: String) -> [String] {
        var names = (DirectoryListing.names(in: folder) ?? []).filter { name in
            name.count > 6 && name.suffix(6).elementsEqual(".plist".utf8) && name.first != UInt8(ascii: ".")
        }
        names.sort { $0.lexicographicallyPrecedes($1) }
        let base = folder.hasSuffix("/") ? folder : folder + "/"
        return names.map { base + String(decoding: $0, as: UTF8.self) }
    }
}
