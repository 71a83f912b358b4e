import ArgumentParser
import Dispatch
import InboxProcessing
import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

struct InboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: CommandName.inbox.rawValue,
        abstract: "Move everything in DOCUMENTS/Inbox into DOCUMENTS, never replacing a file.",
        discussion: """
            Each entry of the Inbox moves as a unit: a file, a symbolic link (moved as a
            link, never followed; a relative one is rewritten so that it points where it
            pointed), a folder or package (moved whole). A taken name gets the
            next free counter before the extension the registry knows (report-1.pdf,
            archive-1.tar.gz, notes-1, .profile-1); names are bytes, kept as they are.
            An item is taken once it has not changed for the settle interval and no process
            has it open for writing; others are left for a later run. FIFOs, sockets and
            devices are never moved. An Inbox that is not a folder is a document and is
            moved under a free name. The emptied Inbox is removed (only when empty).

            An entry whose name matches a glob of --ignore (as uti watch reads it), or
            one of the files editors, downloads and version control keep for themselves,
            is left in place, never opened: a swap file or a download in progress never
            moves, however long it stays unchanged (--no-default-ignore moves those):
            \(IgnoreOptions.defaults).

            Routes send items to folders of DOCUMENTS by type: --route TYPE=FOLDER
            (repeatable), then the rules of --routes FILE or, without it, of
            $XDG_CONFIG_HOME/uti/routes (~/.config/uti/routes) when it exists
            (--no-routes skips it): one "TYPE FOLDER" a line, # comments. The first rule
            whose TYPE (an extension, MIME type or identifier) the item's type conforms to
            wins; others stay in DOCUMENTS. FOLDER is a path inside DOCUMENTS, made when
            missing, never through a symbolic link. An item whose content contradicts its
            name is not routed: it stays in DOCUMENTS, or goes to --quarantine FOLDER.

            Exit status: 0 everything was moved (or there was no Inbox), 1 something was
            left or could not be moved, 2 the run could not be done (bad arguments, a
            DOCUMENTS or Inbox that cannot be used, a route that cannot: nothing moves).
            """)

    @OptionGroup var registryOptions: RegistryOptions
    @Argument(
        help: ArgumentHelp("The Documents folder (default: the current folder).", valueName: "documents"),
        completion: .directory)
    var documentsArgument: String?

    var documents: String { documentsArgument ?? "." }
    @Option(
        name: .customLong("inbox"),
        help: ArgumentHelp("The Inbox's name inside DOCUMENTS, or its path when it holds a \"/\".", valueName: "name"),
        completion: .directory)
    var inbox = "Inbox"
    // Unconditional, so that "--settle -1" is refused for its value rather than read as a missing one.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds an item must stay unchanged before it is taken (0 takes it at once).",
            valueName: "seconds"))
    var settle: Double = 2
    @Flag(name: .customLong("no-writer-check"), help: "Take files that a process still has open for writing.")
    var noWriterCheck = false
    @Flag(name: .customLong("dry-run"), help: "Say what would move where; move nothing.")
    var dryRun = false
    @Flag(name: .customLong("keep-inbox"), help: "Leave the emptied Inbox in place.")
    var keepInbox = false
    @OptionGroup var ignoreOptions: IgnoreOptions
    @Option(
        name: .customLong("route"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Move items whose type conforms to TYPE into FOLDER of DOCUMENTS (repeatable; the first match wins).",
            valueName: "type=folder"))
    var routeArguments: [String] = []
    @Option(
        name: .customLong("routes"),
        help: ArgumentHelp(
            "Read routes from FILE, one \"TYPE FOLDER\" a line (default: $XDG_CONFIG_HOME/uti/routes when it exists).",
            valueName: "file"),
        completion: .file())
    var routesFile: String?
    @Flag(name: .customLong("no-routes"), help: "Do not read the default routes file.")
    var noRoutes = false
    @Option(
        name: .customLong("quarantine"),
        help: ArgumentHelp(
            "Move items whose content contradicts their name into FOLDER of DOCUMENTS (default: DOCUMENTS itself).",
            valueName: "folder"),
        completion: .directory)
    var quarantine: String?
    @Flag(
        help:
            "Keep watching the Inbox and move items as they arrive and settle (the Inbox is kept); stop with SIGINT or SIGTERM."
    )
    var watch = false
    @Flag(help: "Print JSON (with --watch, one object per item and line).")
    var json = false

    /// The --inbox value without trailing slashes (`/` stays `/`, and is refused).
    private var inboxPath: String {
        var path = Substring(inbox)
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        return path == "/" ? "" : String(path)
    }

    func validate() throws {
        if documents.isEmpty { throw ValidationError("DOCUMENTS is empty") }
        _ = try ignoreOptions.patterns(topLevelOnly: true)
        if inboxPath.isEmpty || inboxPath == "." || inboxPath == ".." || inboxPath.hasSuffix("/.")
            || inboxPath.hasSuffix("/..")
        {
            throw ValidationError("--inbox \"\(inbox)\" does not name a folder")
        }
        if inbox.utf8.contains(0) { throw ValidationError("--inbox contains a NUL byte") }
        if !settle.isFinite || settle < 0 || settle > 86_400 {
            throw ValidationError("--settle \(settle): give seconds from 0 to 86400")
        }
        if watch && dryRun { throw ValidationError("--watch and --dry-run cannot be used together") }
        let routing = try givenRouting()
        if !inboxPath.contains("/") {
            do { try routing.checkOutsideInbox(named: inboxPath) } catch { throw ValidationError("\(error)") }
        }
    }

    /// The rules of the --route options and the --quarantine folder, their
    /// types not resolved yet.
    private func givenRouting() throws -> InboxRouting {
        var routes: [InboxRoute] = []
        var folder: RouteFolder?
        do {
            // Arguments as their bytes: a folder is made under the bytes given.
            for argument in routeArguments { routes.append(try InboxRoute.option(bytes: PathText.bytes(argument))) }
            if let quarantine {
                do { folder = try RouteFolder(bytes: PathText.bytes(quarantine)) } catch {
                    throw RouteError(error.code, "--quarantine \(quarantine): \(error.message)")
                }
            }
        } catch { throw ValidationError("\(error)") }
        return InboxRouting(routes: routes, quarantine: folder) { _, _ in nil }
    }

    /// The routing of the run: the --route rules, then those of the routes
    /// file, each type resolved as `uti conforms` resolves its SUPERTYPE;
    /// nil when there is no rule and no --quarantine. Exits 2 naming the
    /// first rule that cannot be used, before anything moves.
    private func routing(_ registry: BackgroundRegistry) throws -> InboxRouting? {
        var routing = try givenRouting()
        let file: (path: String, given: Bool)? =
            routesFile.map { ($0, true) } ?? (noRoutes ? nil : InboxRoute.defaultFilePath().map { ($0, false) })
        if let file {
            do {
                if let rules = try InboxRoute.readFile(file.path, mustExist: file.given) { routing.routes += rules }
            } catch { throw Console.fail("\(error)") }
        }
        if routing.routes.isEmpty && routing.quarantine == nil { return nil }
        let loaded = try registry.waitOrExit()
        let resolver = QueryResolver(registry: loaded)
        do {
            routing.routes = try InboxRoute.resolved(routing.routes) { (query) throws(RouteError) -> String in
                let type: UniformType
                do { type = try resolver.resolve(query).type } catch {
                    throw RouteError(.unknownType, "TYPE \"\(query)\": \(error)")
                }
                if let error = resolver.undeclared(query, type) {
                    throw RouteError(.unknownType, "TYPE \"\(query)\": \(error)")
                }
                return type.identifier
            }
            if !inboxPath.contains("/") { try routing.checkOutsideInbox(named: inboxPath) }
        } catch { throw Console.fail("\(error)") }
        let typing = FileTyping(registry: loaded)
        routing.typeEntry = { folder, name in InboxRoutesFile.typeEntry(name, inFolder: folder, typing: typing) }
        return routing
    }

    func run() throws {
        // A file-size limit then fails the copy with EFBIG instead of killing the run midway.
        signal(SIGXFSZ, SIG_IGN)
        // The registry loads on another thread while the first items move;
        // it is needed only for a taken name's extension and for the report.
        // Loading fails only on declaration files, so with any to read, the
        // run waits for it (and stops on a bad one) before moving anything.
        let options = registryOptions
        let registry = BackgroundValue { () throws(TypeRegistry.LoadError) in try options.loadWithBundles().0 }
        if registryOptions.namesSources {
            _ = try registry.waitOrExit()
        }
        var processing = InboxProcessor.Options()
        // A trailing "/" is kept: it asks for a folder, never a file or link there.
        processing.inbox = inbox.hasSuffix("/") && inboxPath != inbox ? inboxPath + "/" : inboxPath
        processing.settle = SettlePolicy(interval: settle, checkWriters: !noWriterCheck)
        processing.dryRun = dryRun
        processing.ignore = try ignoreOptions.patterns(topLevelOnly: true)
        // A watched Inbox is in use: removing it when empty would pull it away
        // from an app that has just created it to deliver a file.
        processing.removeEmptyInbox = !keepInbox && !watch
        processing.routing = try routing(registry)
        let processor = InboxProcessor(
            documents: documents, options: processing,
            isKnownExtension: Self.knownExtensions(registry))
        // Items are typed and printed on a thread of their own, so the moves never wait for the report.
        let printer = InboxPrinter(
            registry: registry, documents: documents, json: json, dryRun: dryRun, streaming: watch)
        let relay = OrderedRelay<InboxProcessor.Event>(label: "uti.inbox.output") { batch in
            for event in batch { printer.handle(event) }
            // Each item reaches a pipe as it is done (`--watch --json | consumer`).
            printer.flush()
        }
        if watch {
            let signal: Int32
            do {
                signal = try InboxWatcher(processor: processor).run(
                    { relay.send($0) },
                    finished: { summary in
                        relay.afterDelivery { printer.finishPass(summary) }
                    })
            } catch {
                relay.waitForDelivery { printer.endProgress() }
                throw Console.fail("\(error)")
            }
            relay.waitForDelivery { printer.endProgress() }
            Console.error("uti: stopped by \(signal == SIGINT ? "SIGINT" : "SIGTERM")")
            return
        }
        let summary: InboxProcessor.Summary
        do { summary = try processor.run { relay.send($0) } } catch {
            relay.waitForDelivery { printer.endProgress() }
            throw Console.fail("\(error)")
        }
        relay.waitForDelivery { printer.finish(summary, inboxPath: processor.inboxPath) }
        if !summary.isComplete { throw ExitCode(Status.no) }
    }

    /// Whether a declared or system type claims the extension (`tar.gz`,
    /// `pdf`; not `report.pdf` or `2.txt`), so the counter goes before the
    /// longest one that is really an extension. (`types(tag:)` is never
    /// empty: an unclaimed tag gives a dynamic type.)
    static func knownExtensions(_ background: BackgroundRegistry) -> (ArraySlice<UInt8>) -> Bool {
        var registry: TypeRegistry?
        return { bytes in
            if registry == nil { registry = try? background.waitOrExit() }
            guard let registry, let text = String(validating: bytes, as: UTF8.self) else { return false }
            return registry.claims(tag: text)
        }
    }
}

/// The registry of an inbox run, loaded on another thread.
typealias BackgroundRegistry = BackgroundValue<TypeRegistry, TypeRegistry.LoadError>

extension BackgroundValue where Value == TypeRegistry, Failure == TypeRegistry.LoadError {
    /// Waits for the registry; exit status 2 with every unusable source named.
    func waitOrExit() throws -> TypeRegistry {
        do { return try wait() } catch { throw error.reported() }
    }
}

/// The typing of items for routing.
enum InboxRoutesFile {
    /// The type of the entry `name` of the open folder `folder`, by its
    /// name and content (`FileTyping.Options.checkContent`), never
    /// following a symbolic link; nil when it cannot be typed. A file whose
    /// content contradicts its name carries the reason.
    static func typeEntry(_ name: FileName, inFolder folder: Int32, typing: FileTyping) -> EntryTyping? {
        var options = FileTyping.Options()
        options.checkContent = true
        guard let result = try? typing.type(ofEntry: name.bytes, inFolder: folder, options: options) else {
            return nil
        }
        let contradiction = result.contentCheck.flatMap { $0.agreement == .contradicts ? $0.reason : nil }
        return EntryTyping(
            identifier: result.type.identifier, conformsTo: result.type.orderedSupertypes.map(\.identifier),
            contradiction: contradiction)
    }
}
