import SystemBase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `mime` folders to read, highest precedence first:
/// `$XDG_DATA_HOME/mime` (default `~/.local/share/mime`), then
/// `mime` under each entry of `$XDG_DATA_DIRS` (default
/// `/usr/local/share:/usr/share`), in the order listed.
public struct MIMESearchPath: Sendable, Equatable {
    /// The `mime` folders, highest precedence first.
    public var directories: [String]

    /// A search path of exactly `directories`, highest precedence first.
    public init(directories: [String]) { self.directories = directories }

    /// The `mime` folders that `XDG_DATA_HOME` and `XDG_DATA_DIRS` in `variables` give (the process's
    /// environment by default), each once.
    public static func environment(_ variables: [String: String] = ProcessEnvironment.current) -> MIMESearchPath {
        MIMESearchPath(directories: XDGBaseDirectories(variables).dataFolders("mime"))
    }
}

/// Reads one `mime` folder: its `mime.cache` when that is at least as new as
/// every package file, otherwise `packages/*.xml` (`Override.xml` last).
public enum MIMELayerLoader {
    /// The layer of the `mime` folder `directory`, or nil when it is not a folder or has nothing readable.
    ///
    /// A cache that cannot be read, or that is older than a package file, is reported in `diagnostics` and
    /// the package files are read instead. A cache is completed from the `types` and `treemagic` files
    /// beside it.
    public static func load(directory: String, diagnostics: inout [Diagnostic]) -> MIMELayer? {
        guard let dirInfo = status(directory), dirInfo.kind == .directory else { return nil }
        let cachePath = directory + "/mime.cache"
        let packagesPath = directory + "/packages"
        let packageFiles = Self.packageFiles(in: packagesPath)
        let cacheInfo = status(cachePath)
        var newestPackage = packageFiles.compactMap { status($0)?.modified }.max() ?? 0
        if let packagesInfo = status(packagesPath) { newestPackage = max(newestPackage, packagesInfo.modified) }

        if let cacheInfo, cacheInfo.kind == .regular {
            if packageFiles.isEmpty || cacheInfo.modified >= newestPackage {
                var layer = MIMELayer(directory: directory, format: .cache)
                do {
                    try MIMECacheReader.read(path: cachePath, into: &layer)
                    completeFromTextFiles(&layer, diagnostics: &diagnostics)
                    return layer
                } catch {
                    diagnostics.append(
                        Diagnostic(
                            .error, file: cachePath,
                            "\(error.offset.map { "at offset \($0): " } ?? "")\(error.reason)\(packageFiles.isEmpty ? "" : "; reading \(packagesPath) instead")"
                        ))
                }
            } else {
                diagnostics.append(
                    Diagnostic(
                        .note, file: cachePath,
                        "older than the package files; reading \(packagesPath) instead (run update-mime-database \(directory))"
                    ))
            }
        }
        guard !packageFiles.isEmpty else { return nil }
        var layer = MIMELayer(directory: directory, format: .packages)
        for file in packageFiles {
            MIMEPackageReader.read(path: file, into: &layer, diagnostics: &diagnostics)
        }
        layer.orderGlobs()
        layer.sortMagic()
        return layer
    }

    /// Every file and folder `load(directory:)` looks at, for checking
    /// whether something compiled from the folder is still current.
    public static func sourcePaths(directory: String) -> [String] {
        [directory, directory + "/mime.cache", directory + "/packages"] + packageFiles(in: directory + "/packages")
            + [directory + "/types", directory + "/treemagic"]
    }

    /// `types` lists every type (the cache only names those with globs,
    /// magic, parents, aliases or icons); `treemagic` is not in the cache.
    static func completeFromTextFiles(_ layer: inout MIMELayer, diagnostics: inout [Diagnostic]) {
        if let bytes = readTextFile(layer.directory + "/types", diagnostics: &diagnostics) {
            var known = Set(layer.types.map(mimeKey))
            for type in MIMETextFiles.types(bytes) where known.insert(mimeKey(type)).inserted {
                layer.types.append(type)
            }
        }
        let treePath = layer.directory + "/treemagic"
        if let bytes = readTextFile(treePath, diagnostics: &diagnostics) {
            layer.treeMagic = MIMETextFiles.treeMagic(bytes, path: treePath, diagnostics: &diagnostics)
            layer.sortMagic()
        }
    }

    /// The largest `types` or `treemagic` file read.
    static let textFileLimit = 8 << 20

    /// The bytes of an optional text file of the layer: nil and silent when
    /// it does not exist, nil with an error when it cannot be read.
    private static func readTextFile(_ path: String, diagnostics: inout [Diagnostic]) -> [UInt8]? {
        guard FileStatus.exists(path) else { return nil }
        do {
            return try FileContents.read(path, limit: textFileLimit)
        } catch {
            diagnostics.append(
                Diagnostic(.error, file: path, "\(error.reason); the file is skipped"))
            return nil
        }
    }

    /// The comments of the per-type file `update-mime-database` writes
    /// (`<dir>/image/png.xml`), by language ("" for the untranslated one).
    static func perTypeComments(directory: String, type: String) -> [String: String]? {
        guard isWellFormedMIMEType(type), !type.contains(".."), !type.hasPrefix(".") else { return nil }
        let path = directory + "/" + type + ".xml"
        guard let bytes = try? FileContents.read(path, limit: 4 << 20) else { return nil }
        var layer = MIMELayer(directory: directory, format: .packages)
        var ignored: [Diagnostic] = []
        MIMEPackageReader.read(bytes: bytes, path: path, into: &layer, diagnostics: &ignored)
        return layer.comments[mimeKey(type)]
    }

    /// `packages/*.xml` sorted by name, with `Override.xml` last.
    static func packageFiles(in folder: String) -> [String] {
        var names = (DirectoryListing.names(in: folder) ?? []).filter { name in
            name.count > 4 && name.suffix(4).elementsEqual(".xml".utf8) && name.first != UInt8(ascii: ".")
        }
        let override = Array("Override.xml".utf8)
        names.sort { a, b in
            if (a == override) != (b == override) { return b == override }
            return a.lexicographicallyPrecedes(b)
        }
        return names.map { folder + "/" + String(decoding: $0, as: UTF8.self) }
    }

    struct Status {
        var kind: FileKind
        var modified: Int
    }

    static func status(_ path: String) -> Status? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Status(
            kind: info.kind, modified: Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec))
    }
}
