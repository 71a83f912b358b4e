import PropertyLists
import SharedMIMEInfo
import SystemBase

/// Builds a registry from the bundled declarations, the system's MIME data,
/// the environment's declaration search path and extra paths, refusing to
/// answer from a partial set of the declaration files the user named
/// (files found in the search folders that cannot be read are skipped).
public enum RegistryLoader {
    /// Declaration sources that could not be used.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// Each source that could not be used: its file, the line where
        /// known, and what is wrong.
        public var diagnostics: [Diagnostic]
        /// The diagnostics as lines, `FILE[:LINE]: error: MESSAGE`.
        public var problems: [String] { diagnostics.map(\.description) }

        /// A failure of the sources `diagnostics` name.
        public init(diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }

        /// A failure described by lines of text, each kept as the message of
        /// a diagnostic without a file.
        @available(*, deprecated, message: "use init(diagnostics:), which keeps each file and line")
        public init(problems: [String]) { self.diagnostics = problems.map { Diagnostic(.error, file: "", $0) } }

        /// One problem a line.
        public var description: String { problems.joined(separator: "\n") }
    }

    /// Loads, lowest precedence first: the system's MIME types (unless
    /// `includeSystem` is false: the shared-mime-info `mime` folders of the
    /// XDG data directories, then the `mime.types` files), the bundled
    /// types, `applicationDeclarations` (the type declarations of app
    /// bundles, already read), the files `environment` points to
    /// (`DeclarationSearchPath.environment`), then `extraPaths` (files or
    /// folders). Throws when a named path is missing or a named declaration
    /// file cannot be read or parsed; one found in the search folders is
    /// skipped instead (`TypeRegistry.skippedSources`). Problems in the
    /// system's data are kept in the registry's `diagnostics`. The same as
    /// `RegistrySources.load(cache: nil)`.
    public static func load(
        extraPaths: [String] = [], includeSystem: Bool = true,
        applicationDeclarations: [DeclarationReader] = [],
        environment: [String: String] = ProcessEnvironment.current
    ) throws(Failure) -> TypeRegistry {
        let sources = RegistrySources(
            extraPaths: extraPaths, includeSystem: includeSystem,
            applications: ApplicationSources(read: { (applicationDeclarations, [], []) }), environment: environment)
        let (files, missing) = sources.declarations.resolve()
        if files.isEmpty && missing.isEmpty && !includeSystem && applicationDeclarations.isEmpty {
            return TypeRegistry.bundled
        }
        return try sources.load(cache: nil).registry
    }

    /// App bundles whose type declarations join the registry: the roots
    /// they are looked for in, the files and folders that decide whether a
    /// compiled registry is current, and how to read their declarations
    /// (with the problems of paths the user named, which stop the load, and
    /// the errors of bundles found in the search folders, which are skipped).
    public struct ApplicationSources {
        /// What reading the bundles gives: their declarations, the problems of paths
        /// the user named (which stop the load), and the errors of bundles found in
        /// the search folders (which are skipped).
        public typealias Reading = (declarations: [DeclarationReader], problems: [Diagnostic], skipped: [Diagnostic])
        /// The paths bundles are looked for in; they join the roots that name the
        /// cache file.
        public var roots: [String]
        /// Lists the files and folders whose state decides whether a compiled
        /// registry is current.
        public var stampPaths: () -> [String]
        /// Reads the bundles' declarations.
        public var read: () -> Reading

        /// Sources with the given roots, stamp paths and reading; by default none.
        public init(
            roots: [String] = [], stampPaths: @escaping () -> [String] = { [] },
            read: @escaping () -> Reading = { ([], [], []) }
        ) {
            self.roots = roots
            self.stampPaths = stampPaths
            self.read = read
        }
    }

    /// What `load` reads, for `RegistryCache`: the same sources, named so
    /// that a compiled registry can be checked against them, and last a
    /// program's own `Info.plist`, which must be readable.
    @available(*, deprecated, message: "use RegistrySources(…).cacheSources, or RegistrySources.load(cache:)")
    public static func cacheSources(
        extraPaths: [String] = [], includeSystem: Bool = true,
        applications: ApplicationSources = ApplicationSources(),
        programInfoPlist: String? = nil,
        environment: [String: String] = ProcessEnvironment.current
    ) -> RegistryCache.Sources {
        RegistrySources(
            extraPaths: extraPaths, includeSystem: includeSystem, applications: applications,
            programInfoPlist: programInfoPlist, environment: environment
        ).cacheSources
    }

    /// Whether `load` would read declaration files (which may fail): true
    /// when `extraPaths` is not empty or the environment names or holds any.
    /// Without them, loading cannot fail.
    public static func readsDeclarationFiles(
        extraPaths: [String] = [],
        environment: [String: String] = ProcessEnvironment.current
    ) -> Bool {
        var search = DeclarationSearchPath.environment(environment)
        search.explicitPaths += extraPaths
        let (files, missing) = search.resolve()
        return !files.isEmpty || !missing.isEmpty
    }

    /// Adds the shared-mime-info database and the `mime.types` files the
    /// environment names. A `mime.types` file that does not exist is skipped
    /// unless `UTI_MIME_TYPES` names it.
    public static func addSystemSources(
        to builder: inout RegistryBuilder,
        environment: [String: String] = ProcessEnvironment.current
    ) {
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
}
