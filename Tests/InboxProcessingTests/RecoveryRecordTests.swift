import Foundation
import Glibc
import SystemBase
import TestSupport
import Testing

@testable import InboxProcessing

/// Records as a run writes them, for a run of `run` (by default one of
/// this machine that has ended: a process number no process has).
struct Records {
    static let deadRun = RunIdentity(machine: RunIdentity.current.machine, pid: 99_999_999, start: 12345)

    let tree: Tree
    let folder: RecordFolder

    init(_ tree: Tree) throws {
        self.tree = tree
        folder = try RecordFolder.open(tree.records)
    }

    func id(_ path: String) -> FileID { FileID(tree.status(path)) }

    /// The fields naming the destination `path` below Documents (empty for
    /// Documents itself), as a run writes them; as an earlier version wrote
    /// them when `withoutPath` (its device and inode alone).
    func destination(_ path: String, withoutPath: Bool = false) throws -> [[UInt8]] {
        let folder = try FolderDescriptor.open(path.isEmpty ? tree.documents : tree.documents + "/" + path)
        let components = path.split(separator: "/").map { FileName(String($0)) }
        let fields = try CopyDestination(folder: folder, path: components, documents: id(tree.documents)).fields()
        return withoutPath ? Array(fields[..<2]) : fields
    }

    /// A record of an item set aside as `hidden` in the Inbox, with the
    /// folder's inode when `recordInode`, and `copy` when given, moving
    /// into the folder `destination` of Documents.
    @discardableResult
    func moving(
        hidden: String, original: String, recordInode: Bool = true, copy: (String, UInt64)? = nil,
        inbox: String? = nil, into destination: String = "", withoutPath: Bool = false, run: RunIdentity = deadRun
    ) throws -> RunRecord {
        let inboxID = id(inbox ?? tree.inbox)
        let record = try RunRecord.create(
            withoutPath ? .movingWithoutPath : .moving, in: folder,
            try self.destination(destination, withoutPath: withoutPath) + [
                RunRecord.field(inboxID.device), RunRecord.field(inboxID.inode), Array(hidden.utf8),
                Array(original.utf8),
            ], run: run)
        if recordInode {
            try record.append(
                [RunRecord.field(id((inbox ?? tree.inbox) + "/" + hidden).inode)]
                    + (copy.map { [Array($0.0.utf8), RunRecord.field($0.1)] } ?? []))
        }
        return record
    }

    /// A record of the staging folder `name` of the folder `destination` of Documents.
    @discardableResult
    func staging(
        _ name: String, in destination: String = "", recordInode: Bool = true, withoutPath: Bool = false,
        run: RunIdentity = deadRun
    ) throws -> RunRecord {
        let path = destination.isEmpty ? tree.documents : tree.documents + "/" + destination
        let record = try RunRecord.create(
            withoutPath ? .stagingWithoutPath : .staging, in: folder,
            try self.destination(destination, withoutPath: withoutPath) + [Array(name.utf8)], run: run)
        if recordInode { try record.append([RunRecord.field(id(path + "/" + name).inode)]) }
        return record
    }

    /// The names in the record folder.
    var names: [String] { tree.textNames(tree.records) }
}

/// What a run killed in the middle of a move across file systems leaves is
/// finished by the next run, known only from the records of the user's own
/// runs, and never published again in part.
@Suite struct InterruptedMoveTests {
    @Test func anInterruptedRemovalIsFinishedNotPublishedAgain() throws {
        let tree = Tree()
        let records = try Records(tree)
        // The published copy, and what the killed run had not removed yet.
        mkdir(tree.documents + "/Pack.app", 0o755)
        mkdir(tree.documents + "/Pack.app/Contents", 0o755)
        tree.write(tree.documents + "/Pack.app/Contents", "Info.plist", "info")
        let hidden = tree.inbox + "/.uti-moving-1"
        mkdir(hidden, 0o700)
        mkdir(hidden + "/item", 0o755)
        mkdir(hidden + "/item/Contents", 0o755)
        tree.write(hidden + "/item/Contents", "Info.plist", "info")
        var copied = tree.status(tree.documents + "/Pack.app/Contents/Info.plist")
        var times = [copied.st_atim, copied.st_mtim]
        utimensat(AT_FDCWD, hidden + "/item/Contents/Info.plist", &times, 0)
        let inode = UInt64(tree.status(tree.documents + "/Pack.app").st_ino)
        try records.moving(hidden: ".uti-moving-1", original: "Pack.app", copy: ("Pack.app", inode))
        let (dry, drySummary) = try run(processor(tree) { $0.dryRun = true })
        #expect(dry.isEmpty, "the plan lists it; the pass does not")
        #expect(
            drySummary.recoveryPlan == [
                "would finish moving Pack.app, set aside as .uti-moving-1 by an interrupted run"
            ])
        let (reports, summary) = try run(processor(tree))
        #expect(reports.isEmpty, "\(reports)")
        #expect(summary.recoveryProblems == [])
        #expect(!tree.exists(hidden))
        #expect(tree.textNames(tree.documents) == ["Pack.app"])  // the emptied Inbox went too
        copied = tree.status(tree.documents + "/Pack.app/Contents/Info.plist")
        #expect(copied.st_size == 4)
        #expect(records.names == [], "the record goes with what it named")
    }

    /// A record's copy counts only when it is the very file the run
    /// published (its inode): a file of the same size and time, or another
    /// link, does not make recovery drop the item; it goes back to the Inbox.
    @Test func onlyTheRecordedCopyLetsRecoveryDropAnItem() throws {
        let tree = Tree()
        let records = try Records(tree)
        tree.write(tree.documents, "same.txt", "BBBB")
        symlink("/somewhere/else", tree.documents + "/mine")
        for (index, (copy, item)) in [("same.txt", "file"), ("mine", "link")].enumerated() {
            let hidden = tree.inbox + "/.uti-moving-9\(index)"
            mkdir(hidden, 0o700)
            if item == "file" {
                tree.write(hidden, "item", "AAAA")
                let info = tree.status(tree.documents + "/same.txt")
                var times = [info.st_atim, info.st_mtim]
                utimensat(AT_FDCWD, hidden + "/item", &times, 0)
            } else {
                symlink("/outside/target2", hidden + "/item")
            }
            let wrongInode = UInt64(tree.status(tree.documents + "/" + copy).st_ino) + 1
            try records.moving(
                hidden: ".uti-moving-9\(index)", original: copy == "same.txt" ? "a.txt" : "lnk",
                copy: (copy, wrongInode))
        }
        let (_, summary) = try run(processor(tree) { $0.removeEmptyInbox = false })
        #expect(summary.recoveryProblems.isEmpty, "an item not copied just goes back: \(summary.recoveryProblems)")
        #expect(tree.read(tree.documents, "a.txt") == "AAAA" || tree.read(tree.inbox, "a.txt") == "AAAA")
        #expect(
            readLink(tree.documents + "/lnk") == "/outside/target2"
                || readLink(tree.inbox + "/lnk") == "/outside/target2")
    }

    /// A run killed after it made its folder and before it recorded the
    /// folder's inode left it empty: removed, never moved as a document.
    @Test func anEmptyFolderWhoseInodeWasNeverRecordedIsRemoved() throws {
        let tree = Tree()
        let records = try Records(tree)
        mkdir(tree.inbox + "/.uti-moving-2", 0o700)
        try records.moving(hidden: ".uti-moving-2", original: "a.txt", recordInode: false)
        mkdir(tree.documents + "/.uti-staging-2", 0o700)
        try records.staging(".uti-staging-2", recordInode: false)
        let (dry, drySummary) = try run(processor(tree) { $0.dryRun = true })
        #expect(dry.isEmpty, "the plan lists it; the pass does not")
        #expect(
            Set(drySummary.recoveryPlan) == [
                "would remove .uti-moving-2, an empty folder of an interrupted run",
                "would remove .uti-staging-2, an empty folder of an interrupted run",
            ])
        let (reports, _) = try run(processor(tree))
        #expect(reports.isEmpty)
        #expect(tree.textNames(tree.documents) == [])
        #expect(records.names == [])
    }

    @Test func theStagingFolderOfAnEndedRunIsRemovedAndARunningOnesIsKept() throws {
        let tree = Tree()
        let records = try Records(tree)
        mkdir(tree.documents + "/.uti-staging-dead", 0o700)
        mkdir(tree.documents + "/.uti-staging-dead/1", 0o700)
        tree.write(tree.documents + "/.uti-staging-dead/1", "half.txt", "half")
        try records.staging(".uti-staging-dead")
        mkdir(tree.documents + "/.uti-staging-live", 0o700)
        try records.staging(".uti-staging-live", run: .current)
        // This process's number with another start time: a run that ended before it.
        let current = RunIdentity.current
        mkdir(tree.documents + "/.uti-staging-reused", 0o700)
        try records.staging(
            ".uti-staging-reused",
            run: RunIdentity(machine: current.machine, pid: current.pid, start: current.start + 1))
        tree.write(tree.inbox, "a.txt", "a")
        let (_, summary) = try run(processor(tree))
        #expect(summary.moved == 1 && summary.recoveryProblems.isEmpty)
        #expect(tree.textNames(tree.documents) == [".uti-staging-live", "a.txt"])
        #expect(records.names.count == 1)
    }

    /// An item another machine's run is moving is left to it, and said.
    @Test func anotherRunsItemIsLeftToItAndSaid() throws {
        let tree = Tree()
        let records = try Records(tree)
        let other = RunIdentity.current.machine == "abc" ? "abd" : "abc"
        mkdir(tree.inbox + "/.uti-moving-42", 0o700)
        tree.write(tree.inbox + "/.uti-moving-42", "item", "a")
        try records.moving(
            hidden: ".uti-moving-42", original: "a.txt", run: RunIdentity(machine: other, pid: 42, start: 7))
        let (reports, summary) = try run(processor(tree))
        #expect(reports.isEmpty)
        #expect(summary.heldByOtherRuns == [FileName(".uti-moving-42")])
        #expect(summary.inbox == .kept("it holds 1 item another run is moving (.uti-moving-42)"))
        #expect(tree.read(tree.inbox + "/.uti-moving-42", "item") == "a")
    }

    /// Two runs on one Inbox: a folder the other run is copying (it holds
    /// the folder's lock) is left to it, not published a second time.
    @Test(.enabled(if: CrossDeviceHardeningTests.otherFileSystem, "needs /dev/shm on another file system"))
    func aFolderAnotherRunIsCopyingIsLeftToIt() throws {
        let tree = Tree()
        let remote = Tree(base: "/dev/shm")
        mkdir(remote.inbox + "/Pack.app", 0o755)
        remote.write(remote.inbox + "/Pack.app", "a.txt", "a")
        let other = open(remote.inbox + "/Pack.app", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        #expect(flock(other, LOCK_EX) == 0)
        let (reports, _) = try run(processor(tree) { $0.inbox = remote.inbox })
        #expect(reports[FileName("Pack.app")]?.outcome == .gone)
        #expect(tree.textNames(tree.documents) == ["Inbox"], "nothing published, no staging folder left")
        close(other)
        let (again, _) = try run(processor(tree) { $0.inbox = remote.inbox })
        #expect(again[FileName("Pack.app")]?.outcome == .moved(to: FileName("Pack.app"), copied: true))
        #expect(tree.read(tree.documents + "/Pack.app", "a.txt") == "a")
    }

    /// A folder of this program's is removed only while its name still
    /// holds it: one renamed away and replaced by another folder of that
    /// name leaves the other folder alone.
    @Test func aReplacedFolderIsNotRemovedInItsPlace() throws {
        let tree = Tree()
        mkdir(tree.documents + "/.uti-staging-x", 0o700)
        let documents = try FolderDescriptor.open(tree.documents)
        let ours = try FolderDescriptor.open(tree.documents + "/.uti-staging-x")
        #expect(rename(tree.documents + "/.uti-staging-x", tree.documents + "/moved-away") == 0)
        mkdir(tree.documents + "/.uti-staging-x", 0o700)
        #expect(removeFolder(FileName(".uti-staging-x"), in: documents, ifItIs: ours) == .notThere)
        #expect(tree.exists(tree.documents + "/.uti-staging-x"))
        let moved = try FolderDescriptor.open(tree.documents + "/moved-away")
        #expect(removeFolder(FileName("moved-away"), in: documents, ifItIs: moved) == .removed)
    }

    @Test func aFolderChangedAfterItsCopyNoLongerMatches() throws {
        let tree = Tree()
        mkdir(tree.inbox + "/Pack.app", 0o755)
        tree.write(tree.inbox + "/Pack.app", "one.txt", "1")
        let folder = try FolderDescriptor.open(tree.inbox + "/Pack.app")
        var record = CopiedTree()
        record.files = [(FileName("one.txt"), FileIdentity(tree.status(tree.inbox + "/Pack.app/one.txt")))]
        #expect(record.matches(folder))
        tree.write(tree.inbox + "/Pack.app", "two.txt", "2")
        #expect(!record.matches(folder))
    }
}

/// No name in Documents or the Inbox is special: what no record of the
/// user's own runs names is the user's data, and a folder a record names
/// counts only while it is the very folder recorded.
@Suite struct NoNameIsSpecialTests {
    /// The names earlier versions and this one give their own entries, and
    /// names that merely look like them.
    static let internalLooking: [String] = {
        let run = Records.deadRun
        return [
            ".uti-inbox-\(run.token)-777-0.partial", ".uti-inbox-\(RunIdentity.current.token)-7-0.partial",
            ".uti-inbox-removing-\(run.token)-1-0", ".uti-inbox-report.partial", ".uti-inbox-journal",
            ".uti-moving-1", ".uti-staging-1", "journal", "item",
        ]
    }()

    @Test func foldersNamedLikeAnyInternalEntryAreKeptInDocumentsAndMovedFromTheInbox() throws {
        let tree = Tree()
        for name in Self.internalLooking {
            mkdir(tree.documents + "/" + name, 0o700)
            tree.write(tree.documents + "/" + name, "thesis.tex", "mine")
            mkdir(tree.inbox + "/" + name, 0o700)
            tree.write(tree.inbox + "/" + name, "journal", "delivered")
        }
        let (reports, summary) = try run(processor(tree))
        #expect(summary.moved == Self.internalLooking.count && summary.recoveryProblems.isEmpty, "\(reports)")
        for name in Self.internalLooking {
            #expect(tree.read(tree.documents + "/" + name, "thesis.tex") == "mine", "\(name)")
            guard case .moved(let target, _)? = reports[FileName(name)]?.outcome else {
                Issue.record("\(name): \(String(describing: reports[FileName(name)]?.outcome))")
                continue
            }
            #expect(
                tree.read(tree.documents + "/" + String(decoding: target.bytes, as: UTF8.self), "journal")
                    == "delivered")
        }
    }

    /// The attack of a second user: the victim's folder renamed to the
    /// name a record gives (a staging folder of Documents, a folder of the
    /// Inbox). Its inode is not the one recorded, so it is left whole.
    @Test func aFolderRenamedToARecordedNameIsNotTheRecordedFolder() throws {
        let tree = Tree()
        let records = try Records(tree)
        // Made while the recorded folders still exist, so their inodes differ.
        mkdir(tree.documents + "/thesis", 0o700)
        tree.write(tree.documents + "/thesis", "ch1.tex", "chapter one")
        mkdir(tree.inbox + "/other", 0o700)
        tree.write(tree.inbox + "/other", "item", "not the run's")
        mkdir(tree.documents + "/.uti-staging-7", 0o700)
        try records.staging(".uti-staging-7")
        mkdir(tree.inbox + "/.uti-moving-7", 0o700)
        try records.moving(hidden: ".uti-moving-7", original: "x", copy: ("x", 1))
        rmdir(tree.documents + "/.uti-staging-7")
        rmdir(tree.inbox + "/.uti-moving-7")
        #expect(rename(tree.documents + "/thesis", tree.documents + "/.uti-staging-7") == 0)
        #expect(rename(tree.inbox + "/other", tree.inbox + "/.uti-moving-7") == 0)
        let (reports, summary) = try run(processor(tree))
        #expect(summary.recoveryProblems.isEmpty)
        #expect(tree.read(tree.documents + "/.uti-staging-7", "ch1.tex") == "chapter one")
        #expect(reports[FileName(".uti-moving-7")]?.outcome == .moved(to: FileName(".uti-moving-7"), copied: false))
        #expect(tree.read(tree.documents + "/.uti-moving-7", "item") == "not the run's")
        #expect(records.names == [], "records of what is gone are removed")
    }

    /// Every free-name search ends, whatever names exist: a document
    /// named like a partial copy, delivered twice, gets a counter.
    @Test func aNameLikeAPartialCopyDeliveredTwiceGetsACounter() throws {
        let tree = Tree()
        let name = ".uti-inbox-\(RunIdentity.current.machine)-1-2-3.partial"
        tree.write(tree.inbox, name, "first")
        _ = try run(processor(tree))
        mkdir(tree.inbox, 0o755)
        tree.write(tree.inbox, name, "second")
        let (dry, _) = try run(processor(tree) { $0.dryRun = true })
        let numbered = ".uti-inbox-\(RunIdentity.current.machine)-1-2-3-1.partial"
        #expect(dry[FileName(name)]?.outcome == .wouldMove(to: FileName(numbered)))
        let (reports, _) = try run(processor(tree))
        #expect(reports[FileName(name)]?.outcome == .moved(to: FileName(numbered), copied: false))
        #expect(tree.read(tree.documents, name) == "first")
        #expect(tree.read(tree.documents, numbered) == "second")
    }

    /// Only records as this program writes them count: in a folder of the
    /// running user that no one else may write, regular files of the user
    /// with one link, naming single path components.
    @Test func recordsOthersCouldWriteOrThatNameOutsideAreIgnored() throws {
        let tree = Tree()
        let records = try Records(tree)
        mkdir(tree.documents + "/Pack.app", 0o755)
        let pack = UInt64(tree.status(tree.documents + "/Pack.app").st_ino)
        for (index, mode) in [0o666, 0o620].enumerated() {
            mkdir(tree.inbox + "/.uti-moving-\(index)", 0o700)
            mkdir(tree.inbox + "/.uti-moving-\(index)/item", 0o755)
            let record = try records.moving(
                hidden: ".uti-moving-\(index)", original: "Pack.app", copy: ("Pack.app", pack))
            chmod(tree.records + "/" + String(decoding: record.name.bytes, as: UTF8.self), mode_t(mode))
        }
        // A record with a second link, and records naming what is not one component.
        mkdir(tree.inbox + "/.uti-moving-2", 0o700)
        mkdir(tree.inbox + "/.uti-moving-2/item", 0o755)
        let linked = try records.moving(hidden: ".uti-moving-2", original: "Pack.app", copy: ("Pack.app", pack))
        let linkedPath = tree.records + "/" + String(decoding: linked.name.bytes, as: UTF8.self)
        link(linkedPath, tree.root + "/second-link")
        for hostile in ["../../elsewhere", "/tmp/uti-planted-absolute", "..", "."] {
            _ = try? records.moving(hidden: hostile, original: "x", recordInode: false)
        }
        let (_, summary) = try run(processor(tree))
        #expect(summary.recoveryProblems.isEmpty)
        #expect(!tree.exists(tree.root + "/elsewhere") && !tree.exists("/tmp/uti-planted-absolute"))
        // Taken for the documents they are: each moved whole.
        for index in 0..<3 {
            #expect(tree.exists(tree.documents + "/.uti-moving-\(index)/item"), "case \(index)")
        }
    }

    @Test func aRecordFolderOthersMayWriteIsNotUsed() throws {
        let tree = Tree()
        mkdir(tree.records, 0o777)
        chmod(tree.records, 0o777)
        do {
            _ = try RecordFolder.open(tree.records)
            Issue.record("a record folder others may write was used")
        } catch {
            #expect(error.message.contains("writable by others"), "\(error)")
        }
    }

    @Test func aDeepStagingFolderNeverCrashesARun() throws {
        let tree = Tree()
        let records = try Records(tree)
        var fd = open(tree.documents, O_RDONLY | O_DIRECTORY)
        for level in 0..<15_000 {
            let entry = level == 0 ? ".uti-staging-deep" : "d"
            #expect(mkdirat(fd, entry, 0o700) == 0)
            let next = openat(fd, entry, O_RDONLY | O_DIRECTORY)
            close(fd)
            fd = next
        }
        close(fd)
        try records.staging(".uti-staging-deep")
        tree.write(tree.inbox, "a.txt", "a")
        let (_, summary) = try run(processor(tree))
        #expect(summary.moved == 1)
        // Deeper than any copy: what lies past the bound is kept, and said.
        #expect(summary.recoveryProblems.count == 1)
        // Deeper than a path can name, and still removed with the tree.
        #expect(TemporaryFolder.removeTree(tree.root))
    }
}
