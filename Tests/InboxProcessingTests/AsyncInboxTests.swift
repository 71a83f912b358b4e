import Foundation
import Glibc
import Testing

@testable import InboxProcessing

/// The inbox from a task: one pass or a watch as an asynchronous sequence,
/// and a watch stopped from code rather than by a signal.
@Suite struct AsyncInboxTests {
    static let settled: InboxProcessor.Options = {
        var options = InboxProcessor.Options()
        options.settle = SettlePolicy(interval: 0, checkWriters: false)
        return options
    }()

    @Test func onePassReportsEachItemThenItsSummary() async throws {
        let tree = Tree()
        tree.write(tree.inbox, "a.txt", "a")
        tree.write(tree.inbox, "b.txt", "b")
        var moved: [String] = []
        var summary: InboxProcessor.Summary?
        let reports = InboxProcessor.reports(documents: tree.documents, options: Self.settled) { _ in true }
        for try await report in reports {
            switch report {
            case .event(.item(let item)): moved.append(item.name.description)
            case .passFinished(let total): summary = total
            default: break
            }
        }
        #expect(moved.sorted() == ["a.txt", "b.txt"])
        #expect(summary?.moved == 2)
        #expect(tree.read(tree.documents, "a.txt") == "a")
    }

    /// A watch read by a detached task reports each arrival; cancelling the
    /// task ends the sequence (after the pass in progress), and the thread
    /// stops: nothing moves the next arrival.
    @Test func aWatchReadByATaskStopsWhenTheTaskIsCancelled() async throws {
        let tree = Tree()
        let passes = Counter()
        let documents = tree.documents, options = Self.settled
        let task = Task.detached {
            var seen: [String] = []
            for try await report in InboxWatcher.reports(
                documents: documents, options: options, isKnownExtension: { _ in true })
            {
                if case .event(.item(let item)) = report { seen.append(item.name.description) }
                if case .passFinished = report { passes.add() }
            }
            return seen
        }
        try await waitUntil("the first pass") { passes.value >= 1 }  // the first pass (an absent Inbox) is done
        // The Inbox arrives with its file in one rename: a pass between
        // making an empty Inbox and writing into it would remove the folder.
        let staged = tree.root + "/Inbox"
        try FileManager.default.createDirectory(atPath: staged, withIntermediateDirectories: true)
        tree.write(staged, "first.txt", "1")
        #expect(rename(staged, tree.inbox) == 0, "rename: \(errno)")
        try await waitUntil("the move of first.txt") { tree.exists(tree.documents + "/first.txt") }
        task.cancel()
        let seen = try await task.value
        #expect(seen == ["first.txt"])
        // Stopped: a later arrival stays in the Inbox.
        try FileManager.default.createDirectory(atPath: tree.inbox, withIntermediateDirectories: true)
        tree.write(tree.inbox, "later.txt", "2")
        // (A watch still running would have moved it by now; a slow machine only makes this check weaker.)
        try await Task.sleep(nanoseconds: 400_000_000)
        #expect(tree.exists(tree.inbox + "/later.txt") && !tree.exists(tree.documents + "/later.txt"))
    }

    @Test func runUntilAStopReturnsAfterThePassInProgress() throws {
        let tree = Tree()
        tree.write(tree.inbox, "a.txt", "a")
        let stop = try InboxWatchStop()
        #expect(!stop.isStopped)
        let watcher = InboxWatcher(
            processor: InboxProcessor(documents: tree.documents, options: Self.settled) { _ in true })
        var passes = 0
        try watcher.run(until: stop) { _ in
        } finished: { _ in
            passes += 1
            stop.stop()  // as another thread would
        }
        #expect(passes == 1 && stop.isStopped)
        #expect(tree.read(tree.documents, "a.txt") == "a")
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}

/// Waits until `condition` holds. The limit (6,000 looks 50 ms apart, at
/// least 300 s) only stops a hung test; nothing is judged by the time taken.
private func waitUntil(
    _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async throws {
    for _ in 0..<6_000 {
        if condition() { return }
        try await Task.sleep(nanoseconds: 50_000_000)
    }
    Issue.record("hung: \(what) never came", sourceLocation: sourceLocation)
}

/// A failure keeps the system call's error, not only its text.
@Suite struct ItemFailureTests {
    @Test func aSystemCallsFailureKeepsItsErrno() {
        let failure = InboxProcessor.ItemFailure(
            InboxProcessor.SystemError(EACCES, call: "renameat2", path: "a.txt"), context: "cannot move")
        #expect(failure.systemError?.code == EACCES && failure.systemError?.call == "renameat2")
        #expect(failure.message == "cannot move: a.txt: renameat2: Permission denied")
        let words: InboxProcessor.ItemFailure = "copied as \("a-1.txt"), but the original was kept"
        #expect(words.systemError == nil && words.description == "copied as a-1.txt, but the original was kept")
    }
}
