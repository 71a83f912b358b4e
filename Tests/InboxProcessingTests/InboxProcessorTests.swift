import Foundation
import Glibc
import Testing

@testable import InboxProcessing

@Suite struct InboxProcessorTests {
    @Test func movesEveryKindOfEntryAsAUnitAndRemovesTheEmptyInbox() throws {
        let tree = Tree()
        tree.write(tree.inbox, "report.pdf", "inbox report")
        mkdir(tree.inbox + "/Photos.app", 0o755)
        tree.write(tree.inbox + "/Photos.app", "Info.plist", "plist")
        mkdir(tree.inbox + "/folder", 0o700)
        mkdir(tree.inbox + "/folder/inner", 0o755)
        tree.write(tree.inbox + "/folder/inner", "deep.txt", "deep")
        symlink("/etc/hostname", tree.inbox + "/outside")
        let (reports, summary) = try run(processor(tree))
        #expect(summary.moved == 4)
        #expect(summary.isComplete)
        #expect(summary.inbox == .removed)
        #expect(!tree.exists(tree.inbox))
        #expect(tree.textNames(tree.documents) == ["Photos.app", "folder", "outside", "report.pdf"])
        #expect(tree.read(tree.documents + "/folder/inner", "deep.txt") == "deep")
        #expect(tree.status(tree.documents + "/folder").st_mode & 0o777 == 0o700)
        // The link moved as a link; what it points to is untouched.
        var target = [CChar](repeating: 0, count: 256)
        let n = readlink(tree.documents + "/outside", &target, 255)
        #expect(String(decoding: target[..<max(n, 0)].map { UInt8(bitPattern: $0) }, as: UTF8.self) == "/etc/hostname")
        #expect(reports[FileName("outside")]?.kind == .symbolicLink)
        #expect(reports[FileName("Photos.app")]?.kind == .folder)
    }

    @Test func takenNamesGetTheNextCounterBeforeTheExtension() throws {
        let tree = Tree()
        for name in ["report.pdf", "report-1.pdf", "archive.tar.gz", "notes", ".profile"] {
            tree.write(tree.documents, name, "old \(name)")
        }
        for name in ["report.pdf", "archive.tar.gz", "notes", ".profile"] {
            tree.write(tree.inbox, name, "new \(name)")
        }
        let (reports, _) = try run(processor(tree))
        #expect(reports[FileName("report.pdf")]?.outcome.destination == "report-2.pdf")
        #expect(reports[FileName("archive.tar.gz")]?.outcome.destination == "archive-1.tar.gz")
        #expect(reports[FileName("notes")]?.outcome.destination == "notes-1")
        #expect(reports[FileName(".profile")]?.outcome.destination == ".profile-1")
        for name in ["report.pdf", "report-1.pdf", "archive.tar.gz", "notes", ".profile"] {
            #expect(tree.read(tree.documents, name) == "old \(name)", "overwritten: \(name)")
        }
        #expect(tree.read(tree.documents, "report-2.pdf") == "new report.pdf")
        #expect(tree.read(tree.documents, "archive-1.tar.gz") == "new archive.tar.gz")
    }

    @Test func hostileNamesSurviveByteForByte() throws {
        let tree = Tree()
        let nfc = Array("caf\u{E9}.txt".utf8)
        let nfd = Array("cafe\u{301}.txt".utf8)
        let names: [[UInt8]] = [
            Array("bad".utf8) + [0xFF, 0xFE] + Array(".txt".utf8),
            Array("line\nbreak.txt".utf8),
            Array("-rf".utf8),
            Array(" spaced .txt".utf8),
            nfc, nfd,
            Array(String(repeating: "é", count: 125).utf8) + Array("x.pdf".utf8),
        ]
        for (i, name) in names.enumerated() { tree.write(tree.inbox, name, "content \(i)") }
        tree.write(tree.documents, nfc, "old nfc")
        tree.write(tree.documents, names[6], "old long")
        let (reports, summary) = try run(processor(tree))
        #expect(summary.moved == names.count)
        #expect(summary.inbox == .removed)
        // NFD is a different name from the NFC file already there; only NFC collides.
        #expect(reports[FileName(nfd)]?.outcome.destination == "cafe\u{301}.txt")
        #expect(reports[FileName(nfc)]?.outcome.destination == "caf\u{E9}-1.txt")
        #expect(tree.read(tree.documents, nfc) == "old nfc")
        for i in 0..<4 { #expect(tree.read(tree.documents, names[i]) == "content \(i)") }
        let long = try #require(reports[FileName(names[6])]?.outcome)
        guard case .moved(let to, _) = long else {
            Issue.record("not moved: \(long)")
            return
        }
        #expect(to.bytes.count <= 255)
        #expect(to.text == String(repeating: "é", count: 124) + "-1.pdf")
        #expect(tree.read(tree.documents, to.bytes) == "content 6")
    }

    @Test func specialFilesStayAndKeepTheInbox() throws {
        let tree = Tree()
        mkfifo(tree.inbox + "/pipe", 0o644)
        tree.write(tree.inbox, "a.txt", "a")
        let (reports, summary) = try run(processor(tree))
        #expect(reports[FileName("pipe")]?.outcome == .leftInPlace)
        #expect(reports[FileName("pipe")]?.kind == .fifo)
        #expect(summary.leftInPlace == 1)
        #expect(!summary.isComplete)
        #expect(summary.inbox == .kept("1 item is left in it"))
        #expect(tree.textNames(tree.inbox) == ["pipe"])
    }

    @Test func anInboxThatIsAFileIsADocumentAndIsNeverDeleted() throws {
        let tree = Tree(inbox: false)
        tree.write(tree.documents, "Inbox", "I am a file")
        tree.write(tree.documents, "Inbox-1", "taken")
        let (reports, summary) = try run(processor(tree))
        #expect(summary.inbox == .notAFolder)
        #expect(reports[FileName("Inbox")]?.outcome.destination == "Inbox-2")
        #expect(tree.read(tree.documents, "Inbox-2") == "I am a file")
        #expect(tree.read(tree.documents, "Inbox-1") == "taken")
    }

    @Test func aSymlinkedInboxIsMovedAsALinkAndNotFollowed() throws {
        let tree = Tree(inbox: false)
        mkdir(tree.root + "/elsewhere", 0o755)
        tree.write(tree.root + "/elsewhere", "precious.txt", "keep me here")
        symlink(tree.root + "/elsewhere", tree.inbox)
        let (_, summary) = try run(processor(tree))
        #expect(summary.inbox == .notAFolder)
        #expect(tree.read(tree.root + "/elsewhere", "precious.txt") == "keep me here")
        #expect(tree.status(tree.documents + "/Inbox-1").st_mode & S_IFMT == S_IFLNK)
    }

    /// A moved link points where it pointed: a relative target is
    /// rewritten for Documents, one into the Inbox follows the item it named
    /// (even renamed), an absolute one is kept, and one whose meaning cannot
    /// be known stays, with the reason.
    @Test(arguments: [false, true])
    func movedLinksPointWhereTheyPointed(acrossFileSystems: Bool) throws {
        guard !acrossFileSystems || CrossDeviceHardeningTests.otherFileSystem else { return }
        let tree = Tree()
        let remote = Tree(base: "/dev/shm")
        let inbox = acrossFileSystems ? remote.inbox : tree.inbox
        let beside = acrossFileSystems ? remote.documents : tree.documents
        tree.write(tree.documents, "photo.jpg", "taken")
        tree.write(beside, "my report.pdf", "report")
        tree.write(inbox, "photo.jpg", "photo")
        let links = [
            ("rel-link", "../my report.pdf"), ("latest", "photo.jpg"), ("latest-dot", "./photo.jpg"),
            ("absolute", tree.documents + "/photo.jpg"), ("folder-link", "../"), ("unknowable", "x/../photo.jpg"),
        ]
        for (name, target) in links { symlink(target, inbox + "/" + name) }
        // What each link read before the move.
        var before: [String: String] = [:]
        for (name, _) in links { before[name] = try? String(contentsOfFile: inbox + "/" + name, encoding: .utf8) }
        let (reports, _) = try run(processor(tree) { $0.inbox = acrossFileSystems ? remote.inbox : "Inbox" })
        #expect(
            reports[FileName("photo.jpg")]?.outcome == .moved(to: FileName("photo-1.jpg"), copied: acrossFileSystems))
        if !acrossFileSystems { #expect(readLink(tree.documents + "/rel-link") == "my report.pdf") }
        #expect(readLink(tree.documents + "/latest") == "photo-1.jpg")
        #expect(readLink(tree.documents + "/latest-dot") == "photo-1.jpg")
        #expect(readLink(tree.documents + "/absolute") == tree.documents + "/photo.jpg")
        #expect(try String(contentsOfFile: tree.documents + "/rel-link", encoding: .utf8) == "report")
        #expect(try String(contentsOfFile: tree.documents + "/latest", encoding: .utf8) == "photo")
        #expect(before["rel-link"] == "report")
        var folder = stat(), target = stat()
        #expect(stat(tree.documents + "/folder-link", &folder) == 0 && stat(beside, &target) == 0)
        #expect(folder.st_ino == target.st_ino)
        guard case .failed(let reason)? = reports[FileName("unknowable")]?.outcome else {
            Issue.record("\(String(describing: reports[FileName("unknowable")]))")
            return
        }
        #expect(reason.message.contains("goes up after a name") && reason.message.contains("left in the Inbox"))
        #expect(reason.systemError == nil)
        #expect(readLink(inbox + "/unknowable") == "x/../photo.jpg")
    }

    /// A link to another link follows it wherever it went, whatever their
    /// names' order; a link to an item left for later waits with it.
    @Test func linksToLinksAndToWaitingItems() throws {
        let tree = Tree()
        tree.write(tree.documents, "z-link", "taken")
        tree.write(tree.inbox, "target.txt", "T")
        symlink("z-link", tree.inbox + "/a-link")
        symlink("target.txt", tree.inbox + "/z-link")
        tree.write(tree.inbox, "busy.txt", "b")
        symlink("busy.txt", tree.inbox + "/lbusy")
        let writer = open(tree.inbox + "/busy.txt", O_WRONLY | O_APPEND)
        let (reports, _) = try run(processor(tree))
        #expect(reports[FileName("z-link")]?.outcome == .moved(to: FileName("z-link-1"), copied: false))
        #expect(readLink(tree.documents + "/a-link") == "z-link-1")
        #expect(try String(contentsOfFile: tree.documents + "/a-link", encoding: .utf8) == "T")
        #expect(reports[FileName("busy.txt")]?.outcome == .waiting(.openForWriting))
        #expect(reports[FileName("lbusy")]?.outcome == .waiting(.linkTargetInInbox(FileName("busy.txt"))))
        close(writer)
        let (again, _) = try run(processor(tree))
        #expect(again.count == 2)
        #expect(try String(contentsOfFile: tree.documents + "/lbusy", encoding: .utf8) == "b")
        #expect(!tree.exists(tree.inbox))
    }

    @Test func aSymlinkedDocumentsFolderIsFollowed() throws {
        let tree = Tree()
        tree.write(tree.inbox, "a.txt", "a")
        symlink(tree.documents, tree.root + "/link")
        var options = InboxProcessor.Options()
        options.settle = SettlePolicy(interval: 0)
        let summary = try InboxProcessor(
            documents: tree.root + "/link", options: options,
            isKnownExtension: knownExtensions
        ).run { _ in }
        #expect(summary.moved == 1)
        #expect(tree.read(tree.documents, "a.txt") == "a")
    }

    @Test func unreadableEntriesMoveWithTheirMode() throws {
        let tree = Tree()
        tree.write(tree.inbox, "secret.txt", "s", mode: 0o000)
        mkdir(tree.inbox + "/locked", 0o000)
        let (_, summary) = try run(processor(tree))
        #expect(summary.moved == 2)
        #expect(tree.status(tree.documents + "/secret.txt").st_mode & 0o777 == 0)
        #expect(tree.status(tree.documents + "/locked").st_mode & 0o777 == 0)
    }

    @Test func noInboxIsNothingToDo() throws {
        let tree = Tree(inbox: false)
        let (reports, summary) = try run(processor(tree))
        #expect(reports.isEmpty)
        #expect(summary.inbox == .absent)
        #expect(summary.isComplete)
    }

    @Test func aMissingDocumentsFolderStopsTheRun() {
        let tree = Tree()
        #expect(throws: InboxProcessor.Failure.self) {
            try InboxProcessor(documents: tree.root + "/missing", isKnownExtension: knownExtensions).run { _ in }
        }
        tree.write(tree.root, "file", "x")
        let error = #expect(throws: InboxProcessor.Failure.self) {
            try InboxProcessor(documents: tree.root + "/file", isKnownExtension: knownExtensions).run { _ in }
        }
        #expect(error?.reason == "is not a folder")
    }

    @Test func freshFilesAndOpenWritersWait() throws {
        let tree = Tree()
        tree.write(tree.inbox, "fresh.txt", "f")
        // Far longer than any pause of a busy machine between the write and the run.
        let settle = 1_000_000.0
        var (reports, summary) = try run(processor(tree, settle: settle))
        guard case .waiting(.changedRecently(let age))? = reports[FileName("fresh.txt")]?.outcome else {
            Issue.record("not waiting: \(String(describing: reports[FileName("fresh.txt")]?.outcome))")
            return
        }
        // The age given is the file's, below the settle time it waits for.
        #expect(age >= 0 && age < settle)
        #expect(summary.waiting == 1)
        #expect(summary.inbox == .kept("1 item is left in it"))

        let writer = open(tree.inbox + "/fresh.txt", O_WRONLY | O_APPEND)
        #expect(writer >= 0)
        (reports, summary) = try run(processor(tree))
        #expect(reports[FileName("fresh.txt")]?.outcome == .waiting(.openForWriting))
        close(writer)
        (reports, summary) = try run(processor(tree))
        #expect(reports[FileName("fresh.txt")]?.outcome.destination == "fresh.txt")
    }

    @Test func aDryRunMovesNothingAndGivesDistinctNames() throws {
        let tree = Tree(inbox: false)
        tree.write(tree.documents, "Inbox", "a file")
        tree.write(tree.documents, "Inbox-1", "taken")
        let dry = try run(processor(tree) { $0.dryRun = true })
        #expect(dry.reports[FileName("Inbox")]?.outcome == .wouldMove(to: FileName("Inbox-2")))
        #expect(tree.read(tree.documents, "Inbox") == "a file")

        let other = Tree()
        other.write(other.documents, "a.txt", "old")
        other.write(other.inbox, "a.txt", "new")
        other.write(other.inbox, "a-1.txt", "new-1")
        let result = try run(processor(other) { $0.dryRun = true })
        let targets = Set(result.reports.values.compactMap(\.outcome.destination))
        #expect(targets.count == 2)
        #expect(other.textNames(other.inbox) == ["a-1.txt", "a.txt"])
        #expect(result.summary.inbox == .kept("dry run"))
    }

    @Test func crossFileSystemMovesCopySyncAndPublish() throws {
        // /dev/shm is tmpfs; the Documents folder is on the temporary folder's file system.
        var shm = stat(), tmp = stat()
        guard stat("/dev/shm", &shm) == 0, stat(NSTemporaryDirectory(), &tmp) == 0, shm.st_dev != tmp.st_dev else {
            Issue.record("needs /dev/shm on another file system than \(NSTemporaryDirectory())")
            return
        }
        let tree = Tree()
        let remote = Tree(base: "/dev/shm")
        remote.write(remote.inbox, "report.pdf", "remote report", mode: 0o640)
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 500)]
        utimensat(AT_FDCWD, remote.inbox + "/report.pdf", &times, 0)
        symlink("../somewhere", remote.inbox + "/link")
        mkdir(remote.inbox + "/bundle.app", 0o750)
        mkdir(remote.inbox + "/bundle.app/Contents", 0o755)
        remote.write(remote.inbox + "/bundle.app/Contents", "Info.plist", "info")
        symlink("Info.plist", remote.inbox + "/bundle.app/Contents/alias")
        tree.write(tree.documents, "report.pdf", "local report")

        let (reports, summary) = try run(processor(tree) { $0.inbox = remote.inbox })
        #expect(summary.moved == 3, "\(reports)")
        #expect(summary.inbox == .removed)
        #expect(reports[FileName("report.pdf")]?.outcome == .moved(to: FileName("report-1.pdf"), copied: true))
        #expect(tree.read(tree.documents, "report.pdf") == "local report")
        #expect(tree.read(tree.documents, "report-1.pdf") == "remote report")
        let copied = tree.status(tree.documents + "/report-1.pdf")
        #expect(copied.st_mode & 0o777 == 0o640)
        #expect(copied.st_mtim.tv_sec == 1_000_000_000 && copied.st_mtim.tv_nsec == 500)
        #expect(tree.read(tree.documents + "/bundle.app/Contents", "Info.plist") == "info")
        #expect(tree.status(tree.documents + "/bundle.app").st_mode & 0o777 == 0o750)
        #expect(tree.status(tree.documents + "/bundle.app/Contents/alias").st_mode & S_IFMT == S_IFLNK)
        #expect(tree.status(tree.documents + "/link").st_mode & S_IFMT == S_IFLNK)
        #expect(!tree.exists(remote.inbox))
        // No temporary was left behind.
        #expect(!tree.textNames(tree.documents).contains { $0.hasPrefix(".uti-inbox") })
    }

    @Test func aLongRunOfNumberedNamesIsSkipped() throws {
        let tree = Tree()
        for i in 0..<2_000 { tree.write(tree.documents, i == 0 ? "report.pdf" : "report-\(i).pdf", "old") }
        tree.write(tree.inbox, "report.pdf", "new")
        let (reports, _) = try run(processor(tree))
        #expect(reports[FileName("report.pdf")]?.outcome.destination == "report-2000.pdf")
    }
}
