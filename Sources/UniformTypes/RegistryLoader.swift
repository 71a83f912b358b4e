/// Builds a registry from the bundled declarations, the environment's search
/// path and extra paths, refusing to answer from a partial set of sources.
public enum RegistryLoader {
    /// Declaration sources that could not be used.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var problems: [String]
        public var description: String { problems.joined(separator: "\n") }
    }

    /// Loads bundled types, then the files `environment` points to
    /// (`DeclarationSearchPath.environment`), then `extraPaths` (files or
    /// folders) with the highest precedence. Throws when a named path is
    /// missing or any declaration file cannot be read or parsed.
    public static func load(extraPaths: [String] = [],
                            environment: [String: String] = ProcessEnvironment.current) throws(Failure) -> TypeRegistry {
        var search = DeclarationSearchPath.environment(environment)
        search.explicitPaths += extraPaths
        let (files, missing) = search.resolve()
        var problems = missing.map { "\($0.path): \($0.reason)" }
        if files.isEmpty && problems.isEmpty { return TypeRegistry.bundled }
        var builder = RegistryBuilder.bundled()
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
}
