import FolderWatching
import Foundation
import InboxProcessing
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
    let typing = FileTyping(registry: try! RegistryLoader.load(includeSystem: false))

    func watcher(recursive: Bool = false, settle: Double = 0.2) -> FolderWatcher {
        var options = FolderWatcher.Options()
        options.recursive = recursive
        options.settle = SettlePolicy(interval: settle)
        return FolderWatcher(folders: [folder.path], options: options, typing: typing)
    }

    /// Reads reports until `count` events came, then cancels the task.
    func events(
        of watcher: FolderWatcher, count: Int, after start: @escaping @Sendable () throws -> Void
    ) async throws -> [FolderEvent] {
        let task = Task {
            var events: [FolderEvent] = []
            for try await report in watcher.reports() {
                switch report {
                case .ready: try start()
                case .event(let event): events.append(event)
                case .rescanned, .notWatched: break
                }
                if events.count == count { break }
            }
            return events
        }
        let timeout = Task {
            try await Task.sleep(for: .seconds(30))
            task.cancel()
        }
        defer { timeout.cancel() }
        return try await task.value
    }

    @Test func eachKindIsReportedTypedInOrder() async throws {
        let root = folder.path
        let events = try await events(of: watcher(), count: 4) {
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
            try folder.write("a.png", bytes: png + [UInt8](repeating: 0, count: 17))
            usleep(600_000)
            try folder.write("a.png", bytes: png + [UInt8](repeating: 1, count: 40))
            usleep(600_000)
            rename(root + "/a.png", root + "/b.txt")
            usleep(100_000)
            unlink(root + "/b.txt")
        }
        #expect(events.map(\.change) == [.added, .changed, .renamed, .removed])
        #expect(events.map(\.displayPath) == [root + "/a.png", root + "/a.png", root + "/b.txt", root + "/b.txt"])
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
        let events = try await events(of: watcher(recursive: true, settle: 0.5), count: 2) {
            try folder.write("old/late.txt", "x")
            usleep(100_000)
            rename(root + "/old", root + "/new")
        }
        #expect(events.map(\.change) == [.renamed, .added])
        #expect(events.map(\.displayPath) == [root + "/new", root + "/new/late.txt"])
    }

    /// A folder made inside a new folder that is renamed at once (one batch
    /// of events names it under the old path) is found under the new path,
    /// and watched.
    @Test func aFolderMadeInAFolderRenamedAtOnceIsFoundAndWatched() async throws {
        let root = folder.path
        let events = try await events(of: watcher(recursive: true), count: 4) {
            mkdir(root + "/n", 0o755)
            usleep(50_000)
            mkdir(root + "/n/a", 0o755)
            rename(root + "/n", root + "/m")
            usleep(500_000)
            try folder.write("m/a/later.txt", "x")
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
        let watcher = watcher(recursive: true)
        let task = Task {
            var events: [FolderEvent] = []
            for try await report in watcher.reports() {
                if case .ready = report {
                    for n in 0..<20 {
                        mkdir(root + "/q\(n)", 0o755)
                        mkdir(root + "/q\(n)/inner", 0o755)
                        try folder.write("q\(n)/inner/f.txt", "x")
                        rename(root + "/q\(n)", root + "/m\(n)")
                    }
                }
                if case .event(let event) = report { events.append(event) }
                let files = events.filter { $0.change == .added && $0.displayPath.hasSuffix("/inner/f.txt") }
                if files.count == 20 { break }
            }
            return events
        }
        let timeout = Task {
            try await Task.sleep(for: .seconds(30))
            task.cancel()
        }
        defer { timeout.cancel() }
        let events = try await task.value
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
        let stop = try InboxWatchStop()
        let busy = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        final class Log: @unchecked Sendable {
            var reports: [FolderWatchReport] = []
        }
        let log = Log()
        let watcher = watcher(recursive: true)
        Thread.detachNewThread {
            try? watcher.run(until: stop) { report in
                log.reports.append(report)
                // Blocks the watch at its start until the files are made.
                if case .ready = report { busy.wait() }
            }
            done.signal()
        }
        let limit =
            Int(
                (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 16384
        usleep(300_000)
        for n in 0..<(limit + 100) { close(open(folder.path("in/f\(n)"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)) }
        busy.signal()
        let end = Date().addingTimeInterval(60)
        while Date() < end {
            usleep(100_000)
            let added = log.reports.count { if case .event(let e) = $0 { e.change == .added } else { false } }
            if added >= limit + 100 { break }
        }
        usleep(300_000)
        stop.stop()
        #expect(done.wait(timeout: .now() + 10) == .success)
        let added = log.reports.compactMap { report -> String? in
            if case .event(let event) = report, event.change == .added { return event.displayPath }
            return nil
        }
        #expect(added.count == limit + 100)
        #expect(Set(added).count == limit + 100)
        #expect(log.reports.contains { if case .rescanned = $0 { true } else { false } })
    }

    @Test func aMissingFolderEndsTheSequenceWithItsFailure() async throws {
        let watcher = FolderWatcher(folders: [folder.path("nowhere")], typing: typing)
        await #expect(throws: FolderWatcher.Failure.self) {
            for try await _ in watcher.events() {}
        }
    }
}
