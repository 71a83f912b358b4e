import FolderWatching
import Foundation
import TestSupport
import Testing
import UniformTypes

/// The code of each way a watch cannot begin, as `FolderWatcher.run`
/// reports it.
@Suite struct FolderWatcherFailureCodeTests {
    let folder = TemporaryFolder("uti-watch-codes")
    let typing = FileTyping(registry: try! RegistryLoader.load(includeSystem: false))

    /// The failure a watch of `paths` begins with. The stop is asked for
    /// first, so a watch that begins after all returns at once.
    func failure(_ paths: [String], recursive: Bool = false) throws -> FolderWatcher.Failure? {
        var options = FolderWatcher.Options()
        options.recursive = recursive
        let stop = try WatchStop()
        stop.stop()
        do {
            try FolderWatcher(folders: paths, options: options, typing: typing).run(until: stop) { _ in }
            return nil
        } catch {
            return error
        }
    }

    @Test func eachFailureHasItsCode() throws {
        try folder.makeFolder("watched/inner")
        try folder.write("file.txt", "text")
        let watched = folder.path("watched"), inner = folder.path("watched/inner")
        let cases: [([String], Bool, FolderWatcher.Failure.Code, String)] = [
            ([folder.path("missing")], false, .notFound, folder.path("missing") + ": No such file or directory"),
            ([folder.path("file.txt/x")], false, .notFound, folder.path("file.txt/x") + ": Not a directory"),
            ([folder.path("file.txt")], false, .notAFolder, folder.path("file.txt") + ": is not a folder"),
            ([watched, watched], false, .overlapping, watched + ": is already watched (named twice)"),
            (
                [watched, inner], true, .overlapping,
                inner + ": is inside \(watched), which is watched with its subfolders"
            ),
        ]
        for (paths, recursive, code, description) in cases {
            let error = try #require(try failure(paths, recursive: recursive), "\(paths) was watched")
            #expect(error.code == code, "\(error)")
            #expect(error.description == description)
        }
        #expect(try failure([folder.path("missing")])?.systemError?.call == "stat")
        // The same folders, each alone, are watched.
        #expect(try failure([watched]) == nil)
        #expect(try failure([watched, inner]) == nil)
    }

    /// The initializer without a code gives `other`.
    @Test func theInitializerWithoutACodeGivesOther() {
        #expect(FolderWatcher.Failure(path: "a", reason: "b").code == .other)
    }
}
