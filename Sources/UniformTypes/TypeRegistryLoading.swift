import SystemBase

extension TypeRegistry {
    /// A registry loaded from its sources, with the sources it did without.
    public struct Loaded: Sendable {
        /// The registry.
        public var registry: TypeRegistry
        /// The sources the user named that could not be used and were left
        /// out (only with `RegistrySources.NamedSourcePolicy.leaveOut`; with
        /// `.stop` the load throws instead), each with its file and, where
        /// known, its line.
        public var leftOut: [Diagnostic]
        /// How the cache gave the registry; nil when no cache was used.
        public var cacheOutcome: RegistryCache.Outcome?

        /// The declaration files and app bundles found in the search folders
        /// that could not be read and were skipped, each as its error (the
        /// registry's `skippedSources`).
        public var skippedSources: [Diagnostic] { registry.skippedSources }
    }

    /// Sources the user named that could not be used, so no registry was
    /// loaded (`RegistrySources.NamedSourcePolicy.stop`).
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        /// Each source that could not be used: its file, the line where
        /// known, and what is wrong.
        public var diagnostics: [Diagnostic]

        /// A failure of the sources `diagnostics` name.
        public init(diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }

        /// One problem a line, `FILE[:LINE]: error: MESSAGE`.
        public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
    }

    /// The registry of `sources`: the one way to load a registry from files.
    ///
    /// With a `cache`, the compiled registry saved there is used when every
    /// source is unchanged since it was built; otherwise the registry is
    /// built and saved for the next load. A registry is never saved when it
    /// holds declarations added in code, or when a source was skipped or
    /// left out (so that it is reported on every load until mended). Without
    /// a cache, the registry is built from the sources.
    ///
    /// Problems in the system's MIME data are kept in the registry's
    /// `diagnostics`; a declaration file or app bundle found in a search
    /// folder that cannot be read is skipped (`Loaded.skippedSources`); a
    /// source the user named that cannot be used throws with
    /// `NamedSourcePolicy.stop`, and is left out and named in
    /// `Loaded.leftOut` with `.leaveOut`.
    public static func load(_ sources: RegistrySources, cache: RegistryCache?) throws(LoadError) -> Loaded {
        if let cache, sources.isCacheable {
            do throws(LoadError) {
                let (registry, outcome) = try cache.load(sources)
                return Loaded(registry: registry, leftOut: [], cacheOutcome: outcome)
            } catch {
                // Left out instead: built below without the sources that failed, and not saved.
                if sources.namedSources == .stop { throw error }
            }
        }
        let (builder, problems) = sources.builder()
        if sources.namedSources == .stop && !problems.isEmpty { throw LoadError(diagnostics: problems) }
        return Loaded(registry: builder.build(), leftOut: problems, cacheOutcome: nil)
    }
}
