import Foundation
import Glibc
import SystemBase
import TestSupport
import Testing

@testable import InboxProcessing

/// A run killed while it moved an item into a route folder is finished by
/// any later run over the same Inbox, whatever that run's rules: its
/// records say where their folder is.
@Suite struct RecordedDestinationTests {
    /// A run killed after it published the copy of `a.png` in
    /// `Documents/FOLDER` and before it removed the set-aside original,
    /// with the staging folder it had made there.
    struct Interrupted {
        let tree: Tree
        let records: Records
        let folder: String
        var path: String { tree.documents + "/" + folder }
        var hidden: String { tree.inbox + "/.uti-moving-1" }

        init(into folder: String = "Media/Pictures") throws {
            tree = Tree()
            records = try Records(tree)
            self.folder = folder
            try FileManager.default.createDirectory(
                atPath: tree.documents + "/" + folder, withIntermediateDirectories: true)
            let path = tree.documents + "/" + folder
            tree.write(path, "a.png", "png")
            mkdir(hidden, 0o700)
            tree.write(hidden, "item", "png")
            let copy = tree.status(path + "/a.png")
            var times = [copy.st_atim, copy.st_mtim]
            utimensat(AT_FDCWD, hidden + "/item", &times, 0)
            try records.moving(
                hidden: ".uti-moving-1", original: "a.png", copy: ("a.png", UInt64(copy.st_ino)), into: folder)
            mkdir(path + "/.uti-staging-1", 0o700)
            tree.write(path + "/.uti-staging-1", "1", "half")
            try records.staging(".uti-staging-1", in: folder)
        }
    }

    /// The run after the crash has no routes: it still finds the folder.
    @Test func aRunWithoutTheRouteFinishesTheMoveIntoTheRecordedFolder() throws {
        let interrupted = try Interrupted()
        let tree = interrupted.tree
        let (reports, summary) = try run(processor(tree))
        #expect(reports.isEmpty, "the hidden folder is not a document: \(reports)")
        #expect(summary.recoveryProblems.isEmpty)
        #expect(tree.textNames(tree.documents) == ["Media"])
        #expect(tree.textNames(interrupted.path) == ["a.png"])
        #expect(tree.read(interrupted.path, "a.png") == "png")
        #expect(interrupted.records.names == [])
    }

    /// The rules changed between the crash and the next run: the move is
    /// still finished into the folder the record names, and new items go
    /// where the new rules say.
    @Test func aRoutesChangeRecoversIntoTheRecordedFolder() throws {
        let interrupted = try Interrupted()
        let tree = interrupted.tree
        tree.write(tree.inbox, "b.png", "new")
        let routing = InboxRouting(
            routes: [InboxRoute(type: "public.image", folder: try RouteFolder("Images"), origin: .option("i"))],
            typeEntry: RouteTests.typeByExtension)
        let (reports, summary) = try run(processor(tree) { $0.routing = routing })
        #expect(reports.count == 1 && reports[FileName("b.png")]?.folder?.description == "Images", "\(reports)")
        #expect(summary.recoveryProblems.isEmpty && summary.isComplete)
        #expect(tree.textNames(interrupted.path) == ["a.png"])
        #expect(tree.textNames(tree.documents + "/Images") == ["b.png"])
        #expect(tree.textNames(tree.documents) == ["Images", "Media"])
        #expect(interrupted.records.names == [])
    }

    /// The recorded folder was removed: what its copy held cannot be
    /// checked, so the item comes back whole and moves as a new one; the
    /// staging record is dropped.
    @Test func aRemovedRouteFolderGivesTheItemBackWhole() throws {
        let interrupted = try Interrupted()
        let tree = interrupted.tree
        tree.remove(interrupted.path)
        let (dry, drySummary) = try run(processor(tree) { $0.dryRun = true })
        #expect(dry.isEmpty, "the hidden folder is not a document: \(dry)")
        #expect(
            Set(drySummary.recoveryPlan) == [
                "Media/Pictures/.uti-staging-1: the unfinished copies of an interrupted run are no longer there "
                    + "(their folder was removed, renamed or replaced by a link), so they would be forgotten; "
                    + "where that folder went, its .uti-staging-1 may be removed",
                "would give back a.png whole, set aside as .uti-moving-1 by an interrupted run moving it into a "
                    + "folder that cannot be found",
            ])
        let (reports, summary) = try run(processor(tree))
        #expect(reports[FileName("a.png")]?.outcome == .moved(to: FileName("a.png"), copied: false))
        #expect(reports.count == 1, "\(reports)")
        #expect(
            Set(summary.recoveryProblems) == [
                "Media/Pictures/.uti-staging-1: the unfinished copies of an interrupted run are no longer there "
                    + "(their folder was removed, renamed or replaced by a link), so they were forgotten; "
                    + "where that folder went, its .uti-staging-1 may be removed",
                "a.png: an interrupted run published a copy of it in a folder that cannot be found any more "
                    + "(removed, renamed or replaced), so what that copy holds cannot be checked and all of it went "
                    + "back to the Inbox as a.png",
            ])
        #expect(tree.read(tree.documents, "a.png") == "png")
        #expect(tree.textNames(tree.documents) == ["Media", "a.png"])
        #expect(interrupted.records.names == [])
    }

    /// Renamed, the folder keeps the copy under its new name: the item
    /// comes back whole too, a duplicate rather than a loss.
    @Test func aRenamedRouteFolderKeepsItsCopyAndTheItemComesBack() throws {
        let interrupted = try Interrupted()
        let tree = interrupted.tree
        #expect(rename(interrupted.path, tree.documents + "/Media/Photos") == 0)
        let (reports, summary) = try run(processor(tree))
        #expect(reports[FileName("a.png")]?.outcome == .moved(to: FileName("a.png"), copied: false))
        // The staging folder left under the new name is named, to be removed (records come in any order).
        #expect(
            summary.recoveryProblems.contains {
                $0.contains(".uti-staging-1: the unfinished copies of an interrupted run are no longer there")
            }, "\(summary.recoveryProblems)")
        #expect(tree.read(tree.documents, "a.png") == "png")
        #expect(tree.textNames(tree.documents + "/Media/Photos") == [".uti-staging-1", "a.png"])
        #expect(interrupted.records.names == [])
    }

    /// A component of the recorded path replaced by a symbolic link (to the
    /// very folder moved elsewhere, so of the recorded inode, or to another
    /// folder) is never followed: nothing there is touched, and the item
    /// comes back whole.
    @Test(arguments: ["same folder", "other folder", "link above"])
    func aRouteFolderReplacedByALinkIsNeverEntered(_ replacement: String) throws {
        let interrupted = try Interrupted()
        let tree = interrupted.tree
        let elsewhere = tree.root + "/elsewhere"
        mkdir(elsewhere, 0o755)
        switch replacement {
        case "same folder":
            #expect(rename(interrupted.path, elsewhere + "/Pictures") == 0)
            symlink(elsewhere + "/Pictures", interrupted.path)
        case "other folder":
            #expect(rename(interrupted.path, elsewhere + "/Pictures") == 0)
            mkdir(elsewhere + "/Other", 0o755)
            symlink(elsewhere + "/Other", interrupted.path)
        default:
            #expect(rename(tree.documents + "/Media", elsewhere + "/Media") == 0)
            #expect(rename(elsewhere + "/Media/Pictures", elsewhere + "/Pictures") == 0)
            mkdir(elsewhere + "/Media/Pictures", 0o755)
            // Media is now a link to a folder whose Pictures is another
            // folder; the recorded one is beside it.
            symlink(elsewhere + "/Media", tree.documents + "/Media")
        }
        let (reports, _) = try run(processor(tree))
        #expect(reports[FileName("a.png")]?.outcome == .moved(to: FileName("a.png"), copied: false), "\(reports)")
        #expect(reports.count == 1)
        #expect(tree.read(tree.documents, "a.png") == "png")
        #expect(tree.textNames(elsewhere + "/Pictures") == [".uti-staging-1", "a.png"], "never entered")
        #expect(tree.read(elsewhere + "/Pictures/.uti-staging-1", "1") == "half")
        #expect(interrupted.records.names == [])
    }

    /// Records as earlier versions wrote them (device and inode alone) are
    /// still read, their folder taken to be Documents.
    @Test func aRecordWithoutAPathRecoversIntoDocuments() throws {
        let tree = Tree()
        let records = try Records(tree)
        tree.write(tree.documents, "a.txt", "text")
        let hidden = tree.inbox + "/.uti-moving-1"
        mkdir(hidden, 0o700)
        tree.write(hidden, "item", "text")
        let copy = tree.status(tree.documents + "/a.txt")
        var times = [copy.st_atim, copy.st_mtim]
        utimensat(AT_FDCWD, hidden + "/item", &times, 0)
        try records.moving(
            hidden: ".uti-moving-1", original: "a.txt", copy: ("a.txt", UInt64(copy.st_ino)), withoutPath: true)
        mkdir(tree.documents + "/.uti-staging-1", 0o700)
        tree.write(tree.documents + "/.uti-staging-1", "1", "half")
        try records.staging(".uti-staging-1", withoutPath: true)
        #expect(records.names.allSatisfy { $0.hasSuffix(".moving") || $0.hasSuffix(".staging") })
        let (reports, summary) = try run(processor(tree))
        #expect(reports.isEmpty && summary.recoveryProblems.isEmpty, "\(reports) \(summary.recoveryProblems)")
        #expect(tree.textNames(tree.documents) == ["a.txt"])
        #expect(records.names == [])
    }

    /// A staging record of another Documents is left for a run over it; an
    /// item of this Inbox that a run was moving into another Documents
    /// comes back whole.
    @Test func recordsOfAnotherDocumentsAreNotStale() throws {
        let tree = Tree()
        let other = Tree(inbox: false)
        let records = try Records(tree)
        mkdir(other.documents + "/.uti-staging-1", 0o700)
        let destination = CopyDestination(
            folder: try FolderDescriptor.open(other.documents), path: [],
            documents: records.id(other.documents))
        let staging = try RunRecord.create(
            .staging, in: records.folder, try destination.fields() + [Array(".uti-staging-1".utf8)],
            run: Records.deadRun)
        try staging.append([RunRecord.field(records.id(other.documents + "/.uti-staging-1").inode)])
        mkdir(tree.inbox + "/.uti-moving-1", 0o700)
        tree.write(tree.inbox + "/.uti-moving-1", "item", "a")
        let inbox = records.id(tree.inbox)
        let moving = try RunRecord.create(
            .moving, in: records.folder,
            try destination.fields() + [
                RunRecord.field(inbox.device), RunRecord.field(inbox.inode), Array(".uti-moving-1".utf8),
                Array("a.txt".utf8),
            ], run: Records.deadRun)
        try moving.append([RunRecord.field(records.id(tree.inbox + "/.uti-moving-1").inode)])
        let (reports, summary) = try run(processor(tree))
        #expect(reports[FileName("a.txt")]?.outcome == .moved(to: FileName("a.txt"), copied: false))
        #expect(reports.count == 1 && summary.recoveryProblems.isEmpty, "\(reports) \(summary.recoveryProblems)")
        #expect(tree.textNames(tree.documents) == ["a.txt"])
        #expect(tree.textNames(other.documents) == [".uti-staging-1"])
        #expect(records.names.count == 1 && records.names.first?.hasSuffix(".stage") == true)
    }

    /// What a run writes names the destination's path, and reads back so.
    @Test func aRecordNamesItsDestinationsPath() throws {
        let tree = Tree()
        let records = try Records(tree)
        let path = tree.documents + "/Media/Pictures"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        tree.write(tree.inbox, "a.png", "png")
        let destination = CopyDestination(
            folder: try FolderDescriptor.open(path), path: [FileName("Media"), FileName("Pictures")],
            documents: records.id(tree.documents))
        let aside = try SetAside.begin(
            FileName("a.png"), in: try FolderDescriptor.open(tree.inbox), to: destination, records: records.folder)
        let entries = records.folder.records()
        #expect(entries.count == 1)
        #expect(entries.first?.path == destination.path)
        #expect(entries.first?.destination == records.id(path))
        #expect(entries.first?.documents == records.id(tree.documents))
        #expect(aside.giveBack(isKnownExtension: knownExtensions) == FileName("a.png"))
        #expect(records.names == [])
        for bad in ["Media//Pictures", "/Media", "Media/..", "Media/./x"] {
            #expect(CopyDestination.path(Array(bad.utf8)) == nil, "\(bad)")
        }
        #expect(CopyDestination.path([]) == [])
    }
}
