import SystemBase

/// The loader of uti 0.1.0, kept so that code written for it still builds:
/// `TypeRegistry.load(_:cache:)` with `RegistrySources` replaces it.
@available(*, deprecated, message: "use TypeRegistry.load(_:cache:) with RegistrySources")
public enum RegistryLoader {
    /// Declaration sources that could not be used.
    public typealias Failure = TypeRegistry.LoadError

    /// The registry of the system's MIME types (unless `includeSystem` is
    /// false), the bundled types, `applicationDeclarations` (app bundles'
    /// declarations, already read), the files `environment` points to, then
    /// `extraPaths`, built without a cache; throws when a path the user named
    /// cannot be used. App bundles are not looked for: it is
    /// `TypeRegistry.load(RegistrySources(extraPaths:includeSystem:environment:), cache: nil)`
    /// with `applications` set to none.
    public static func load(
        extraPaths: [String] = [], includeSystem: Bool = true,
        applicationDeclarations: [DeclarationReader] = [],
        environment: [String: String] = ProcessEnvironment.current
    ) throws(Failure) -> TypeRegistry {
        var sources = RegistrySources(extraPaths: extraPaths, includeSystem: includeSystem, environment: environment)
        sources.applications = AppBundleSearchPath()
        sources.readApplicationDeclarations = applicationDeclarations
        let (files, missing) = sources.declarations.resolve()
        if files.isEmpty && missing.isEmpty && !includeSystem && applicationDeclarations.isEmpty
            && sources.environmentProblems.isEmpty
        {
            return TypeRegistry.bundled
        }
        return try TypeRegistry.load(sources, cache: nil).registry
    }
}
