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
        link, never followed), a folder or package (moved whole). A taken name gets the
        next free counter before the extension the registry knows (report-1.pdf,
        archive-1.tar.gz, notes-1, .profile-1); names are bytes and are kept as they are.
        An item is taken once it has not changed for the settle interval and no process
        has it open for writing; others are left for a later run. FIFOs, sockets and
        devices are never moved. An Inbox that is not a folder is a document and is
        moved under a free name. The emptied Inbox is removed (only when empty).

        Exit status: 0 everything was moved (or there was no Inbox), 1 something was
        left or could not be moved, 2 the run could not be done (bad arguments, a
        DOCUMENTS or Inbox that cannot be used).
        """)

    @OptionGroup var registryOptions: RegistryOptions
    @Argument(help: ArgumentHelp("The Documents folder (default: the current folder).", valueName: "documents"))
    var documentsArgument: String?

    var documents: String { documentsArgument ?? "." }
    @Option(name: .customLong("inbox"),
            help: ArgumentHelp("The Inbox's name inside DOCUMENTS, or its path when it holds a \"/\".", valueName: "name"))
    var inbox = "Inbox"
    @Option(help: ArgumentHelp("Seconds an item must stay unchanged before it is taken (0 takes it at once).",
                               valueName: "seconds"))
    var settle: Double = 2
    @Flag(name: .customLong("no-writer-check"), help: "Take files that a process still has open for writing.")
    var noWriterCheck = false
    @Flag(name: .customLong("dry-run"), help: "Say what would move where; move nothing.")
    var dryRun = false
    @Flag(name: .customLong("keep-inbox"), help: "Leave the emptied Inbox in place.")
    var keepInbox = false
    @Flag(help: "Keep watching the Inbox and move items as they arrive and settle (the Inbox is kept); stop with SIGINT or SIGTERM.")
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
        if inboxPath.isEmpty || inboxPath == "." || inboxPath == ".." || inboxPath.hasSuffix("/.") || inboxPath.hasSuffix("/..") {
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
        let registry = BackgroundRegistry(registryOptions)
        if registryOptions.namesSources {
            _ = try registry.wait()
        }
        var options = InboxProcessor.Options()
        options.inbox = inboxPath
        options.settle = SettlePolicy(interval: settle, checkWriters: !noWriterCheck)
        options.dryRun = dryRun
        // A watched Inbox is in use: removing it when empty would pull it away
        // from an app that has just created it to deliver a file.
        options.removeEmptyInbox = !keepInbox && !watch
        let processor = InboxProcessor(documents: documents, options: options,
                                       isKnownExtension: Self.knownExtensions(registry))
        let output = InboxOutput(InboxPrinter(registry: registry, documents: documents, json: json, dryRun: dryRun,
                                              streaming: watch))
        if watch {
            let signal: Int32
            do {
                signal = try InboxWatcher(processor: processor).run({ output.send($0) },
                                                                    finished: { output.finishPass($0) })
            } catch {
                output.drain()
                throw Console.fail("\(error)")
            }
            output.drain()
            Console.error("uti: stopped by \(signal == SIGINT ? "SIGINT" : "SIGTERM")")
            return
        }
        let summary: InboxProcessor.Summary
        do { summary = try processor.run { output.send($0) } } catch {
            output.drain()
            throw Console.fail("\(error)")
        }
        output.finish(summary, inboxPath: processor.inboxPath)
        if !summary.isComplete { throw ExitCode(Status.no) }
    }

    /// Whether a type claims the extension, as `public.data` lookups see it.
    static func knownExtensions(_ background: BackgroundRegistry) -> (ArraySlice<UInt8>) -> Bool {
        var registry: TypeRegistry?
        return { bytes in
            if registry == nil { registry = try? background.wait() }
            guard let registry, let text = String(validating: bytes, as: UTF8.self) else { return false }
            return !registry.types(tag: text, tagClass: .filenameExtension).isEmpty
        }
    }
}

/// The registry, loaded on another thread.
final class BackgroundRegistry: @unchecked Sendable {
    private var registry: TypeRegistry?
    private var problems: [String] = []
    private let done = DispatchSemaphore(value: 0)

    init(_ options: RegistryOptions) {
        DispatchQueue.global().async { [self] in
            do throws(RegistryLoader.Failure) {
                registry = try options.loadWithBundles().0
            } catch {
                problems = error.problems
            }
            done.signal()
        }
    }

    /// Waits for the registry; exit status 2 with every unusable source named.
    func wait() throws -> TypeRegistry {
        done.wait()
        done.signal()
        if let registry { return registry }
        for problem in problems { Console.error("uti: \(problem)") }
        throw ExitCode(Status.error)
    }
}

/// Types and prints an inbox run's events on a thread of its own, in order,
/// so that the moves do not wait for the report. Events go over in batches,
/// which keeps the cost of waking that thread off each move.
final class InboxOutput: @unchecked Sendable {
    private var printer: InboxPrinter
    private let queue = DispatchQueue(label: "uti.inbox.output")
    /// Touched only by the thread that sends.
    private var pending: [InboxProcessor.Event] = []
    private var lastFlush = ContinuousClock.now

    init(_ printer: InboxPrinter) { self.printer = printer }

    func send(_ event: InboxProcessor.Event) {
        pending.append(event)
        if pending.count >= 256 || ContinuousClock.now - lastFlush > .milliseconds(50) { flush() }
    }

    func finishPass(_ summary: InboxProcessor.Summary) {
        flush()
        queue.async { self.printer.finishPass(summary) }
    }

    func finish(_ summary: InboxProcessor.Summary, inboxPath: String) {
        flush()
        queue.sync { printer.finish(summary, inboxPath: inboxPath) }
    }

    /// Waits until everything sent is printed.
    func drain() {
        flush()
        queue.sync { printer.endProgress() }
    }

    private func flush() {
        lastFlush = .now
        guard !pending.isEmpty else { return }
        let batch = pending
        pending.removeAll(keepingCapacity: true)
        queue.async { for event in batch { self.printer.handle(event) } }
    }
}

/// Prints an inbox run: one line per item, then a summary; JSON instead
/// when asked; a progress line on a terminal during long runs.
struct InboxPrinter {
    private let registry: BackgroundRegistry
    private var typingCache: FileTyping?
    let documents: String
    let json: Bool
    let dryRun: Bool
    /// One JSON object per line as items happen (watching), not one document.
    let streaming: Bool
    private var items: [JSON] = []
    private var progress: ProgressLine?

    init(registry: BackgroundRegistry, documents: String, json: Bool, dryRun: Bool, streaming: Bool) {
        self.registry = registry
        self.documents = documents
        self.json = json
        self.dryRun = dryRun
        self.streaming = streaming
    }

    mutating func handle(_ event: InboxProcessor.Event) {
        switch event {
        case .started(let count):
            if !streaming && count >= 200 { progress = ProgressLine(total: count) }
        case .item(let report):
            progress?.advance()
            let type = typing.flatMap { Self.type(of: report, typing: $0, documents: documents) }
            if json {
                let object = Self.json(report, type: type)
                if streaming { print(object.serialized(indent: nil)) } else { items.append(object) }
                return
            }
            progress?.clear()
            if case .failed(let reason) = report.outcome {
                Console.error("uti: \(report.displayPath): not moved: \(reason)")
            } else {
                print(Self.line(report, type: type, dryRun: dryRun))
            }
            progress?.draw()
        }
    }

    mutating func endProgress() {
        progress?.clear()
        progress = nil
    }

    mutating func finishPass(_ summary: InboxProcessor.Summary) {
        endProgress()
        for problem in summary.recoveryProblems { Console.error("uti: \(problem)") }
        if json { return }
        let total = summary.moved + summary.waiting + summary.leftInPlace + summary.gone + summary.failed
        if total > 0 { print(Self.summaryLine(summary, dryRun: dryRun)) }
    }

    /// Nil when the registry could not be loaded (its problems were reported).
    private var typing: FileTyping? {
        mutating get {
            if typingCache == nil, let loaded = try? registry.wait() { typingCache = FileTyping(registry: loaded) }
            return typingCache
        }
    }

    mutating func finish(_ summary: InboxProcessor.Summary, inboxPath: String) {
        endProgress()
        for problem in summary.recoveryProblems { Console.error("uti: \(problem)") }
        if json {
            print(JSON.object([
                ("documents", .string(documents)),
                ("inbox", .string(inboxPath)),
                ("dryRun", .bool(dryRun)),
                ("items", .array(items)),
                ("summary", Self.json(summary)),
            ]).serialized())
            return
        }
        if summary.inbox == .absent && summary.moved + summary.failed + summary.gone == 0 {
            print("Nothing to do: there is no \(inboxPath).")
            return
        }
        print(Self.summaryLine(summary, dryRun: dryRun))
    }

    private static func type(of report: InboxProcessor.ItemReport, typing: FileTyping, documents: String) -> UTType? {
        let name: FileName
        var folder = documents
        switch report.outcome {
        case .moved(let to, _), .wouldMove(let to):
            name = to
            if case .wouldMove = report.outcome {
                guard let source = report.sourcePath else { return typing.type(forName: report.name.escaped).type }
                return (try? typing.type(forPath: source))?.type ?? typing.type(forName: source).type
            }
        default:
            return nil
        }
        guard let text = name.text else { return typing.type(forName: name.escaped).type }
        if !folder.hasSuffix("/") { folder += "/" }
        return (try? typing.type(forPath: folder + text))?.type ?? typing.type(forName: text).type
    }

    static func line(_ report: InboxProcessor.ItemReport, type: UTType?, dryRun: Bool) -> String {
        switch report.outcome {
        case .moved(let to, let copied):
            return "\(report.displayPath) -> \(to.escaped)  \(type?.identifier ?? "")" + (copied ? "  (copied across file systems)" : "")
        case .wouldMove(let to):
            return "\(report.displayPath) -> \(to.escaped)  \(type?.identifier ?? "")"
        case .waiting(.changedRecently(let age)):
            return "\(report.displayPath): left for later: changed \(Self.seconds(age)) ago"
        case .waiting(.openForWriting):
            return "\(report.displayPath): left for later: a process has it open for writing"
        case .waiting(.writerUnknown(let age)):
            return "\(report.displayPath): left for later: changed \(Self.seconds(age)) ago, and whether a process is still writing it cannot be told (not its owner); taken once unchanged for the writer window"
        case .leftInPlace:
            return "\(report.displayPath): left in place: a \(report.kind.rawValue) is never moved"
        case .gone:
            return "\(report.displayPath): gone: another process moved or removed it first"
        case .failed(let reason):
            return "\(report.displayPath): not moved: \(reason)"
        }
    }

    static func summaryLine(_ summary: InboxProcessor.Summary, dryRun: Bool) -> String {
        var parts = ["\(dryRun ? "would move" : "moved") \(summary.moved)"]
        if summary.waiting > 0 { parts.append("\(summary.waiting) left for later") }
        if summary.leftInPlace > 0 { parts.append("\(summary.leftInPlace) left in place") }
        if summary.gone > 0 { parts.append("\(summary.gone) taken by another process") }
        if summary.failed > 0 { parts.append("\(summary.failed) failed") }
        let inbox: String
        switch summary.inbox {
        case .absent: inbox = "the Inbox is gone"
        case .removed: inbox = "the Inbox was removed"
        case .kept(let reason): inbox = "the Inbox was kept: \(reason)"
        case .notAFolder: inbox = "the Inbox was not a folder and was handled as a document"
        }
        return parts.joined(separator: ", ") + "; " + inbox
    }

    static func seconds(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) s"
    }

    static func json(_ report: InboxProcessor.ItemReport, type: UTType?) -> JSON {
        var members: [(String, JSON)] = [("source", .string(report.displayPath))]
        members += name("name", report.name)
        members.append(("kind", .string(report.kind.rawValue)))
        switch report.outcome {
        case .moved(let to, let copied):
            members.append(("status", .string("moved")))
            members += name("destination", to)
            members.append(("copied", .bool(copied)))
        case .wouldMove(let to):
            members.append(("status", .string("would-move")))
            members += name("destination", to)
        case .waiting(let reason):
            members.append(("status", .string("waiting")))
            switch reason {
            case .changedRecently(let age): members.append(("reason", .string("changed \(seconds(age)) ago")))
            case .openForWriting: members.append(("reason", .string("open for writing")))
            case .writerUnknown(let age): members.append(("reason", .string("changed \(seconds(age)) ago; writers cannot be told")))
            }
        case .leftInPlace:
            members.append(("status", .string("left-in-place")))
        case .gone:
            members.append(("status", .string("gone")))
        case .failed(let reason):
            members.append(("status", .string("failed")))
            members.append(("reason", .string(reason)))
        }
        members.append(("type", .optional(type?.identifier)))
        return .object(members)
    }

    /// The name as text; a name that is not UTF-8 is written escaped, with its bytes in hex beside it.
    private static func name(_ key: String, _ name: FileName) -> [(String, JSON)] {
        if let text = name.text { return [(key, .string(text))] }
        let hex = name.bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        return [(key, .string(name.escaped)), (key + "Hex", .string(hex))]
    }

    static func json(_ summary: InboxProcessor.Summary) -> JSON {
        var members: [(String, JSON)] = [
            ("moved", .int(summary.moved)), ("waiting", .int(summary.waiting)),
            ("leftInPlace", .int(summary.leftInPlace)), ("gone", .int(summary.gone)), ("failed", .int(summary.failed)),
        ]
        switch summary.inbox {
        case .absent: members.append(("inbox", .string("absent")))
        case .removed: members.append(("inbox", .string("removed")))
        case .kept(let reason):
            members.append(("inbox", .string("kept")))
            members.append(("inboxReason", .string(reason)))
        case .notAFolder: members.append(("inbox", .string("not-a-folder")))
        }
        return .object(members)
    }
}

/// `  1234/10000 items` on standard error, redrawn at most ten times a
/// second, only when standard error is a terminal.
struct ProgressLine {
    let total: Int
    private var done = 0
    private var lastDraw = 0.0
    private var shown = false
    private let enabled = isatty(2) == 1

    init(total: Int) { self.total = total }

    mutating func advance() { done += 1 }

    mutating func draw() {
        guard enabled else { return }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let seconds = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        guard seconds - lastDraw >= 0.1 else { return }
        lastDraw = seconds
        shown = true
        Console.raw("\r\(done)/\(total) items")
    }

    mutating func clear() {
        guard shown else { return }
        shown = false
        Console.raw("\r\u{1B}[K")
    }
}
