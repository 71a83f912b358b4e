import PropertyLists
import SharedMIMEInfo

/// Builds a registry from the bundled declarations, the system's MIME data,
/// the environment's declaration search path and extra paths, refusing to
/// answer from a partial set of the declaration files the user named.
public enum RegistryLoader {
    /// Declaration sources that could not be used.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var problems: [String]
        public init(problems: [String]) { self.problems = problems }
        public var description: String { problems.joined(separator: "\n") }
    }

    /// Loads, lowest precedence first: the system's MIME types (unless
    /// `includeSystem` is false: the shared-mime-info `mime` folders of the
    /// XDG data directories, then the `mime.types` files), the bundled
    /// types, `applicationDeclarations` (the type declarations of app
    /// bundles, already read), the files `environment` points to
    /// (`DeclarationSearchPath.environment`), then `extraPaths` (files or
    /// folders). Throws when a named path is missing or a declaration file
    /// cannot be read or parsed. Problems in the system's data are kept in
    /// the registry's `diagnostics`.
    public static func load(extraPaths: [String] = [], includeSystem: Bool = true,
                            applicationDeclarations: [DeclarationReader] = [],
                            environment: [String: String] = ProcessEnvironment.current) throws(Failure) -> TypeRegistry {
        var search = DeclarationSearchPath.environment(environment)
        search.explicitPaths += extraPaths
        let (files, missing) = search.resolve()
        var problems = missing.map { "\($0.path): \($0.reason)" }
        if files.isEmpty && problems.isEmpty && !includeSystem && applicationDeclarations.isEmpty { return TypeRegistry.bundled }
        var builder = RegistryBuilder.bundled()
        if includeSystem { addSystemSources(to: &builder, environment: environment) }
        for reader in applicationDeclarations { builder.add(reader) }
        for file in files {
            let reader = DeclarationReader.read(path: file, source: .user)
            if let error = reader.fileError {
                problems.append(error.description)
            }
            builder.add(reader)
        }
        guard problems.isEmpty else { throw Failure(problems: problems) }
        return builder.build()
    }

    /// Whether `load` would read declaration files (which may fail): true
    /// when `extraPaths` is not empty or the environment names or holds any.
    /// Without them, loading cannot fail.
    public static func readsDeclarationFiles(extraPaths: [String] = [],
                                             environment: [String: String] = ProcessEnvironment.current) -> Bool {
        var search = DeclarationSearchPath.environment(environment)
        search.explicitPaths += extraPaths
        let (files, missing) = search.resolve()
        return !files.isEmpty || !missing.isEmpty
    }

    /// Adds the shared-mime-info database and the `mime.types` files the
    /// environment names. A `mime.types` file that does not exist is skipped
    /// unless `UTI_MIME_TYPES` names it.
    public static func addSystemSources(to builder: inout RegistryBuilder,
                                        environment: [String: String] = ProcessEnvironment.current) {
        builder.add(MIMEDatabase.load(MIMESearchPath.environment(environment)))
        let named = environment["UTI_MIME_TYPES"] != nil
        for path in MIMETypesFile.paths(environment: environment) {
            if !named && !FileStatus.exists(path) { continue }
            let (records, diagnostics) = MIMETypesFile.read(path: path)
            builder.add(records)
            builder.add(diagnostics: diagnostics)
        }
    }
}
