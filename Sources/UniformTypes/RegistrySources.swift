import PropertyLists
import SharedMIMEInfo
import SystemBase

/// Where a registry's declarations come from, and what happens when one of
/// them cannot be used: the one description of a registry's sources, which
/// `TypeRegistry.load(_:cache:)` reads, with or without a `RegistryCache`.
/// The `uti` tool and `TypeRegistry.default` both describe their sources
/// this way, so by default they read the same ones.
///
/// The sources, lowest precedence first, and the policy of each:
///
/// | Source | When it cannot be used |
/// | --- | --- |
/// | The system's MIME data (`includeSystem`) | kept in the registry's `diagnostics`; the rest is used |
/// | The bundled declarations (`includeBundled`) | never fails |
/// | App bundles (`applications`) | a bundle found in a search folder is skipped; a path the user named follows `namedSources` |
/// | Files in the declaration folders (`declarations.optionalFolders`) | skipped, listed in `TypeRegistry.skippedSources` |
/// | Files and folders the user named (`declarations.explicitPaths`) | `namedSources` |
/// | The program's `Info.plist` (`programInfoPlist`) | `namedSources` |
/// | Declarations added in code (`addedInCode`) | already read; a registry holding them is never cached |
public struct RegistrySources: Sendable {
    /// What happens when a source the user named (a declaration file or
    /// folder, an app bundle path, the program's `Info.plist`) is missing or
    /// cannot be read.
    public enum NamedSourcePolicy: Sendable, Equatable {
        /// The load fails, naming every such source: the `uti` tool, which
        /// must not answer from a partial set of what the user asked for.
        case stop
        /// The source is left out and named in the result's `leftOut`: a
        /// library's lookups, which must answer.
        case leaveOut
    }

    /// Whether the system's MIME data (shared-mime-info folders, then the
    /// `mime.types` files) is read.
    public var includeSystem: Bool
    /// Whether the bundled declarations (Apple's types and this package's
    /// additions) are read; true unless a registry is to hold only the
    /// other sources, as `uti validate --no-bundled` checks files on their own.
    public var includeBundled = true
    /// The declaration folders searched and the files and folders the user
    /// named.
    public var declarations: DeclarationSearchPath
    /// The app bundles whose type declarations join the registry.
    public var applications: AppBundleSearchPath
    /// The running program's own `Info.plist`, read last of the files.
    public var programInfoPlist: String?
    /// The program the registry is for: each program gets its own cache file,
    /// since a file records the build of the program that wrote it and
    /// programs sharing one would rebuild it each time another one ran.
    public var program: String?
    /// Declarations given in code, highest precedence; when there are any,
    /// the registry is built and not cached.
    public var addedInCode: [DeclarationReader]
    /// App bundles' declarations already read, added where the bundles'
    /// own would be (for `RegistryLoader.load`); a registry holding them is
    /// never cached.
    var readApplicationDeclarations: [DeclarationReader] = []
    /// What happens when a source the user named cannot be used.
    public var namedSources: NamedSourcePolicy
    /// The variables of `environment` left out because their value is not
    /// UTF-8 text (a folder named by it cannot be told).
    public private(set) var environmentProblems: [Diagnostic]
    /// The environment the search paths were read from (`XDG_DATA_DIRS`,
    /// `UTI_APPS`, `UTI_MIME_TYPES` and the like), also used for the MIME data.
    public var environment: [String: String]

    /// The sources `environment` names, with the system's data unless
    /// `includeSystem` is false: the declaration search path
    /// (`DeclarationSearchPath.environment`, then `extraPaths`) and the app
    /// bundles (`AppBundleSearchPath.environment`, with `bundlePaths` first).
    public init(
        extraPaths: [String] = [], bundlePaths: [String] = [], includeSystem: Bool = true,
        programInfoPlist: String? = nil, program: String? = nil, addedInCode: [DeclarationReader] = [],
        namedSources: NamedSourcePolicy = .stop,
        environment: [String: String] = ProcessEnvironment.current
    ) {
        // A folder variable whose bytes are not UTF-8 would name another folder once read as text: it is left
        // out, and said to be (a problem of a source the user named).
        var environment = environment
        var unusable: [Diagnostic] = []
        let process = ProcessEnvironment.current
        for variable in EnvironmentVariable.undecodablePaths
        where environment[variable.name] != nil && environment[variable.name] == process[variable.name] {
            environment[variable.name] = nil
            unusable.append(
                Diagnostic(
                    .error, file: variable.name,
                    "is not UTF-8 text, so the folder or file it names cannot be told; left out"))
        }
        var search = DeclarationSearchPath.environment(environment)
        search.explicitPaths += extraPaths
        self.environmentProblems = unusable
        self.includeSystem = includeSystem
        self.declarations = search
        self.applications = AppBundleSearchPath.environment(environment, bundlePaths: bundlePaths)
        self.programInfoPlist = programInfoPlist
        self.program = program
        self.addedInCode = addedInCode
        self.namedSources = namedSources
        self.environment = environment
    }

    /// Whether a registry of these sources may be kept in a cache: not when
    /// it holds declarations given in code.
    var isCacheable: Bool { addedInCode.isEmpty && readApplicationDeclarations.isEmpty }

    /// The builder of these sources, lowest precedence first, with the
    /// named sources that could not be used (left out of it).
    func builder() -> (RegistryBuilder, problems: [Diagnostic]) {
        let bundles = applications.read()
        let (named, missing) = declarations.namedFiles()
        var problems =
            environmentProblems + bundles.problems + missing.map { Diagnostic(.error, file: $0.path, $0.reason) }
        var builder = includeBundled ? RegistryBuilder.bundled() : RegistryBuilder()
        if includeSystem { addSystemSources(to: &builder) }
        for reader in bundles.declarations + readApplicationDeclarations { builder.add(reader) }
        builder.skippedSources += bundles.skipped
        for file in declarations.folderFiles() {
            builder.add(found: DeclarationReader.read(path: file, source: .user))
        }
        for file in named + (programInfoPlist.map { [$0] } ?? []) {
            let reader = DeclarationReader.read(path: file, source: file == programInfoPlist ? .application : .user)
            if let error = reader.fileError { problems.append(error) } else { builder.add(reader) }
        }
        for reader in addedInCode { builder.add(reader) }
        return (builder, problems)
    }

    /// Adds the shared-mime-info database and the `mime.types` files the
    /// environment names. A `mime.types` file that does not exist is skipped
    /// unless `UTI_MIME_TYPES` names it.
    private func addSystemSources(to builder: inout RegistryBuilder) {
        let search = MIMESearchPath.environment(environment)
        let database = MIMEDatabase.load(search)
        builder.add(database)
        if database.isEmpty {
            builder.add(diagnostics: [
                Diagnostic(
                    .warning, file: search.directories.joined(separator: ":"),
                    "no shared-mime-info database in these folders (Debian: the shared-mime-info package), so file "
                        + "contents are typed by \(BuiltInSignatures.mimeTypes.count) built-in signatures only")
            ])
        }
        let named = EnvironmentVariable.mimeTypes.value(in: environment) != nil
        for path in MIMETypesFile.paths(environment: environment) {
            if !named && !FileStatus.exists(path) { continue }
            let (records, diagnostics) = MIMETypesFile.read(path: path)
            builder.add(records)
            builder.add(diagnostics: diagnostics)
        }
    }

    /// The files and folders whose state decides whether a compiled
    /// registry of these sources is current.
    func stampPaths() -> [String] {
        let mimeFolders = includeSystem ? MIMESearchPath.environment(environment).directories : []
        let mimeTypes = includeSystem ? MIMETypesFile.paths(environment: environment) : []
        return mimeFolders.flatMap(MIMELayerLoader.sourcePaths) + mimeTypes
            + declarations.optionalFolders + declarations.explicitPaths + declarations.files()
            + applications.stampPaths() + (programInfoPlist.map { [$0] } ?? [])
    }

    /// What names the cache file: one `LABEL=VALUE` entry per source, so
    /// that no path can be mistaken for another kind of source.
    public var cacheKey: [String] {
        var key = ["system=\(includeSystem)"]
        if !includeBundled { key.append("bundled=false") }
        if includeSystem {
            key += MIMESearchPath.environment(environment).directories.map { "mime-folder=\($0)" }
            key += MIMETypesFile.paths(environment: environment).map { "mime-types=\($0)" }
        }
        key += declarations.optionalFolders.map { "declaration-folder=\($0)" }
        key += declarations.explicitPaths.map { "declaration-path=\($0)" }
        key += applications.cacheRoots.map { "applications=\($0)" }
        if let programInfoPlist { key.append("info-plist=\(programInfoPlist)") }
        if let program { key.append("program=\(program)") }
        return key
    }
}
