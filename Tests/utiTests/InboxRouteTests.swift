import Foundation
import Glibc
import TestSupport
import Testing

/// `uti inbox` routing items into folders of Documents by type: `--route`,
/// `--routes FILE`, the default routes file, `--quarantine`.
struct InboxRouteTests {
    /// The first bytes of a PNG image and of a GIF image.
    static let png = "\u{89}PNG\r\n\u{1A}\n\0\0\0\rIHDR\0\0\0\u{1}\0\0\0\u{1}\u{8}\u{6}\0\0\0"
    static let gif = "GIF89a\u{1}\0\u{1}\0\0\0\0;"

    /// A tree with a configuration folder of its own (XDG_CONFIG_HOME), so
    /// that the default routes file is the test's.
    struct Fixture {
        let tree: InboxTree
        var config: String { tree.root + "/config" }
        var environment: [String: String] { ["XDG_CONFIG_HOME": config] }

        init() throws {
            tree = try InboxTree()
            try FileManager.default.createDirectory(atPath: config + "/uti", withIntermediateDirectories: true)
        }

        func writeBytes(_ folder: String, _ name: String, _ text: String) {
            // The PNG's high bytes are written as single bytes, not as UTF-8.
            let bytes = text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
            FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(bytes))
        }

        func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
            try Run(
                ["inbox", tree.documents, "--settle", "0"] + arguments,
                environment: self.environment.merging(environment) { $1 })
        }

        func names(_ relative: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: tree.documents + "/" + relative)) ?? []).sorted()
        }
    }

    @Test func routesByConformanceTheFirstMatchWinning() throws {
        let fixture = try Fixture()
        let tree = fixture.tree
        fixture.writeBytes(tree.inbox, "a.png", Self.png)
        fixture.writeBytes(tree.inbox, "b.gif", Self.gif)
        tree.write(tree.inbox, "notes.txt", "hello")
        try FileManager.default.createDirectory(atPath: tree.inbox + "/trip", withIntermediateDirectories: false)
        tree.write(tree.inbox + "/trip", "day1.txt", "x")
        let run = try fixture.run([
            "--route", "public.png=Images/PNG", "--route", "public.image=Pictures", "--route", "public.folder=Folders",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.lines == [
                "Inbox/a.png -> Images/PNG/a.png  public.png",
                "Inbox/b.gif -> Pictures/b.gif  com.compuserve.gif",
                "Inbox/notes.txt -> notes.txt  public.plain-text",
                "Inbox/trip -> Folders/trip  public.folder",
                "moved 4; the Inbox was removed",
            ])
        #expect(fixture.names("Images/PNG") == ["a.png"])
        #expect(fixture.names("Pictures") == ["b.gif"])
        #expect(fixture.names("Folders/trip") == ["day1.txt"])
        #expect(fixture.names("") == ["Folders", "Images", "Pictures", "notes.txt"])
    }

    @Test func aTakenNameInARouteFolderGetsACounter() throws {
        let fixture = try Fixture()
        let tree = fixture.tree
        try FileManager.default.createDirectory(
            atPath: tree.documents + "/Pictures", withIntermediateDirectories: false)
        tree.write(tree.documents + "/Pictures", "a.png", "old")
        fixture.writeBytes(tree.inbox, "a.png", Self.png)
        let run = try fixture.run(["--route", "png=Pictures"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines.first == "Inbox/a.png -> Pictures/a-1.png  public.png")
        #expect(fixture.names("Pictures") == ["a-1.png", "a.png"])
        #expect(tree.files()["Documents/Pictures/a.png"] == "old")
    }

    /// A route folder that is a symbolic link is never followed: the item
    /// stays in the Inbox, said, and nothing reaches where the link points.
    @Test func aRouteFolderThatIsASymbolicLinkIsRefusedAndNothingIsLost() throws {
        let fixture = try Fixture()
        let tree = fixture.tree
        try FileManager.default.createDirectory(atPath: tree.root + "/elsewhere", withIntermediateDirectories: false)
        symlink(tree.root + "/elsewhere", tree.documents + "/Pictures")
        fixture.writeBytes(tree.inbox, "a.png", Self.png)
        tree.write(tree.inbox, "notes.txt", "hello")
        let run = try fixture.run(["--route", "public.image=Pictures/2024"])
        #expect(run.status == 1)
        #expect(
            run.stderr.contains(
                "Inbox/a.png: not moved: cannot be moved into Pictures/2024: \(tree.documents)/Pictures is a symbolic link, which is never followed"
            ), "\(run.stderr)")
        #expect(run.lines.last == "moved 1, 1 failed; the Inbox was kept: 1 item is left in it")
        #expect(fixture.names("Inbox") == ["a.png"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: tree.root + "/elsewhere") == [])
    }

    @Test func aDryRunShowsDestinationsAndMovesNothing() throws {
        let fixture = try Fixture()
        let tree = fixture.tree
        fixture.writeBytes(tree.inbox, "a.png", Self.png)
        fixture.writeBytes(tree.inbox, "b.png", Self.png)
        let run = try fixture.run(["--dry-run", "--route", "image=Pictures"], environment: [:])
        // "image" is no declared type: refused, naming the rule.
        #expect(run.status == 2)
        #expect(run.stderr.contains("--route 'image=Pictures': TYPE \"image\":"), "\(run.stderr)")
        let dry = try fixture.run(["--dry-run", "--route", "public.image=Pictures"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(
            dry.lines == [
                "Inbox/a.png -> Pictures/a.png  public.png", "Inbox/b.png -> Pictures/b.png  public.png",
                "would move 2; the Inbox was kept: dry run",
            ])
        #expect(fixture.names("") == ["Inbox"])
        #expect(fixture.names("Inbox") == ["a.png", "b.png"])
    }

    @Test func jsonHasTheDestinationFolder() throws {
        let fixture = try Fixture()
        let tree = fixture.tree
        fixture.writeBytes(tree.inbox, "a.png", Self.png)
        tree.write(tree.inbox, "notes.txt", "hello")
        let run = try fixture.run(["--json", "--route", "public.image=Media/Pictures"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(try run.json() as? [String: Any])
        let items = try #require(json["items"] as? [[String: Any]])
        #expect(items.map { $0["folder"] as? String } == ["Media/Pictures", nil])
        #expect(items.map { $0["folder"] is NSNull } == [false, true])
        #expect(items.map { $0["destination"] as? String } == ["a.png", "notes.txt"])
        #expect(items.map { $0["type"] as? String } == ["public.png", "public.plain-text"])
    }

    static var systemMIME: Bool { FileManager.default.fileExists(atPath: "/usr/share/mime/mime.cache") }

    /// With the system's MIME data, a text file named x.png has a name its
    /// content contradicts: it is not routed by its name, and says why.
    @Test(.enabled(if: systemMIME, "needs shared-mime-info"))
    func anItemWhoseContentContradictsItsNameIsNotRoutedByIt() throws {
        let fixture = try Fixture()
        let tree = fixture.tree
        let system = ["XDG_DATA_DIRS": "/usr/share"]
        tree.write(tree.inbox, "x.png", "just some text\n")
        let run = try fixture.run(["--route", "public.image=Pictures"], environment: system)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.lines.first
                == "Inbox/x.png -> x.png  public.png  (not routed by its name: the content is public.plain-text (text/plain))"
        )
        #expect(fixture.names("") == ["x.png"])
        try FileManager.default.createDirectory(atPath: tree.inbox, withIntermediateDirectories: false)
        tree.write(tree.inbox, "y.png", "more text\n")
        let quarantined = try fixture.run(
            ["--json", "--route", "public.image=Pictures", "--quarantine", "Suspect"], environment: system)
        #expect(quarantined.status == 0, "\(quarantined.stderr)")
        let items = try #require((try quarantined.json() as? [String: Any])?["items"] as? [[String: Any]])
        #expect(items.first?["folder"] as? String == "Suspect")
        #expect(items.first?["notRoutedByName"] as? String == "the content is public.plain-text (text/plain)")
        #expect(fixture.names("Suspect") == ["y.png"])
        #expect(!FileManager.default.fileExists(atPath: tree.documents + "/Pictures"))
    }

    @Test func theDefaultRoutesFileIsReadUnlessNoRoutes() throws {
        let fixture = try Fixture()
        let tree = fixture.tree
        try "# mine\n\npng   My Pictures  \npublic.folder Folders\n".write(
            toFile: fixture.config + "/uti/routes", atomically: true, encoding: .utf8)
        fixture.writeBytes(tree.inbox, "a.png", Self.png)
        let ignored = try fixture.run(["--no-routes"])
        #expect(ignored.lines.first == "Inbox/a.png -> a.png  public.png", "\(ignored.stderr)")
        try FileManager.default.createDirectory(atPath: tree.inbox, withIntermediateDirectories: false)
        fixture.writeBytes(tree.inbox, "b.png", Self.png)
        let run = try fixture.run([])
        #expect(run.lines.first == "Inbox/b.png -> My Pictures/b.png  public.png", "\(run.stderr)")
        // --route comes first; a bad line of the file stops the run before anything moves.
        try FileManager.default.createDirectory(atPath: tree.inbox, withIntermediateDirectories: false)
        fixture.writeBytes(tree.inbox, "c.png", Self.png)
        let first = try fixture.run(["--dry-run", "--route", "public.data=Data"])
        #expect(first.lines.first == "Inbox/c.png -> Data/c.png  public.png", "\(first.stderr)")
        try "png Pictures\nnosuch.type.x Elsewhere\n".write(
            toFile: tree.root + "/bad-routes", atomically: true, encoding: .utf8)
        let bad = try fixture.run(["--routes", tree.root + "/bad-routes"])
        #expect(bad.status == 2)
        #expect(bad.stderr.hasPrefix("uti: \(tree.root)/bad-routes:2: TYPE \"nosuch.type.x\": "), "\(bad.stderr)")
        try "png ../Pictures\n".write(toFile: fixture.config + "/uti/routes", atomically: true, encoding: .utf8)
        let outside = try fixture.run([])
        #expect(outside.status == 2)
        #expect(
            outside.stderr.hasPrefix("uti: \(fixture.config)/uti/routes:1: the folder must not hold"),
            "\(outside.stderr)")
        let missing = try fixture.run(["--routes", tree.root + "/none"])
        #expect(missing.status == 2 && missing.stderr.contains("\(tree.root)/none"), "\(missing.stderr)")
        #expect(fixture.names("Inbox") == ["c.png"])
    }

    /// As root over another user's Documents, a route folder made is that
    /// user's (the owner and group of the folder it is made in), never root's.
    @Test(.enabled(if: geteuid() == 0, "needs root"))
    func aFolderMadeByRootIsTheOwnersOfDocuments() throws {
        let fixture = try Fixture()
        let tree = fixture.tree
        fixture.writeBytes(tree.inbox, "a.png", Self.png)
        let (user, group): (uid_t, gid_t) = (4261, 4262)
        for path in [tree.documents, tree.inbox, tree.inbox + "/a.png"] { #expect(chown(path, user, group) == 0) }
        let run = try fixture.run(["--route", "public.image=Media/Pictures"])
        #expect(run.status == 0, "\(run.stderr)")
        for path in [
            tree.documents + "/Media", tree.documents + "/Media/Pictures", tree.documents + "/Media/Pictures/a.png",
        ] {
            var info = stat()
            #expect(lstat(path, &info) == 0 && info.st_uid == user && info.st_gid == group, "\(path)")
        }
    }

    /// Across file systems, a routed item is copied into its folder, with
    /// no staging folder left behind.
    @Test(.enabled(if: InboxCommandTests.otherFileSystem, "needs /dev/shm on another file system"))
    func aRoutedItemIsCopiedAcrossFileSystems() throws {
        let fixture = try Fixture()
        let tree = fixture.tree
        let remote = try InboxTree(base: "/dev/shm")
        fixture.writeBytes(remote.inbox, "a.png", Self.png)
        try FileManager.default.createDirectory(atPath: remote.inbox + "/trip", withIntermediateDirectories: false)
        remote.write(remote.inbox + "/trip", "day1.txt", "x")
        let run = try fixture.run([
            "--inbox", remote.inbox, "--route", "public.image=Pictures", "--route", "public.folder=Folders",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines.contains("\(remote.inbox)/a.png -> Pictures/a.png  public.png  (copied across file systems)"))
        #expect(fixture.names("Pictures") == ["a.png"])
        #expect(fixture.names("Folders") == ["trip"])
        #expect(fixture.names("Folders/trip") == ["day1.txt"])
        #expect(!FileManager.default.fileExists(atPath: remote.inbox))
    }
}
