import Dispatch
import InboxProcessing
import SystemBase
import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

/// Prints an inbox run: one line per item, then a summary; JSON instead
/// when asked; a progress line on a terminal during long runs. Used only on
/// the thread of the run's `OrderedRelay`, one call at a time.
final class InboxPrinter: @unchecked Sendable {
    private let registry: BackgroundRegistry
    private var typingCache: FileTyping?
    let documents: String
    let json: Bool
    let dryRun: Bool
    /// One JSON object per line as items happen (watching), not one document.
    let streaming: Bool
    private var items: [JSON] = []
    private var progress: ProgressLine?
    /// Documents as the items of this pass are typed in it (`documentsFolder`).
    private var openedDocuments: FolderDescriptor??

    init(registry: BackgroundRegistry, documents: String, json: Bool, dryRun: Bool, streaming: Bool) {
        self.registry = registry
        self.documents = documents
        self.json = json
        self.dryRun = dryRun
        self.streaming = streaming
    }

    func handle(_ event: InboxProcessor.Event) {
        switch event {
        case .started(let count):
            if !streaming && count >= 200 { progress = ProgressLine(total: count) }
        case .item(let report):
            progress?.advance()
            // A routed item was typed before it moved: by that type.
            let type = report.type ?? typing.flatMap { typeOf(report, typing: $0)?.identifier }
            if json {
                let object = Self.json(report, type: type)
                if streaming { print(object.serialized(indent: nil)) } else { items.append(object) }
                return
            }
            progress?.clear()
            if case .failed(let reason) = report.outcome {
                Console.error(
                    "uti: \(keepingBackslashes: report.displayPath): not moved: \(keepingBackslashes: reason.message)"
                        as TerminalText)
            } else {
                TerminalText.print(Self.line(report, type: type, dryRun: dryRun))
            }
            progress?.draw()
        }
    }

    /// Sends what was printed on (every output stream): standard output is
    /// block-buffered on a pipe.
    func flush() { fflush(nil) }

    func endProgress() {
        progress?.clear()
        progress = nil
    }

    func finishPass(_ summary: InboxProcessor.Summary) {
        endProgress()
        // The next pass opens Documents anew, as its processor does.
        openedDocuments = nil
        for problem in summary.recoveryProblems { Console.error("uti: \(problem)") }
        if json { return }
        let total = summary.moved + summary.waiting + summary.leftInPlace + summary.gone + summary.failed
        if total > 0 { TerminalText.print(Self.summaryLine(summary, dryRun: dryRun)) }
    }

    /// Nil when the registry could not be loaded (its problems were reported).
    private var typing: FileTyping? {
        if typingCache == nil, let loaded = try? registry.waitOrExit() { typingCache = FileTyping(registry: loaded) }
        return typingCache
    }

    func finish(_ summary: InboxProcessor.Summary, inboxPath: String) {
        endProgress()
        for problem in summary.recoveryProblems { Console.error("uti: \(problem)") }
        // Each step names its items escaped.
        if !json { for step in summary.recoveryPlan { TerminalText.print("\(keepingBackslashes: step)") } }
        if json {
            print(
                JSON.object([
                    ("documents", .string(documents)),
                    ("inbox", .string(inboxPath)),
                    ("dryRun", .bool(dryRun)),
                    ("items", .array(items)),
                    ("summary", Self.json(summary)),
                ]).serialized())
            return
        }
        if summary.inbox == .absent && summary.moved + summary.failed + summary.gone == 0 {
            TerminalText.print("Nothing to do: there is no \(inboxPath).")
            return
        }
        TerminalText.print(Self.summaryLine(summary, dryRun: dryRun))
    }

    /// The type of an item the processor did not type (it types items only
    /// to route them): a moved item at its new place, reached through
    /// Documents opened once; an item a dry run would move, where it is.
    /// Typed here, off the thread that moves items, so that moves never wait.
    private func typeOf(_ report: InboxProcessor.ItemReport, typing: FileTyping) -> UniformType? {
        switch report.outcome {
        case .wouldMove:
            guard let source = report.sourcePath else { return typing.type(forName: report.name.escaped).type }
            return (try? typing.type(forPath: source))?.type ?? typing.type(forName: source).type
        case .moved(let to, _):
            guard let text = to.text else { return typing.type(forName: to.escaped).type }
            // Inside Documents: the folder it was routed to (when its name is text), then its name.
            var inside: [UInt8] = []
            if let routed = report.folder?.bytes, String(validating: routed, as: UTF8.self) != nil {
                inside = routed + [UInt8(ascii: "/")]
            }
            inside += to.bytes
            if let folder = documentsFolder {
                return (try? typing.type(ofEntry: inside, inFolder: folder.fd))?.type ?? typing.type(forName: text).type
            }
            let path = documents.hasSuffix("/") ? documents : documents + "/"
            return (try? typing.type(forPath: path.utf8 + inside))?.type ?? typing.type(forName: text).type
        default:
            return nil
        }
    }

    /// Documents, opened at the first item typed in a pass; nil when it cannot be opened.
    private var documentsFolder: FolderDescriptor? {
        if openedDocuments == nil { openedDocuments = .some(try? FolderDescriptor.open(documents)) }
        return openedDocuments ?? nil
    }

    /// The line of an item; its names come escaped (`FileName.escaped`).
    static func line(_ report: InboxProcessor.ItemReport, type: String?, dryRun: Bool) -> TerminalText {
        let path: TerminalText = "\(keepingBackslashes: report.displayPath)"
        // The folder an item was routed to comes before its name (`Pictures/a.png`).
        let folder = report.folder.map { "\($0)/" } ?? ""
        // An item not routed by its name says why.
        let notRouted: TerminalText =
            report.notRoutedByName.map { "  (not routed by its name: \(keepingBackslashes: $0))" } ?? ""
        switch report.outcome {
        case .moved(let to, let copied):
            return "\(path) -> \(keepingBackslashes: folder + to.escaped)  \(type ?? "")"
                + (copied ? "  (copied across file systems)" : "") + notRouted
        case .wouldMove(let to):
            return "\(path) -> \(keepingBackslashes: folder + to.escaped)  \(type ?? "")" + notRouted
        case .waiting(.changedRecently(let age)):
            return "\(path): left for later: changed \(Self.seconds(age)) ago"
        case .waiting(.openForWriting):
            return "\(path): left for later: a process has it open for writing"
        case .waiting(.writerUnknown(let age)):
            return
                "\(path): left for later: changed \(Self.seconds(age)) ago, and whether a process is still writing it cannot be told (not its owner); taken once unchanged for the writer window"
        case .waiting(.linkTargetInInbox(let item)):
            return
                "\(path): left for later: it points at \(keepingBackslashes: item.escaped), which stays in the Inbox for now"
        case .leftInPlace:
            if let pattern = report.ignoredBy {
                return
                    "\(path): left in place: its name matches \(keepingBackslashes: pattern.description), which is never moved"
            }
            return "\(path): left in place: a \(report.kind.rawValue) is never moved"
        case .gone:
            return "\(path): gone: another process moved or removed it first"
        case .failed(let reason):
            return "\(path): not moved: \(keepingBackslashes: reason.message)"
        }
    }

    static func summaryLine(_ summary: InboxProcessor.Summary, dryRun: Bool) -> TerminalText {
        var parts: [TerminalText] = ["\(dryRun ? "would move" : "moved") \(summary.moved)"]
        if summary.waiting > 0 { parts.append("\(summary.waiting) left for later") }
        if summary.leftInPlace > 0 { parts.append("\(summary.leftInPlace) left in place") }
        if summary.gone > 0 { parts.append("\(summary.gone) taken by another process") }
        if summary.failed > 0 { parts.append("\(summary.failed) failed") }
        let inbox: TerminalText
        switch summary.inbox {
        case .absent: inbox = "the Inbox is gone"
        case .removed: inbox = "the Inbox was removed"
        case .kept(let reason): inbox = "the Inbox was kept: \(keepingBackslashes: reason)"
        case .notAFolder: inbox = "the Inbox was not a folder and was handled as a document"
        }
        return parts.joined(separator: ", ") + "; " + inbox
    }

    static func seconds(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) s"
    }

    static func json(_ report: InboxProcessor.ItemReport, type: String?) -> JSON {
        var members: [(String, JSON)] = [("source", .string(report.displayPath))]
        members += name("name", report.name)
        members.append(("kind", .string(report.kind.rawValue)))
        switch report.outcome {
        case .moved(let to, let copied):
            members.append(("status", .string("moved")))
            members += name("destination", to)
            members += folder(report.folder)
            members.append(("copied", .bool(copied)))
        case .wouldMove(let to):
            members.append(("status", .string("would-move")))
            members += name("destination", to)
            members += folder(report.folder)
        case .waiting(let reason):
            members.append(("status", .string("waiting")))
            switch reason {
            case .changedRecently(let age): members.append(("reason", .string("changed \(seconds(age)) ago")))
            case .openForWriting: members.append(("reason", .string("open for writing")))
            case .writerUnknown(let age):
                members.append(("reason", .string("changed \(seconds(age)) ago; writers cannot be told")))
            case .linkTargetInInbox(let item):
                members.append(("reason", .string("points at \(item.escaped), which stays in the Inbox")))
            }
        case .leftInPlace:
            members.append(("status", .string("left-in-place")))
            if let pattern = report.ignoredBy { members.append(("ignoredBy", .string(pattern.description))) }
        case .gone:
            members.append(("status", .string("gone")))
        case .failed(let reason):
            members.append(("status", .string("failed")))
            members.append(("reason", .string(reason.message)))
            // Where a system call failed: which, on what, and its errno.
            if let error = reason.systemError {
                members.append(("errno", .int(Int(error.code))))
                members.append(("call", .optional(error.call)))
            }
        }
        members.append(("type", .optional(type)))
        if let reason = report.notRoutedByName { members.append(("notRoutedByName", .string(reason))) }
        return .object(members)
    }

    /// The folder of DOCUMENTS an item went to (null: DOCUMENTS itself),
    /// with `folderHex` when it is not UTF-8.
    private static func folder(_ folder: RouteFolder?) -> [(String, JSON)] {
        guard let folder else { return [("folder", .null)] }
        return JSON.path("folder", bytes: folder.bytes)
    }

    /// The name as text; a name that is not UTF-8 is written escaped, with its bytes in hex beside it.
    private static func name(_ key: String, _ name: FileName) -> [(String, JSON)] {
        JSON.path(key, bytes: name.bytes)
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
        if !summary.recoveryPlan.isEmpty { members.append(("recoveryPlan", JSON.strings(summary.recoveryPlan))) }
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
