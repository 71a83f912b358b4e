import Foundation
import Glibc
import Testing

@testable import InboxProcessing

/// Entries whose name matches `Options.ignore` (by default the files
/// editors, downloads and version control keep for themselves) are left in
/// place, however settled they look.
@Suite struct IgnoredEntryTests {
    @Test func temporariesAreLeftInPlaceAndDocumentsMove() throws {
        let tree = Tree()
        for name in [
            ".report.txt.swp", "film.mkv.part", "Unconfirmed 1.crdownload", "#notes.org#", "4913", "notes.txt~",
            "report.txt",
        ] {
            tree.write(tree.inbox, name, "x")
        }
        // Emacs's lock: a link to nowhere.
        symlink("me@host.1234:1", tree.inbox + "/.#notes.org")
        mkdir(tree.inbox + "/.git", 0o755)
        tree.write(tree.inbox + "/.git", "HEAD", "ref: refs/heads/main\n")
        let (reports, summary) = try run(processor(tree))
        #expect(reports[FileName("report.txt")]?.outcome.destination == "report.txt")
        let left: [String: String] = [
            ".report.txt.swp": "*.swp", "film.mkv.part": "*.part", "Unconfirmed 1.crdownload": "*.crdownload",
            "#notes.org#": "#*#", "4913": "4913", "notes.txt~": "*~", ".#notes.org": ".#*", ".git": ".git/",
        ]
        for (name, pattern) in left {
            #expect(reports[FileName(name)]?.outcome == .leftInPlace, "\(name)")
            #expect(reports[FileName(name)]?.ignoredBy?.description == pattern, "\(name)")
        }
        #expect(reports[FileName(".#notes.org")]?.kind == .symbolicLink)
        #expect(reports[FileName(".git")]?.kind == .folder)
        #expect(reports[FileName("report.txt")]?.ignoredBy == nil)
        #expect(summary.moved == 1)
        #expect(summary.leftInPlace == left.count)
        #expect(summary.inbox == .kept("\(left.count) items are left in it"))
        #expect(tree.textNames(tree.documents) == ["Inbox", "report.txt"])
        #expect(Set(tree.textNames(tree.inbox)) == Set(left.keys))
    }

    /// A swap file its editor holds open, unchanged for longer than the
    /// writer window, is taken by the settle rules alone: the defaults keep
    /// it in place.
    @Test func aSwapFileHeldOpenButUnchangedIsNeverMoved() throws {
        let tree = Tree()
        tree.write(tree.inbox, ".draft.txt.swp", "swap")
        let writer = open(tree.inbox + "/.draft.txt.swp", O_WRONLY | O_APPEND | O_CLOEXEC)
        defer { close(writer) }
        #expect(writer >= 0)
        // Unchanged for longer than the window by the time it is looked at, however fast the machine.
        let window = 0.01
        usleep(100_000)
        let (kept, _) = try run(processor(tree, settle: window) { $0.settle.writerWindow = window })
        #expect(kept[FileName(".draft.txt.swp")]?.outcome == .leftInPlace)
        #expect(tree.textNames(tree.inbox) == [".draft.txt.swp"])
        // Without the patterns, the settle rules take it.
        let (moved, _) = try run(
            processor(tree, settle: window) { options in
                options.settle.writerWindow = window
                options.ignore = []
            })
        #expect(moved[FileName(".draft.txt.swp")]?.outcome.destination == ".draft.txt.swp")
    }

    /// A download stays while it is partial, and moves once its browser
    /// gives it its name.
    @Test func aPartialDownloadMovesOnceRenamed() throws {
        let tree = Tree()
        tree.write(tree.inbox, "slides.pdf.part", "half")
        let (first, _) = try run(processor(tree) { $0.removeEmptyInbox = false })
        #expect(first[FileName("slides.pdf.part")]?.outcome == .leftInPlace)
        #expect(rename(tree.inbox + "/slides.pdf.part", tree.inbox + "/slides.pdf") == 0)
        let (second, summary) = try run(processor(tree))
        #expect(second[FileName("slides.pdf")]?.outcome.destination == "slides.pdf")
        #expect(summary.isComplete)
    }

    /// A pattern ending with `/` leaves folders in place, not files; given
    /// patterns replace the defaults.
    @Test func folderPatternsAndGivenPatterns() throws {
        let tree = Tree()
        mkdir(tree.inbox + "/build", 0o755)
        tree.write(tree.inbox, "build.log", "x")
        mkdir(tree.inbox + "/.git", 0o755)
        tree.write(tree.inbox, "a.swp", "x")
        let (reports, _) = try run(
            processor(tree) { $0.ignore = [try! IgnorePattern("build/"), try! IgnorePattern("*.log/")] })
        #expect(reports[FileName("build")]?.outcome == .leftInPlace)
        #expect(reports[FileName("build")]?.ignoredBy?.description == "build/")
        #expect(reports[FileName("build.log")]?.outcome.destination == "build.log")
        #expect(reports[FileName(".git")]?.outcome.destination == ".git")
        #expect(reports[FileName("a.swp")]?.outcome.destination == "a.swp")
    }
}
