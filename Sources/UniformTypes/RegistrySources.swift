import PropertyLists
import SharedMIMEInfo
import SystemBase

/// Where a registry's declarations come from, and what happens when one of
/// them cannot be used: the one description of a registry's sources that the
/// `uti` tool, `TypeRegistry.default` (through `ProcessRegistry`) and
/// `RegistryLoader.load` all load, with or without a `RegistryCache`.
///
/// The sources, lowest precedence first, and the policy of each:
///
/// | Source | When it cannot be used |
/// | --- | --- |
/// | The system's MIME data (`includeSystem`) | kept in the registry's `diagnostics`; the rest is used |
/// | The bundled declarations | never fails |
/// | App bundles (`applications`) | a bundle found in a search folder is skipped; a path the user named follows `namedSources` |
/// | Files in the declaration folders (`declarations.optionalFolders`) | skipped, listed in `TypeRegistry.skippedSources` |
/// | Files and folders the user named (`declarations.explicitPaths`) | `namedSources` |
/// | The program's `Info.plist` (`programInfoPlist`) | `namedSources` |
/// | Declarations added in code (`addedInCode`) | already read; a registry holding them is never cached |
public struct RegistrySources {
    /// What happens when a source the user named (a declaration file or
    /// folder, an app bundle path, the program's `Info.plist`) is missing or
    /// cannot be read.
    public enum NamedSourcePolicy: Sendable, Equatable {
        /// The load fails, naming every such source: the `uti` tool, which
        /// must not answer from a partial set of what the user asked for.
        case stop
        /// The source is left out and named in the result's `problems`: a
        /// library's lookups, which must answer.
        case leaveOut
    }

    /// Whether the system's MIME data (shared-mime-info folders, then the
    /// `mime.types` files) is read.
    public var includeSystem: Bool
    /// The declaration folders searched and the files and folders the user
    /// named.
    public var declarations: DeclarationSearchPath
    /// App bundles whose type declarations join the registry.
    public var applications: RegistryLoader.ApplicationSources
    /// The running program's own `Info.plist`, read last of the files.
    public var programInfoPlist: String?
    /// The program the registry is for: each program gets its own cache file,
    /// since a file records the build of the program that wrote it and
    /// programs sharing one would rebuild it each time another one ran.
    public var program: String?
    /// Declarations given in code, highest precedence; when there are any,
    /// the registry is built and not cached.
    public var addedInCode: [DeclarationReader]
    /// What happens when a source the user named cannot be used.
    public var namedSources: NamedSourcePolicy
    /// The variables of `environment` left out because their value is not
    /// UTF-8 text (a folder named by it cannot be told).
    public private(set) var environmentProblems: [Diagnostic]
    /// The environment the search paths were read from (`XDG_DATA_DIRS`,
    /// `UTI_MIME_TYPES` and the like), also used for the MIME data.
    public var environment: [String: String]

    /// The sources `environment` names (`DeclarationSearchPath.environment`,
    /// then `extraPaths`), with the system's data unless `includeSystem` is
    /// false.
    public init(
        extraPaths: [String] = [], includeSystem: Bool = true,
        applications: RegistryLoader.ApplicationSources = RegistryLoader.ApplicationSources(),
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
        self.applications = applications
        self.programInfoPlist = programInfoPlist
        self.program = program
        self.addedInCode = addedInCode
        self.namedSources = namedSources
        self.environment = environment
    }

    /// A registry and how it was loaded.
    public struct Loaded {
        /// The registry.
        public var registry: TypeRegistry
        /// How the cache gave it; nil when no cache was used.
        public var cacheOutcome: RegistryCache.Outcome?
        /// The named sources left out (only with `NamedSourcePolicy.leaveOut`).
        public var problems: [Diagnostic]
    }

    /// The registry of these sources: from `cache` when one is given,
    /// nothing was added in code and every named source can be used (a
    /// registry missing a named source is never cached, so it is reported
    /// on every run); else built here. Throws, with `NamedSourcePolicy.stop`,
    /// when a named source cannot be used.
    public func load(cache: RegistryCache?) throws(RegistryLoader.Failure) -> Loaded {
        if let cache, addedInCode.isEmpty {
            do throws(RegistryLoader.Failure) {
                let (registry, outcome) = try cache.load(cacheSources)
                return Loaded(registry: registry, cacheOutcome: outcome, problems: [])
            } catch {
                if namedSources == .stop { throw error }
            }
        }
        let (builder, problems) = builder()
        if namedSources == .stop && !problems.isEmpty { throw RegistryLoader.Failure(diagnostics: problems) }
        return Loaded(registry: builder.build(), cacheOutcome: nil, problems: problems)
    }

    /// The builder of these sources, lowest precedence first, with the
    /// named sources that could not be used (left out of it).
    public func builder() -> (RegistryBuilder, problems: [Diagnostic]) {
        let (declarations, applicationProblems, skipped) = applications.read()
        let (named, missing) = self.declarations.namedFiles()
        var problems =
            environmentProblems + applicationProblems + missing.map { Diagnostic(.error, file: $0.path, $0.reason) }
        var builder = RegistryBuilder.bundled()
        if includeSystem { RegistryLoader.addSystemSources(to: &builder, environment: environment) }
        for reader in declarations { builder.add(reader) }
        builder.skippedSources += skipped
        for file in self.declarations.folderFiles() {
            builder.add(found: DeclarationReader.read(path: file, source: .user))
        }
        for file in named + (programInfoPlist.map { [$0] } ?? []) {
            let reader = DeclarationReader.read(path: file, source: file == programInfoPlist ? .application : .user)
            if let error = reader.fileError { problems.append(error) } else { builder.add(reader) }
        }
        for reader in addedInCode { builder.add(reader) }
        return (builder, problems)
    }

    /// These sources as a `RegistryCache` sees them: the key that names the
    /// cache file, the paths whose state decides whether it is current, and
    /// a build that fails when any named source cannot be used.
    public var cacheSources: RegistryCache.Sources {
        let mimeFolders = includeSystem ? MIMESearchPath.environment(environment).directories : []
        let mimeTypes = includeSystem ? MIMETypesFile.paths(environment: environment) : []
        let search = declarations, applications = applications, programInfoPlist = programInfoPlist
        let stamps = {
            mimeFolders.flatMap(MIMELayerLoader.sourcePaths) + mimeTypes
                + search.optionalFolders + search.explicitPaths + search.files() + applications.stampPaths()
                + (programInfoPlist.map { [$0] } ?? [])
        }
        return RegistryCache.Sources(roots: cacheKey, stampPaths: stamps) { () throws(RegistryLoader.Failure) in
            let (builder, problems) = builder()
            guard problems.isEmpty else { throw RegistryLoader.Failure(diagnostics: problems) }
            return builder
        }
    }

    /// What names the cache file: one `LABEL=VALUE` entry per source, so
    /// that no path can be mistaken for another kind of source.
    public var cacheKey: [String] {
        var key = ["system=\(includeSystem)"]
        if includeSystem {
            key += MIMESearchPath.environment(environment).directories.map { "mime-folder=\($0)" }
            key += MIMETypesFile.paths(environment: environment).map { "mime-types=\($0)" }
        }
        key += declarations.optionalFolders.map { "declaration-folder=\($0)" }
        key += declarations.explicitPaths.map { "declaration-path=\($0)" }
        key += applications.roots.map { "applications=\($0)" }
        if let programInfoPlist { key.append("info-plist=\(programInfoPlist)") }
        if let program { key.append("program=\(program)") }
        return key
    }
}
