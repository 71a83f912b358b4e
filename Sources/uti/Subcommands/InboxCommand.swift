import ArgumentParser
import Dispatch
import InboxProcessing
import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

struct InboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inbox",
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

            Exit status: 0 everything was moved (or there was no Inbox), 1 something was
            left or could not be moved, 2 the run could not be done (bad arguments, a
            DOCUMENTS or Inbox that cannot be used).
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
