import PropertyLists
import SystemBase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the app bundles whose type declarations join a registry are
/// found: the bundles and folders of bundles the user named, then the
/// `uti/apps` folders of the XDG data directories. The first bundle found
/// with an identifier is used; a later one with the same identifier is not.
///
/// A bundle is a folder holding `Contents/Info.plist` or `Info.plist`; its
/// `UTExportedTypeDeclarations` and `UTImportedTypeDeclarations` are read.
/// A bundle found in a folder that cannot be read is skipped (and listed in
/// `TypeRegistry.skippedSources`); a path the user named that is missing or
/// is no bundle follows `RegistrySources.namedSources`.
public struct AppBundleSearchPath: Sendable, Equatable {
    /// Paths the user named (`--apps`, then `UTI_APPS`), in order: each is
    /// a bundle or a folder of bundles, and must exist.
    public var explicitPaths: [String]
    /// Folders of bundles that need not exist, most important first:
    /// `$XDG_DATA_HOME/uti/apps`, then each `$XDG_DATA_DIRS/uti/apps`.
    public var folders: [String]

    /// A search path over `explicitPaths`, then `folders`; by default none.
    public init(explicitPaths: [String] = [], folders: [String] = []) {
        self.explicitPaths = explicitPaths
        self.folders = folders
    }

    /// The search path `variables` describe: `bundlePaths` (the tool's
    /// `--apps`), then the entries of `UTI_APPS` (`:`-separated), then the
    /// `uti/apps` folders of the XDG data directories.
    public static func environment(
        _ variables: [String: String] = ProcessEnvironment.current, bundlePaths: [String] = []
    ) -> AppBundleSearchPath {
        let xdg = XDGBaseDirectories(variables)
        let named = (EnvironmentVariable.apps.value(in: variables) ?? "").split(separator: ":").map(String.init)
        return AppBundleSearchPath(
            explicitPaths: bundlePaths + named, folders: folders(dataHome: xdg.dataHome, dataDirs: xdg.dataDirs))
    }

    /// The bundle folders of the given XDG data folders, most important first.
    package static func folders(dataHome: String?, dataDirs: [String]) -> [String] {
        ([dataHome].compactMap { $0 } + dataDirs).map { $0 + "/uti/apps" }
    }

    // MARK: Finding bundles

    /// The property list of the bundle at `path` (`Contents/Info.plist`,
    /// else `Info.plist`, whichever is a regular file), or nil when the
    /// folder is not a bundle.
    package static func infoPlist(in path: String) -> String? {
        ["\(path)/Contents/Info.plist", "\(path)/Info.plist"].first { (try? stat(path: $0))?.isRegularFile ?? false }
    }

    /// The folders in `folder`, by the bytes of their names; entries whose
    /// names are not UTF-8 are left out.
    package static func childFolders(_ folder: String) -> [String] {
        guard let names = DirectoryListing.names(in: folder) else { return [] }
        return names.sorted { $0.lexicographicallyPrecedes($1) }
            .compactMap { String(validating: $0, as: UTF8.self) }
            .map { folder + "/" + $0 }
            .filter { (try? stat(path: $0))?.isDirectory ?? false }
    }

    /// What looking for bundles finds, in order.
    package enum Entry: Sendable, Equatable {
        /// A bundle; `named` when the user named the bundle itself (not a
        /// folder holding it), so that one that cannot be read is a problem
        /// rather than skipped.
        case bundle(path: String, named: Bool)
        /// A path the user named that cannot be used.
        case problem(Diagnostic)
    }

    /// The bundles of the explicit paths (a bundle, or the bundles of a
    /// folder), then those of the folders, in order, with a problem in its
    /// place for each explicit path that is missing or neither a bundle nor
    /// a folder.
    package func entries() -> [Entry] {
        var result: [Entry] = []
        for path in explicitPaths {
            var info = stat()
            guard stat(path, &info) == 0 else {
                result.append(.problem(Diagnostic(.error, file: path, SystemError.current.reason)))
                continue
            }
            if Self.infoPlist(in: path) != nil {
                result.append(.bundle(path: path, named: true))
            } else if info.isDirectory {
                for child in Self.childFolders(path) where Self.infoPlist(in: child) != nil {
                    result.append(.bundle(path: child, named: false))
                }
            } else {
                result.append(
                    .problem(Diagnostic(.error, file: path, "is neither an app bundle nor a folder of bundles")))
            }
        }
        for folder in folders {
            for child in Self.childFolders(folder) where Self.infoPlist(in: child) != nil {
                result.append(.bundle(path: child, named: false))
            }
        }
        return result
    }

    // MARK: As a registry source

    /// What the bundles give the registry: the declarations of each bundle
    /// used, in the order found; the problems of paths the user named; and
    /// the errors of bundles found in folders, which are skipped.
    struct Reading {
        var declarations: [DeclarationReader] = []
        var problems: [Diagnostic] = []
        var skipped: [Diagnostic] = []
    }

    /// Reads the declarations of every bundle found, the first bundle of
    /// each identifier only.
    func read() -> Reading {
        var reading = Reading()
        var identifiers: Set<String> = []
        for entry in entries() {
            switch entry {
            case .problem(let problem):
                reading.problems.append(problem)
            case .bundle(let path, let named):
                do {
                    let bundle = try AppBundleDeclarations(path: path)
                    if identifiers.insert(bundle.identifier).inserted, let declarations = bundle.declarations {
                        reading.declarations.append(declarations)
                    }
                } catch {
                    if named {
                        reading.problems.append(error)
                    } else {
                        reading.skipped.append(error.skippingBundle)
                    }
                }
            }
        }
        return reading
    }

    /// The entries of the cache key, one per root, each saying whether it
    /// was named or is a folder searched.
    var cacheRoots: [String] { explicitPaths.map { "bundle:\($0)" } + folders.map { "folder:\($0)" } }

    /// The files and folders whose state decides whether a compiled
    /// registry is current: each root, and each bundle folder and property
    /// list in it, so that a bundle added, removed or changed is seen.
    func stampPaths() -> [String] {
        var paths: [String] = []
        for root in explicitPaths + folders {
            paths.append(root)
            if let plist = Self.infoPlist(in: root) {
                paths.append(plist)
                continue
            }
            for child in Self.childFolders(root) {
                if let plist = Self.infoPlist(in: child) { paths += [child, plist] }
            }
        }
        return paths
    }
}

extension Diagnostic {
    /// A bundle's error, as the error of a bundle found in a search folder
    /// that is skipped.
    package var skippingBundle: Diagnostic {
        Diagnostic(.error, file: file, position: position, message).skipping("bundle")
    }
}

/// What the registry reads of an app bundle: its identifier, which must
/// be usable for the bundle to be read at all, and the types its
/// `Info.plist` declares. `AppBundle` of `DocumentHandlers` reads the rest
/// (document and URL types) after this.
package struct AppBundleDeclarations: Sendable {
    /// The bundle folder, as given.
    package let path: String
    /// The bundle's property list.
    package let infoPlistPath: String
    /// `CFBundleIdentifier`: a non-empty string without spaces, `/` or `;`.
    package let identifier: String
    /// The bundle's `UTExportedTypeDeclarations` / `UTImportedTypeDeclarations`,
    /// nil when it has neither key.
    package let declarations: DeclarationReader?

    /// Reads the bundle at `path`. Throws when it has no property list, or
    /// it cannot be read or lacks a usable `CFBundleIdentifier`.
    package init(path: String) throws(Diagnostic) {
        let plistPath = try Self.infoPlist(of: path)
        try self.init(path: path, infoPlistPath: plistPath, plist: try Self.readPropertyList(plistPath))
    }

    /// The property list of the bundle at `path`; throws when the folder is
    /// not a bundle.
    package static func infoPlist(of path: String) throws(Diagnostic) -> String {
        guard let plistPath = AppBundleSearchPath.infoPlist(in: path) else {
            throw Diagnostic(.error, file: path, "not an app bundle (no Contents/Info.plist or Info.plist)")
        }
        return plistPath
    }

    /// Reads a property list file (binary or XML).
    package static func readPropertyList(_ plistPath: String) throws(Diagnostic) -> PropertyList {
        do {
            return try PropertyList.parse(
                try FileContents.read(plistPath, limit: PropertyListLimits.standard.maximumBytes))
        } catch let error as FileContents.ReadError {
            throw Diagnostic(.error, file: plistPath, error.reason)
        } catch let error as PropertyListError {
            throw Diagnostic(
                .error, file: plistPath, position: error.position, "malformed property list: \(error.message)")
        } catch {
            throw Diagnostic(.error, file: plistPath, "\(error)")
        }
    }

    /// The bundle at `path` whose property list, read from
    /// `infoPlistPath`, is `plist`. Throws when the top level is not a
    /// dictionary or `CFBundleIdentifier` is missing or unusable.
    package init(path: String, infoPlistPath plistPath: String, plist: PropertyList) throws(Diagnostic) {
        guard plist.dictionaryValue != nil else {
            throw Diagnostic(
                .error, file: plistPath, position: plist.location,
                "the top level is \(plist.kindPhrase), expected a dictionary")
        }
        guard let id = plist["CFBundleIdentifier"] else {
            throw Diagnostic(.error, file: plistPath, position: plist.location, "no CFBundleIdentifier")
        }
        guard let idText = id.stringValue, !idText.isEmpty,
            !idText.contains(where: { $0 == "/" || $0 == " " || $0 == ";" })
        else {
            throw Diagnostic(
                .error, file: plistPath, position: id.location,
                "CFBundleIdentifier must be a non-empty string without spaces, \"/\" or \";\"")
        }
        self.path = path
        infoPlistPath = plistPath
        identifier = idText
        declarations =
            plist[DeclarationReader.exportedKey] != nil || plist[DeclarationReader.importedKey] != nil
            ? DeclarationReader(plist, file: plistPath, source: .application) : nil
    }
}
