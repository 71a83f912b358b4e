import PropertyLists
import SystemBase
import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

/// A statement that an application opens (or must not open) a type: a
/// bundle's document type, a desktop entry's `MimeType`, or a line of a
/// `mimeapps.list` file.
public struct AssociationClaim: Sendable {
    /// What a claim does: sets a default, adds an association, declares one, or removes one.
    public enum Kind: String, Sendable {
        /// `[Default Applications]`: the user's (or the system's) choice.
        case userDefault = "default"
        /// `[Added Associations]`.
        case added
        /// Declared by the application itself.
        case declared
        /// `[Removed Associations]`: hides a declared or added association.
        case removed
    }

    /// What kind of name `typeName` is.
    public enum TypeNameKind: String, Sendable {
        /// A MIME type (`image/png`, `image/*`, `x-scheme-handler/NAME`), a type identifier, a filename extension
        /// (`*`: any data), an OSType (`****`: any data, `fold`: a folder), or a URL scheme.
        case mimeType = "MIME type", identifier, filenameExtension = "extension", osType = "OSType", urlScheme =
            "URL scheme"
    }

    /// What the claim does.
    public var kind: Kind
    /// A desktop file ID or a bundle identifier.
    public var handlerID: String
    /// The type as the source wrote it.
    public var typeName: String
    /// How `typeName` is read. In a `mimeapps.list`, a key with a `/` is a MIME type and one without is an
    /// identifier; elsewhere the key it is written under decides.
    public var typeNameKind: TypeNameKind
    /// The key it was written under (`MimeType`, `LSItemContentTypes`, …).
    public var key: String
    /// The file the claim is written in: an app's property list, a desktop entry or a list.
    public var file: String
    /// Where in `file`: the line, or the bundle's document or URL type entry.
    public var position: SourcePosition
    /// The source's precedence: lower is more important.
    public var precedence: Int
    /// The `LSHandlerRank` a bundle gives the type; Default for desktop entries and lists.
    public var rank: AppBundle.Rank = .default
    /// The role a bundle declares, or the role a user default is for
    /// (`[X-UTI Default Viewer]` and the like); nil for desktop entries and
    /// for defaults that hold for every role.
    public var role: AppBundle.Role?

    /// Whether the claim names every MIME type of a major type (`image/*`).
    public var isWildcard: Bool { typeNameKind == .mimeType && Self.isWildcard(typeName) }

    /// Whether `name` is a wildcard MIME key: a major type, then `/*`.
    public static func isWildcard(_ name: String) -> Bool {
        guard name.hasSuffix("/*") else { return false }
        let major = name.dropLast(2)
        return !major.isEmpty
            && major.unicodeScalars.allSatisfy { KeyFile.isKeyCharacter($0) && $0 != "/" && $0 != "*" }
    }

    /// `file:line`.
    public var place: String { DeclarationOrigin(source: .user, file: file, position: position).description }
}

/// Every handler and association the search path holds: desktop entries,
/// `mimeapps.list` files and app bundles, read once.
public struct HandlerCatalog: Sendable {
    /// The search path everything was read from.
    public let searchPath: ApplicationSearchPath
    /// Desktop entries by ID, most important file first (later ones are masked).
    public private(set) var desktopEntries: [String: [DesktopEntry]] = [:]
    /// The precedence of the folder whose desktop entry each ID uses.
    public private(set) var desktopEntryPrecedence: [String: Int] = [:]
    /// The app bundles found.
    public let bundleSet: AppBundleSet
    /// The app bundles by identifier.
    public var bundles: [String: AppBundle] { bundleSet.bundles }
    /// All claims, most important source first; within a source, in the
    /// order GLib reads them.
    public private(set) var claims: [AssociationClaim] = []
    /// Problems in the sources; each was skipped.
    public private(set) var diagnostics: [Diagnostic] = []
    /// Paths the user named that could not be used.
    public var problems: [Diagnostic] { bundleSet.problems }

    /// How deep `applications` subfolders are followed.
    static let maximumFolderDepth = 8

    /// Reads everything `searchPath` names; `bundles` when they were
    /// already read (to build the registry).
    public init(searchPath: ApplicationSearchPath, bundles: AppBundleSet? = nil) {
        self.searchPath = searchPath
        bundleSet = bundles ?? AppBundleSet(searchPath: searchPath)
        diagnostics = bundleSet.diagnostics
        let folders = searchPath.associationFolders
        var ownerFolder: [String: Int] = [:]
        var perFolder: [[(id: String, entry: DesktopEntry)]] = []
        for (index, folder) in folders.enumerated() {
            var found: [(String, DesktopEntry)] = []
            if !folder.isConfig {
                var walk = FolderWalk(root: folder.path, allowed: folders.filter { !$0.isConfig }.map(\.path))
                scanDesktopEntries(folder.path, prefix: "", depth: 0, walk: &walk, into: &found)
            }
            found.sort { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            for (id, entry) in found {
                desktopEntries[id, default: []].append(entry)
                if ownerFolder[id] == nil { ownerFolder[id] = index }
            }
            perFolder.append(found)
        }
        desktopEntryPrecedence = ownerFolder
        for (index, folder) in folders.enumerated() {
            readAssociations(folder, index: index, entries: perFolder[index].filter { ownerFolder[$0.id] == index })
        }
        for (offset, id) in bundleSet.order.enumerated() {
            addClaims(of: bundleSet.bundles[id]!, precedence: folders.count + offset)
        }
    }

    private mutating func addClaims(of bundle: AppBundle, precedence: Int) {
        for type in bundle.documentTypes {
            func claim(_ name: String, _ kind: AssociationClaim.TypeNameKind, _ key: String) {
                claims.append(
                    AssociationClaim(
                        kind: .declared, handlerID: bundle.identifier, typeName: name, typeNameKind: kind,
                        key: key, file: bundle.infoPlistPath, position: type.position,
                        precedence: precedence, rank: type.rank, role: type.role))
            }
            if !type.contentTypes.isEmpty {
                for name in type.contentTypes { claim(name, .identifier, "LSItemContentTypes") }
                continue
            }
            for name in type.extensions { claim(name, .filenameExtension, "CFBundleTypeExtensions") }
            for name in type.mimeTypes { claim(name, .mimeType, "CFBundleTypeMIMETypes") }
            for name in type.osTypes { claim(name, .osType, "CFBundleTypeOSTypes") }
        }
        for type in bundle.urlTypes {
            for scheme in type.schemes {
                claims.append(
                    AssociationClaim(
                        kind: .declared, handlerID: bundle.identifier, typeName: scheme.name, typeNameKind: .urlScheme,
                        key: "CFBundleURLSchemes", file: bundle.infoPlistPath, position: type.position,
                        precedence: precedence, rank: type.rank, role: type.role))
            }
        }
    }

    /// The URL schemes some application claims (`x-scheme-handler/NAME` in
    /// a desktop entry or list, or `CFBundleURLSchemes`), lower case.
    public var claimedSchemes: Set<String> {
        var schemes: Set<String> = []
        for claim in claims where claim.kind != .removed {
            switch claim.typeNameKind {
            case .urlScheme: schemes.insert(claim.typeName)
            case .mimeType: if let scheme = URLScheme(handlerMIMEType: claim.typeName) { schemes.insert(scheme.name) }
            default: break
            }
        }
        return schemes
    }

    // MARK: Desktop entries and lists

    private mutating func scanDesktopEntries(
        _ folder: String, prefix: String, depth: Int, walk: inout FolderWalk,
        into found: inout [(String, DesktopEntry)]
    ) {
        if let refusal = walk.enter(folder) {
            if depth > 0 { diagnostics.append(Diagnostic(.warning, file: folder, "\(refusal); not read")) }
            return
        }
        guard let names = DirectoryListing.names(in: folder) else { return }
        for raw in names {
            guard let name = String(validating: raw, as: UTF8.self) else {
                diagnostics.append(Diagnostic(.warning, file: folder, "an entry whose name is not UTF-8 is skipped"))
                continue
            }
            let path = folder + "/" + name
            if name.hasSuffix(".desktop") {
                do {
                    let entry = try DesktopEntry.read(path: path, id: prefix + name, language: searchPath.language)
                    diagnostics += entry.diagnostics
                    found.append((prefix + name, entry))
                } catch {
                    diagnostics.append(Diagnostic(.error, file: path, "\(error.reason); the entry is skipped"))
                }
            } else if PathKind.isFolder(path) {
                if depth >= Self.maximumFolderDepth {
                    diagnostics.append(
                        Diagnostic(
                            .warning, file: path, "folders nested deeper than \(Self.maximumFolderDepth) are not read"))
                    continue
                }
                scanDesktopEntries(path, prefix: prefix + name + "-", depth: depth + 1, walk: &walk, into: &found)
            }
        }
    }

    /// One folder's lists, as GLib reads them: the desktop-specific lists
    /// and `defaults.list` may only set defaults; `mimeapps.list` may also
    /// add and remove; removals hide the folder's own declarations and every
    /// less important source's, never an addition in the same file.
    private mutating func readAssociations(
        _ folder: ApplicationSearchPath.AssociationFolder, index: Int,
        entries: [(id: String, entry: DesktopEntry)]
    ) {
        var defaults: [AssociationClaim] = []
        var added: [AssociationClaim] = []
        var removed: [AssociationClaim] = []
        var files = searchPath.currentDesktops.map { (folder.path + "/\($0)-mimeapps.list", false) }
        files.append((folder.path + "/mimeapps.list", true))
        if !folder.isConfig { files.append((folder.path + "/defaults.list", false)) }
        for (path, mayAddAndRemove) in files where FileStatus.exists(path) {
            let file: KeyFile
            do { file = try KeyFile.read(path: path, parsing: .asGKeyFile) } catch {
                diagnostics.append(Diagnostic(.error, file: path, "\(error.reason); the file is skipped"))
                continue
            }
            diagnostics += file.diagnostics
            for group in file.groups {
                let kind: AssociationClaim.Kind
                var role: AppBundle.Role?
                switch group.name {
                case UserDefaultsWriter.group: kind = .userDefault
                case "Added Associations": kind = .added
                case "Removed Associations": kind = .removed
                default:
                    guard let groupRole = UserDefaultsWriter.role(ofGroup: group.name) else { continue }
                    kind = .userDefault
                    role = groupRole
                }
                if kind != .userDefault && !mayAddAndRemove {
                    diagnostics.append(
                        Diagnostic(
                            .warning, file: path, position: .line(group.line),
                            "[\(group.name)] is only read from mimeapps.list; ignored here"))
                    continue
                }
                for entry in group.entries where entry.locale == nil {
                    let ids: [String]
                    do { ids = try KeyFileValue.strings(entry.rawValue) } catch {
                        diagnostics.append(
                            Diagnostic(
                                .error, file: path, position: .line(entry.line), "\(entry.key): \(error.message)"))
                        continue
                    }
                    if entry.key.contains("*") && !AssociationClaim.isWildcard(entry.key) {
                        diagnostics.append(
                            Diagnostic(
                                .error, file: path, position: .line(entry.line),
                                "\(entry.key): a wildcard key is a MIME type's major part and /* (image/*); the line is skipped"
                            ))
                        continue
                    }
                    // Items as GLib reads them, spaces kept: ` c.desktop` names no application there.
                    for id in ids where !id.isEmpty {
                        // A key without "/" is a type identifier (written by `uti set-default`).
                        let claim = AssociationClaim(
                            kind: kind, handlerID: id, typeName: entry.key,
                            typeNameKind: entry.key.utf8.contains(UInt8(ascii: "/")) ? .mimeType : .identifier,
                            key: group.name, file: path, position: .line(entry.line), precedence: index,
                            role: role)
                        switch kind {
                        case .userDefault: defaults.append(claim)
                        case .added: added.append(claim)
                        default: removed.append(claim)
                        }
                    }
                }
            }
        }
        // Sets of (handler, type) keys: linear in the entries, however many
        // a list adds and removes.
        func key(_ claim: AssociationClaim) -> String { claim.handlerID + "\u{0}" + claim.typeName.lowercased() }
        let addedKeys = Set(added.map(key))
        removed.removeAll { addedKeys.contains(key($0)) }
        let removedKeys = Set(removed.map(key))
        var declared: [AssociationClaim] = []
        for (id, entry) in entries {
            for mime in entry.mimeTypes {
                let claim = AssociationClaim(
                    kind: .declared, handlerID: id, typeName: mime, typeNameKind: .mimeType, key: "MimeType",
                    file: entry.path, position: entry.mimeTypeLine.map { .line($0) } ?? .unknown,
                    precedence: index)
                if !removedKeys.contains(key(claim)) { declared.append(claim) }
            }
        }
        claims += defaults + added + declared + removed
    }

}

/// The app bundles a search path names: `--apps` and `UTI_APPS` paths (a
/// bundle or a folder of bundles; missing ones are problems), then the
/// `uti/apps` folders of the XDG data directories. The first bundle with an
/// identifier wins.
public struct AppBundleSet: Sendable {
    /// The bundles found, by identifier; of two with one identifier, the one found first.
    public private(set) var bundles: [String: AppBundle] = [:]
    /// Identifiers in the order the bundles were found.
    public private(set) var order: [String] = []
    /// Problems in the bundles read: each used bundle's own, the error that made a bundle of a search folder be
    /// skipped, and a note for each bundle masked by one found earlier with the same identifier.
    public private(set) var diagnostics: [Diagnostic] = []
    /// Paths the user named that could not be used.
    public private(set) var problems: [Diagnostic] = []
    /// Bundles of the search folders that could not be read, each as its
    /// error (also among the diagnostics); the others are used.
    public private(set) var skipped: [Diagnostic] = []
    private let searchPath: ApplicationSearchPath

    /// Reads the bundles `searchPath` names: its explicit bundle paths first, then its bundle folders.
    public init(searchPath: ApplicationSearchPath) {
        self.searchPath = searchPath
        readBundles()
    }

    /// The `UTExportedTypeDeclarations`/`UTImportedTypeDeclarations` of the
    /// bundles used, in the order found: what a registry whose
    /// `RegistrySources.applications` is `searchPath.bundles` holds of them.
    public var declarations: [DeclarationReader] {
        order.compactMap { bundles[$0]?.declarations }
    }

    private mutating func readBundles() {
        // Found as the registry finds them, so both read the same bundles.
        for entry in searchPath.bundles.entries() {
            switch entry {
            case .problem(let problem): problems.append(problem)
            case .bundle(let path, let named): addBundle(at: path, named: named)
            }
        }
    }

    private mutating func addBundle(at path: String, named: Bool) {
        let bundle: AppBundle
        do { bundle = try AppBundle(path: path) } catch {
            if named {
                problems.append(error)
            } else {
                skipped.append(error.skippingBundle)
                diagnostics.append(error.skippingBundle)
            }
            return
        }
        diagnostics += bundle.diagnostics
        if let first = bundles[bundle.identifier] {
            diagnostics.append(
                Diagnostic(
                    .note, file: bundle.infoPlistPath,
                    "\(bundle.identifier) is also at \(first.path), which is used"))
            return
        }
        bundles[bundle.identifier] = bundle
        order.append(bundle.identifier)
    }

}

/// The folders one walk of `applications` has read, so that a symbolic link
/// back up the tree (`loop -> .`) is read once, and a link out of the data
/// folders (`root -> /`) is not followed.
struct FolderWalk {
    struct Identity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    private var visited: Set<Identity> = []
    /// Real paths of the folders a linked folder may lead into.
    private let allowed: [String]

    init(root: String, allowed: [String]) {
        self.allowed = ([root] + allowed).compactMap(FolderWalk.realPath)
    }

    /// Nil when `folder` may be read now (and notes it as read); otherwise why not.
    mutating func enter(_ folder: String) -> String? {
        var info = stat()
        guard stat(folder, &info) == 0 else { return "cannot be read: \(SystemError.current.reason)" }
        guard visited.insert(Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))).inserted else {
            return "a folder already read (a symbolic link loop)"
        }
        guard let real = Self.realPath(folder) else { return "cannot be resolved" }
        if !allowed.contains(where: { real == $0 || real.hasPrefix($0 == "/" ? "/" : $0 + "/") }) {
            return "a link to \(real), outside the applications folders"
        }
        return nil
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
