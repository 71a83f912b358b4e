import FolderWatching
import Foundation
import TestSupport
import Testing
import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

/// What a watch leaves out (`FolderWatcher.Options.ignore`): never
/// reported, and a folder left out never watched. The watches are counted
/// through the engine's test hook, when nothing else can change them.
@Suite struct IgnoredPathTests {
    let folder = TemporaryFolder("uti-watch-ignore")
    let typing = FileTyping(registry: .bundled)

    /// The number of inotify watches the engine held before its last report.
    final class WatchCount: @unchecked Sendable {
        private let lock = NSLock()
        private var value = -1
        func set(_ count: Int) { lock.withLock { value = count } }
        var last: Int { lock.withLock { value } }
    }

    func watcher(ignore: [IgnorePattern]? = nil, recursive: Bool = true, count: WatchCount) -> FolderWatcher {
        var options = FolderWatcher.Options()
        options.recursive = recursive
        options.settle = SettlePolicy(interval: 0.2)
        if let ignore { options.ignore = ignore }
        options.watchCountBeforeEachReport = { count.set($0) }
        return FolderWatcher(folders: [folder.path], options: options, typing: typing)
    }

    /// Runs `body` once the watch is ready; a watchdog ends a hung watch.
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

    /// A tree with version control's folders at two depths and a build folder.
    func makeTree() throws {
        for path in [".git/objects/aa", ".git/refs", "src/.git", "src/deep", "build/obj", ".hg"] {
            try folder.makeFolder(path)
        }
        try folder.write(".git/HEAD", "ref: refs/heads/main\n")
        try folder.write("src/main.c", "int main(void) { return 0; }\n")
    }

    @Test func foldersLeftOutAreNeverWatchedAndTheirChangesNeverReported() async throws {
        try makeTree()
        let root = folder.path
        let folder = folder
        let count = WatchCount()
        let patterns = IgnorePattern.defaults + [try IgnorePattern("build/")]
        let (atReady, events, atEnd) = try await watching(watcher(ignore: patterns, count: count)) { reader in
            // The folder, src and src/deep: no .git, .hg or build, at any depth.
            let atReady = count.last
            try folder.write(".git/objects/aa/object", "x")
            try folder.write("src/.git/index", "x")
            try folder.write("build/obj/a.o", "x")
            try folder.write("src/.main.c.swp", "x")
            try folder.makeFolder(".svn")
            try folder.write("src/deep/kept.txt", "x")
            try await reader.wait(for: "added src/deep/kept.txt") { !$0.isEmpty }
            // Made once kept.txt was reported, the marker settles after anything made before kept.txt: a line
            // wrongly made of the files above would come before the marker's.
            try await reader.waitForMarker(root + "/marker")
            return (atReady, reader.events, count.last)
        }
        #expect(atReady == 3)
        #expect(atEnd == 3)
        #expect(events.map(\.displayPath) == [root + "/src/deep/kept.txt", root + "/marker"])
    }

    @Test func withoutPatternsEverythingIsWatchedAndReported() async throws {
        try makeTree()
        let root = folder.path
        let folder = folder
        let count = WatchCount()
        let (atReady, events) = try await watching(watcher(ignore: [], count: count)) { reader in
            let atReady = count.last
            try folder.write(".git/objects/aa/object", "x")
            try folder.write("src/.main.c.swp", "x")
            try await reader.wait(for: "both files") { events in
                Set(events.map(\.displayPath)).isSuperset(of: [
                    root + "/.git/objects/aa/object", root + "/src/.main.c.swp",
                ])
            }
            return (atReady, reader.events)
        }
        // The folder, .git, .git/objects, .git/objects/aa, .git/refs, src, src/.git, src/deep, build, build/obj, .hg.
        #expect(atReady == 11)
        #expect(events.count == 2)
    }

    /// Renamed to a name left out is gone from view (removed); renamed from
    /// one, it arrives (added). A folder renamed to a name left out takes
    /// its watch and its items with it.
    @Test func renamesAcrossAPatternAreDeparturesAndArrivals() async throws {
        try folder.makeFolder("docs/inner")
        try folder.write("docs/inner/a.txt", "x")
        try folder.write("notes.txt", "x")
        let root = folder.path
        let count = WatchCount()
        let patterns = [try IgnorePattern("*.swp"), try IgnorePattern("build/")]
        let (events, before, after) = try await watching(watcher(ignore: patterns, count: count)) { reader in
            let before = count.last
            rename(root + "/notes.txt", root + "/.notes.txt.swp")
            try await reader.wait(for: "removed notes.txt") { $0.count == 1 }
            rename(root + "/.notes.txt.swp", root + "/plan.txt")
            try await reader.wait(for: "added plan.txt") { $0.count == 2 }
            rename(root + "/docs", root + "/build")
            try await reader.wait(for: "removed docs") { $0.contains { $0.displayPath == root + "/docs" } }
            try await reader.waitForMarker(root + "/marker")
            return (reader.events, before, count.last)
        }
        #expect(
            events.map { "\($0.change) \($0.displayPath)" } == [
                "removed \(root)/notes.txt", "added \(root)/plan.txt", "removed \(root)/docs/inner/a.txt",
                "removed \(root)/docs/inner", "removed \(root)/docs", "added \(root)/marker",
            ])
        // The folder, docs and docs/inner; then the folder alone.
        #expect(before == 3)
        #expect(after == 1)
    }

    /// A pattern with a `/` is matched from the watched folder; one ending
    /// with `/` leaves out folders only.
    @Test func anchoredAndFolderOnlyPatterns() async throws {
        try folder.makeFolder("a/cache")
        try folder.makeFolder("cache")
        let root = folder.path
        let folder = folder
        let count = WatchCount()
        let patterns = [try IgnorePattern("/cache/"), try IgnorePattern("logs/")]
        let events = try await watching(watcher(ignore: patterns, count: count)) { reader in
            try folder.write("cache/x", "x")
            try folder.makeFolder("logs")
            try folder.write("logs/w", "w")
            try folder.write("a/cache/y", "y")
            // A file named like a folder-only pattern is reported.
            try folder.write("a/logs", "z")
            try await reader.wait(for: "a/cache/y and a/logs") { $0.count >= 2 }
            try await reader.waitForMarker(root + "/marker")
            return reader.events
        }
        #expect(
            Set(events.map(\.displayPath)) == [root + "/a/cache/y", root + "/a/logs", root + "/marker"])
        #expect(events.count == 3)
    }
}
