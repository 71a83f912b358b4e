import ArgumentParser
import DocumentHandlers
import PropertyLists
import SystemBase
import UniformTypes

/// Where declarations come from, shared by every command.
struct RegistryOptions: ParsableArguments {
    @Option(
        name: .customLong("declarations"),
        help: ArgumentHelp(
            "A declarations file or folder of *.plist files (repeatable); overrides the bundled types.",
            valueName: "path"),
        completion: .file())
    var declarations: [String] = []
    @Flag(
        name: .customLong("no-system"),
        help: "Leave out the system's MIME data (shared-mime-info, mime.types); names are typed by extension only.")
    var noSystem = false
    @Option(
        name: .customLong("apps"),
        help: ArgumentHelp(
            "An app bundle or a folder of bundles (repeatable); the types they declare join the registry.",
            valueName: "path"),
        completion: .file())
    var apps: [String] = []

    /// Where app bundles and desktop entries are looked for.
    var applicationSearchPath: ApplicationSearchPath { .environment(bundlePaths: apps) }

    /// Whether loading may fail: declaration files or bundle paths are named
    /// (or any declaration file is there to be read).
    var namesSources: Bool {
        var search = DeclarationSearchPath.environment()
        search.explicitPaths += declarations
        let (files, missing) = search.resolve()
        return !files.isEmpty || !missing.isEmpty || !applicationSearchPath.explicitBundlePaths.isEmpty
    }

    /// The registry (the compiled one in the cache when it is current) and
    /// the app bundles whose declarations joined it.
    func loadWithBundles() throws(TypeRegistry.LoadError) -> (TypeRegistry, AppBundleSet) {
        let bundles = AppBundleSet(searchPath: applicationSearchPath)
        var problems = bundles.problems
        var registry: TypeRegistry?
        do {
            registry = try loadCached()
        } catch {
            problems += error.diagnostics.filter { !problems.contains($0) }
        }
        guard let registry, problems.isEmpty else { throw TypeRegistry.LoadError(diagnostics: problems) }
        return (registry, bundles)
    }

    /// The registry for lookups: the compiled one in the cache when it is
    /// current (see `RegistryCache`), else built from the sources and saved.
    func loadCached() throws(TypeRegistry.LoadError) -> TypeRegistry {
        try Self.loadCached(declarations: declarations, includeSystem: !noSystem, searchPath: applicationSearchPath)
    }

    /// The registry the command loaded, and the cache folder it came from.
    nonisolated(unsafe) static var loadedRegistry: (registry: TypeRegistry, cache: String?)?

    /// `status`, or an error when an answer of the registry the command
    /// loaded ran past its work budget (a damaged compiled image, whose
    /// answers may be incomplete).
    static func checkedAnswers(_ status: Int32) -> Int32 {
        guard let (registry, cache) = loadedRegistry, registry.answersWereCut else { return status }
        Console.error(
            "uti: the compiled registry\(cache.map { " in \(Escaping.name($0))" } ?? "") is damaged: "
                + "an answer ran past its work budget or met what no sound image holds, so answers may be "
                + "incomplete; delete the registry-*.img files there to have it rebuilt")
        return Status.error
    }

    /// The registry, from the cache when there is one. `reading` `.map`
    /// is for a process that ends after its answer and checks
    /// `TypeRegistry.isIntact` first. The app bundles are `searchPath`'s,
    /// by default the environment's (as `TypeRegistry.default` reads them).
    static func loadCached(
        declarations: [String] = [], includeSystem: Bool = true, searchPath: ApplicationSearchPath? = nil,
        reading: RegistryCache.Reading = .copy
    ) throws(TypeRegistry.LoadError) -> TypeRegistry {
        let environment = ProcessEnvironment.current
        var sources = RegistrySources(extraPaths: declarations, includeSystem: includeSystem, environment: environment)
        if let searchPath { sources.applications = searchPath.bundles }
        var cache = RegistryCache.environment(environment)
        cache?.reading = reading
        let loaded = try TypeRegistry.load(sources, cache: cache)
        let registry = loaded.registry
        loadedRegistry = (registry, cache?.directory)
        // Skipped declaration files keep a registry out of the cache on
        // purpose and are reported as such; any other reason is the folder's.
        if let cache, case .notSaved(let reason) = loaded.cacheOutcome, registry.skippedSources.isEmpty {
            warnCacheUnusable(cache.directory, reason)
        }
        return registry.reportingSkippedSources()
    }

    /// Set once the cache folder's problem was told, so a run says it once.
    nonisolated(unsafe) private static var toldCacheUnusable = false

    /// Says on standard error why the compiled registry cannot be kept,
    /// which costs every run the time of reading the sources.
    private static func warnCacheUnusable(_ directory: String, _ reason: String) {
        guard !toldCacheUnusable else { return }
        toldCacheUnusable = true
        Console.error(
            // Names escaped as the inbox escapes them: a line feed in a folder name cannot start a line of its own.
            "uti: warning: the compiled registry cannot be kept in \(Escaping.name(directory)) "
                + "(\(Escaping.name(reason))), so every run reads "
                + "the type sources again; set UTI_CACHE_DIR to a folder only you can write, or to nothing to turn "
                + "the cache off")
    }

    /// The registry, or exit status 2 with every unusable source named.
    func load() throws -> TypeRegistry {
        do {
            return try loadCached()
        } catch {
            throw error.reported()
        }
    }

    /// The registry and bundles, or exit status 2 with every unusable source named.
    func loadOrExit() throws -> (TypeRegistry, AppBundleSet) {
        do {
            return try loadWithBundles()
        } catch {
            throw error.reported()
        }
    }

    /// The handler resolver over the registry and every handler source;
    /// with `reportingCatalog`, the problems in the handler sources (each
    /// skipped) are named on standard error, each after `program` as every
    /// message is; without it, the caller tells the ones that bear on what
    /// it opens (`OpenPlan.diagnostics(in:)`).
    func resolverOrExit(program: String = "uti", reportingCatalog: Bool = true) throws -> HandlerResolver {
        let (registry, bundles): (TypeRegistry, AppBundleSet)
        do { (registry, bundles) = try loadWithBundles() } catch {
            for problem in error.diagnostics {
                Console.error("\(program): \(keepingBackslashes: "\(problem)")" as TerminalText)
            }
            throw ExitCode(Status.error)
        }
        let catalog = HandlerCatalog(searchPath: applicationSearchPath, bundles: bundles)
        for diagnostic in catalog.diagnostics where reportingCatalog && diagnostic.severity != .note {
            Console.error("\(program): \(keepingBackslashes: "\(diagnostic)")" as TerminalText)
        }
        return HandlerResolver(catalog: catalog, registry: registry)
    }
}

struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON (the schema is in docs/json.md).")
    var json = false
    @Option(
        help: ArgumentHelp(
            "Describe types in this language where shared-mime-info has a translation (de, pt_BR).",
            valueName: "code"))
    var language: String?
}

/// How to read a query, shared by the commands that take one.
struct QueryOptions: ParsableArguments {
    @Flag(name: .customLong("as-extension"), help: "Read queries as filename extensions.")
    var asExtension = false
    @Flag(name: .customLong("as-mime"), help: "Read queries as MIME types.")
    var asMIME = false
    @Flag(name: .customLong("as-identifier"), help: "Read queries as type identifiers.")
    var asIdentifier = false
    /// The spellings these flags had before, kept to say what they became.
    @Flag(name: .customLong("extension"), help: .private)
    var renamedExtension = false
    @Flag(name: .customLong("identifier"), help: .private)
    var renamedIdentifier = false
    @Option(
        name: .customLong("tag-class"),
        help: ArgumentHelp(
            "Read queries as tags of this class (extension, mime, ostype, or a class identifier).", valueName: "class"),
        completion: .list(["extension", "mime", "ostype"]))
    var tagClass: String?
    @Option(
        name: .customLong("conforming-to"),
        help: ArgumentHelp(
            "Only types conforming to this type (default public.data for extensions and MIME types).", valueName: "type"
        ),
        completion: .typeNames)
    var conformingTo: String?
    @Flag(
        name: .customLong("unfiltered"),
        help: ArgumentHelp(
            "No conformance filter (Apple's conformingTo: nil): the first type claiming the tag, whatever it is; an unclaimed tag gives a dyn identifier without conformance (xlv: dyn.age81u5d0)."
        ))
    var unfiltered = false

    func validate() throws {
        if renamedExtension { throw RenamedFlag.asExtension.error }
        if renamedIdentifier { throw RenamedFlag.asIdentifier.error }
        let forced = [asExtension, asMIME, asIdentifier, tagClass != nil].filter { $0 }.count
        if forced > 1 {
            throw ValidationError("--as-extension, --as-mime, --as-identifier and --tag-class exclude each other")
        }
        if unfiltered && conformingTo != nil {
            throw ValidationError("--unfiltered and --conforming-to exclude each other")
        }
    }

    func resolver(_ registry: TypeRegistry) throws -> QueryResolver {
        var resolver = QueryResolver(registry: registry)
        if asExtension { resolver.forcedKind = .filenameExtension }
        if asMIME { resolver.forcedKind = .mimeType }
        if asIdentifier { resolver.forcedKind = .identifier }
        resolver.unfiltered = unfiltered
        if let tagClass {
            do { resolver.tagClass = try TagClass.parse(tagClass, registry: registry) } catch {
                throw Console.fail("--tag-class \(keepingBackslashes: "\(error)")" as TerminalText)
            }
        }
        if let conformingTo {
            do {
                resolver.conformingTo = try QueryResolver(registry: registry).type(conformingTo)
            } catch {
                throw Console.fail("--conforming-to \(conformingTo): \(keepingBackslashes: "\(error)")" as TerminalText)
            }
        }
        return resolver
    }
}

/// A flag whose spelling now means something else, or nothing: the
/// message says what to write instead.
enum RenamedFlag {
    case asExtension, asIdentifier, asMIME

    var error: ValidationError {
        switch self {
        case .asExtension:
            ValidationError("--extension is now --as-extension (read queries as filename extensions)")
        case .asIdentifier:
            ValidationError("--identifier is now --as-identifier (read queries as type identifiers)")
        case .asMIME:
            ValidationError(
                "--mime prints MIME types (uti lookup --mime jpg, uti file --mime a.jpg); "
                    + "--as-mime reads queries as MIME types")
        }
    }
}

/// `--mime` in a command that prints no MIME type: it read queries as MIME
/// types before it meant "print the MIME type", so it says what to write.
struct RenamedMIMEFlag: ParsableArguments {
    @Flag(name: .customLong("mime"), help: .private)
    var given = false

    func validate() throws {
        if given { throw RenamedFlag.asMIME.error }
    }
}

extension QueryResolver {
    /// Resolves a type argument, or exits 2 naming the argument. An
    /// undeclared dotted name whose kind was guessed is taken for a mistyped
    /// identifier, not an extension (`public.imgae`); --extension forces it.
    func argument(_ query: String, _ name: String) throws -> UniformType {
        do { return try resolve(query).type } catch {
            throw Console.fail("\(name) \"\(query)\": \(keepingBackslashes: "\(error)")" as TerminalText)
        }
    }

    /// Resolves an argument that must name a declared type (the supertype
    /// of `conforms`, the root of `descendants`, `graph` and `tags
    /// --descendants`), or exits 2: a word that only gives a dynamic type
    /// (`image`) is refused with the identifiers it may mean.
    func declaredArgument(_ query: String, _ name: String) throws -> UniformType {
        let type = try argument(query, name)
        if let error = undeclared(query, type) {
            throw Console.fail("\(name) \"\(query)\": \(keepingBackslashes: "\(error)")" as TerminalText)
        }
        return type
    }
}

extension TypeRegistry {
    /// Names each declaration file or app bundle of the search folders that
    /// was left out on standard error; the registry, answering from the
    /// other sources.
    func reportingSkippedSources() -> TypeRegistry {
        for source in skippedSources { Console.error("uti: \(keepingBackslashes: "\(source)")" as TerminalText) }
        return self
    }
}

extension TypeRegistry.LoadError {
    /// Names every unusable source on standard error; the exit status to throw.
    func reported() -> ExitCode {
        for problem in diagnostics { Console.error("uti: \(keepingBackslashes: "\(problem)")" as TerminalText) }
        return ExitCode(Status.error)
    }
}
