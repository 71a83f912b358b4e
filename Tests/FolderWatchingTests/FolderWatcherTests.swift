import FolderWatching
import Foundation
import TestSupport
import Testing
import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

/// The library's watch, driven as a program would: an asynchronous sequence
/// read by a task, and the blocking run stopped from another thread.
@Suite struct FolderWatcherTests {
    let folder = TemporaryFolder("uti-folder-watch")
    let typing = FileTyping(registry: .bundled)

    func watcher(recursive: Bool = false, settle: Double = 0.2) -> FolderWatcher {
        var options = FolderWatcher.Options()
        options.recursive = recursive
        options.settle = SettlePolicy(interval: settle)
        return FolderWatcher(folders: [folder.path], options: options, typing: typing)
    }

    /// Runs `body` with the watch's events, once the watch is ready; the
    /// watch stops when `body` returns. A watchdog ends the watch after
    /// `hangLimit` (the event sequence then ends), so a hung test fails
    /// instead of hanging; nothing is judged by the time taken.
    func watching<T: Sendable>(
        _ watcher: FolderWatcher, _ body: @escaping @Sendable (EventReader) async throws -> T
    ) async throws -> T {
        let task = Task {
            let reader = EventReader(watcher.reports())
            try await reader.waitUntilReady()
            return try await body(reader)
        }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(hangLimit))
            task.cancel()
        }
        defer { watchdog.cancel() }
        return try await task.value
    }

    @Test func eachKindIsReportedTypedInOrder() async throws {
        let root = folder.path
        let folder = folder
        // Each change is made once the one before was reported.
        let events = try await watching(watcher()) { reader in
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
            try folder.write("a.png", bytes: png + [UInt8](repeating: 0, count: 17))
            try await reader.wait(for: "added a.png") { $0.count == 1 }
            try folder.write("a.png", bytes: png + [UInt8](repeating: 1, count: 40))
            try await reader.wait(for: "changed a.png") { $0.count == 2 }
            rename(root + "/a.png", root + "/b.txt")
            try await reader.wait(for: "renamed a.png") { $0.count == 3 }
            unlink(root + "/b.txt")
            try await reader.wait(for: "removed b.txt") { $0.count == 4 }
            return reader.events
        }
        #expect(events.map(\.change) == [.added, .changed, .renamed, .removed])
        #expect(events.map(\.displayPath) == [root + "/a.png", root + "/a.png", root + "/b.txt", root + "/b.txt"])
        guard events.count == 4 else { return }
        #expect(events[2].displayOldPath == root + "/a.png")
        // b.txt holds a PNG: without a MIME database, the built-in signatures type it by content.
        #expect(events.map { $0.type?.type.identifier } == ["public.png", "public.png", "public.png", nil])
        #expect(events.allSatisfy { $0.kind == .file && !$0.isInitial })
    }

    /// A folder moved within the tree is one rename; its items move with it,
    /// and a file still settling inside it is reported under its new path.
    @Test func aFolderRenamedWhileAFileInItSettlesKeepsThatFile() async throws {
        try folder.makeFolder("old")
        let root = folder.path
        let folder = folder
        let events = try await watching(watcher(recursive: true, settle: 0.5)) { reader in
            try folder.write("old/late.txt", "x")
            // Held open for writing, late.txt cannot settle until it is closed, however slow this machine.
            var writer = open(root + "/old/late.txt", O_WRONLY | O_APPEND | O_CLOEXEC)
            // Closed once: a second close would close whatever another test
            // of this process opened under the same number meanwhile.
            defer { if writer >= 0 { close(writer) } }
            // A file made after it is reported: the watch has seen late.txt, which waits.
            try folder.write("old/marker", "m")
            try await reader.wait(for: "added old/marker") { $0.count == 1 }
            rename(root + "/old", root + "/new")
            try await reader.wait(for: "renamed old") { $0.count == 2 }
            close(writer)
            writer = -1
            try await reader.wait(for: "added new/late.txt") { $0.count == 3 }
            return reader.events
        }
        #expect(events.map(\.change) == [.added, .renamed, .added])
        #expect(events.map(\.displayPath) == [root + "/old/marker", root + "/new", root + "/new/late.txt"])
    }

    /// A folder made inside a new folder that is renamed at once (one batch
    /// of events names it under the old path) is found under the new path,
    /// and watched.
    @Test func aFolderMadeInAFolderRenamedAtOnceIsFoundAndWatched() async throws {
        let root = folder.path
        let folder = folder
        let events = try await watching(watcher(recursive: true)) { reader in
            // The pauses vary what the watch has seen when; the checks hold whichever it has.
            mkdir(root + "/n", 0o755)
            usleep(50_000)
            mkdir(root + "/n/a", 0o755)
            rename(root + "/n", root + "/m")
            usleep(500_000)
            try folder.write("m/a/later.txt", "x")
            try await reader.wait(for: "added m/a/later.txt") {
                $0.contains { $0.change == .added && $0.displayPath == root + "/m/a/later.txt" }
            }
            // Any wrong event about the tree (a removal, a repeat) comes before the marker's.
            try await reader.waitForMarker(root + "/marker")
            return reader.events.filter { $0.displayPath != root + "/marker" }
        }
        // `n/a` may be seen before the rename or only after it, where it went: either way the tree the
        // events describe is the tree on disk, and the file made in it later is reported.
        #expect(!events.contains { $0.change == .removed })
        #expect(Self.tree(of: events) == [root + "/m", root + "/m/a", root + "/m/a/later.txt"])
    }

    /// The paths the events describe: added ones, moved (with what is
    /// inside) by renames, less removed ones.
    static func tree(of events: [FolderEvent]) -> Set<String> {
        var tree = Set<String>()
        for event in events {
            switch event.change {
            case .added: #expect(tree.insert(event.displayPath).inserted, "added twice: \(event.displayPath)")
            case .removed: tree.remove(event.displayPath)
            case .renamed:
                let old = event.displayOldPath ?? ""
                let moved = tree.filter { $0 == old || $0.hasPrefix(old + "/") }
                tree.subtract(moved)
                tree.formUnion(moved.map { event.displayPath + $0.dropFirst(old.count) })
            case .changed: break
            }
        }
        return tree
    }

    /// A folder made, filled and renamed at once, twenty times: whatever
    /// order the events come in, each item is reported under its new path,
    /// and nothing is reported removed.
    @Test func foldersMadeFilledAndRenamedAtOnceAreEachFound() async throws {
        let root = folder.path
        let folder = folder
        let events = try await watching(watcher(recursive: true)) { reader in
            for n in 0..<20 {
                mkdir(root + "/q\(n)", 0o755)
                mkdir(root + "/q\(n)/inner", 0o755)
                try folder.write("q\(n)/inner/f.txt", "x")
                rename(root + "/q\(n)", root + "/m\(n)")
            }
            try await reader.wait(for: "the 20 files") { events in
                events.filter { $0.change == .added && $0.displayPath.hasSuffix("/inner/f.txt") }.count == 20
            }
            try await reader.waitForMarker(root + "/marker")
            return reader.events.filter { $0.displayPath != root + "/marker" }
        }
        #expect(!events.contains { $0.change == .removed })
        // The tree the events describe (a rename moves what is inside) is the tree on disk.
        let tree = Self.tree(of: events)
        var expected = Set<String>()
        for n in 0..<20 { expected.formUnion([root + "/m\(n)", root + "/m\(n)/inner", root + "/m\(n)/inner/f.txt"]) }
        #expect(tree == expected)
    }

    /// Events that cannot be delivered while the reader is busy overflow the
    /// kernel's queue: the watch rescans, and every file is reported once.
    @Test func anOverflowWhileTheReaderIsBusyIsRescanned() throws {
        try folder.makeFolder("in")
        let stop = try WatchStop()
        let ready = DispatchSemaphore(value: 0)
        let busy = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        final class Log: @unchecked Sendable {
            private let lock = NSLock()
            private var reports: [FolderWatchReport] = []
            func append(_ report: FolderWatchReport) { lock.withLock { reports.append(report) } }
            var all: [FolderWatchReport] { lock.withLock { reports } }
            var added: [String] {
                all.compactMap { report -> String? in
                    if case .event(let event) = report, event.change == .added { return event.displayPath }
                    return nil
                }
            }
        }
        let log = Log()
        let failure = Log()
        let watcher = watcher(recursive: true)
        Thread.detachNewThread {
            do {
                try watcher.run(until: stop) { report in
                    log.append(report)
                    // Blocks the watch at its start until the files are made.
                    if case .ready = report {
                        ready.signal()
                        busy.wait()
                    }
                }
            } catch {
                // A watch that cannot begin says why, at once.
                failure.append(.rescanned(root: "", reason: "\(error)"))
                Issue.record("the watch failed: \(error)")
                ready.signal()
            }
            done.signal()
        }
        let limit =
            Int(
                (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 16384
        // The files are made once the watch has begun (its folders watched), while it is held.
        #expect(ready.wait(timeout: .now() + hangLimit) == .success, "the watch never began")
        guard failure.all.isEmpty else {
            busy.signal()
            return
        }
        for n in 0..<(limit + 100) { close(open(folder.path("in/f\(n)"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)) }
        busy.signal()
        let marker = folder.path("in/marker")
        var end = Date().addingTimeInterval(hangLimit)
        while log.added.count < limit + 100 && Date() < end { usleep(100_000) }
        // Any repeat of a file comes before the marker, made after them all.
        close(open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644))
        end = Date().addingTimeInterval(hangLimit)
        while !log.added.contains(marker) && Date() < end { usleep(100_000) }
        #expect(log.added.contains(marker), "hung: the marker was never reported")
        stop.stop()
        #expect(done.wait(timeout: .now() + hangLimit) == .success, "the watch did not stop")
        let added = log.added.filter { $0 != marker }
        #expect(added.count == limit + 100)
        #expect(Set(added).count == limit + 100)
        #expect(log.all.contains { if case .rescanned = $0 { true } else { false } })
    }

    @Test func aMissingFolderEndsTheSequenceWithItsFailure() async throws {
        let watcher = FolderWatcher(folders: [folder.path("nowhere")], typing: typing)
        await #expect(throws: FolderWatcher.Failure.self) {
            for try await _ in watcher.events() {}
        }
    }
}

/// How long a test waits for what must happen before it takes the watch for
/// hung: far beyond the slowest run seen on a busy machine.
let hangLimit: Double = 300

/// The events of a watch, read one at a time by one task.
final class EventReader: @unchecked Sendable {
    private var iterator: AsyncThrowingStream<FolderWatchReport, any Error>.AsyncIterator
    /// The events read so far, in order.
    private(set) var events: [FolderEvent] = []

    init(_ reports: AsyncThrowingStream<FolderWatchReport, any Error>) { iterator = reports.makeAsyncIterator() }

    /// Reads until the watch says it is ready.
    func waitUntilReady() async throws {
        while let report = try await iterator.next() {
            if case .ready = report { return }
        }
        Issue.record("the watch ended before it was ready")
    }

    /// Reads events until `condition` holds of them all; records a failure
    /// naming `what` when the watch ends first (the watchdog ended it).
    func wait(
        for what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: ([FolderEvent]) -> Bool
    ) async throws {
        while !condition(events) {
            guard let report = try await iterator.next() else {
                Issue.record("hung: \(what) never came; events: \(events)", sourceLocation: sourceLocation)
                return
            }
            if case .event(let event) = report { events.append(event) }
        }
    }

    /// Makes the file `path` and reads until it is reported: everything
    /// done before it was reported first.
    func waitForMarker(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        close(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644))
        try await wait(for: "the marker \(path)", sourceLocation: sourceLocation) {
            $0.contains { $0.displayPath == path }
        }
    }
}
