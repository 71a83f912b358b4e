import Foundation
import Glibc
import TestSupport
import Testing

/// The type `uti inbox` prints for an item is the item's own: what `uti
/// file` says of it where it ended up (or, in a dry run, where it is), in
/// the line and in JSON alike, whether the item was routed (typed before it
/// moved), moved into Documents, or copied across file systems. Names that
/// say one thing and content or kind that says another tell a type taken
/// from the name alone, or from another item, from the item's.
@Suite struct InboxPrintedTypeTests {
    /// The system's MIME database, which `uti file` and the inbox read alike.
    static let environment = ["XDG_DATA_DIRS": "/usr/share"]

    /// What the Inbox holds: name, and how to make it there.
    static func fill(_ inbox: String) throws {
        func write(_ name: String, _ bytes: [UInt8]) {
            FileManager.default.createFile(atPath: inbox + "/" + name, contents: Data(bytes))
        }
        // A JPEG named as a PNG: the name decides, the content check contradicts it.
        write("photo.png", [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0])
        // A PNG under a name no type claims: its content decides.
        write("unknown.zzq", [0x89] + Array("PNG\r\n".utf8) + [0x1A, 0x0A, 0, 0, 0, 0x0D] + Array("IHDR".utf8))
        write("empty.pdf", [])
        write("noext", Array("plain words\n".utf8))
        // A folder and a package named as documents, a link named as one.
        try FileManager.default.createDirectory(atPath: inbox + "/folder.pdf", withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: inbox + "/Thing.app", withIntermediateDirectories: false)
        write("Thing.app/inside.txt", Array("x".utf8))
        #expect(symlink("/etc/hostname", inbox + "/link.pdf") == 0)
    }

    /// Each moved or would-move item's type, from the lines and from JSON,
    /// against `uti file -b` of where it is now (`documents`, or the Inbox in a dry run).
    static func check(_ arguments: [String], documents: String, inbox: String, dryRun: Bool = false) throws {
        let lines = try Run(arguments, environment: environment)
        #expect(lines.status == 0, "\(lines.stderr)")
        var printed: [String: (place: String, type: String)] = [:]
        for line in lines.lines.dropLast() {
            // `Inbox/NAME -> [FOLDER/]DESTINATION  TYPE[  (...)]`
            let parts = line.components(separatedBy: "  ")
            let sides = parts[0].components(separatedBy: " -> ")
            try #require(sides.count == 2 && parts.count >= 2, "\(line)")
            printed[String(sides[0].split(separator: "/").last!)] = (sides[1], parts[1])
        }
        #expect(printed.count == 7, "\(lines.stdout)")
        for (name, item) in printed {
            let path = dryRun ? inbox + "/" + name : documents + "/" + item.place
            let file = try Run(["file", "-b", path], environment: environment)
            #expect(file.status == 0, "\(file.stderr)")
            #expect(item.type == file.lines.first, "\(name) -> \(item.place)")
        }
    }

    static func jsonTypes(_ run: Run) throws -> [String: String] {
        let json = try #require(try run.json() as? [String: Any])
        let items = try #require(json["items"] as? [[String: Any]])
        var types: [String: String] = [:]
        for item in items { types[item["name"] as? String ?? "?"] = item["type"] as? String ?? "null" }
        return types
    }

    @Test(arguments: [
        [String](),
        ["--route", "public.image=Pictures", "--route", "public.folder=Folders", "--route", "com.adobe.pdf=Papers"],
    ])
    func theTypePrintedIsTheItemsOwn(routes: [String]) throws {
        let tree = try InboxTree()
        try Self.fill(tree.inbox)
        try Self.check(
            ["inbox", tree.documents, "--settle", "0", "--dry-run"] + routes, documents: tree.documents,
            inbox: tree.inbox, dryRun: true)
        let dry = try Run(
            ["inbox", tree.documents, "--settle", "0", "--dry-run", "--json"] + routes, environment: Self.environment)
        let run = try Run(
            ["inbox", tree.documents, "--settle", "0", "--json", "--keep-inbox"] + routes,
            environment: Self.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.jsonTypes(run) == Self.jsonTypes(dry))
        // Back into the Inbox, and the lines this time.
        let again = try InboxTree()
        try Self.fill(again.inbox)
        try Self.check(
            ["inbox", again.documents, "--settle", "0"] + routes, documents: again.documents, inbox: again.inbox)
        #expect(try Self.jsonTypes(run)["photo.png"] == "public.png")
        #expect(try Self.jsonTypes(run)["unknown.zzq"] == "public.png")
        #expect(try Self.jsonTypes(run)["folder.pdf"] == "public.folder")
        #expect(try Self.jsonTypes(run)["link.pdf"] == "public.symlink")
        #expect(try Self.jsonTypes(run)["Thing.app"] == "com.apple.application-bundle")
    }

    /// Copied across file systems, each item is typed where its copy is.
    @Test(.enabled(if: InboxCommandTests.otherFileSystem, "needs /dev/shm on another file system"))
    func copiesAcrossFileSystemsAreTypedWhereTheyAre() throws {
        let tree = try InboxTree(), remote = try InboxTree(base: "/dev/shm")
        try Self.fill(remote.inbox)
        try Self.check(
            ["inbox", tree.documents, "--inbox", remote.inbox, "--settle", "0"], documents: tree.documents,
            inbox: remote.inbox)
    }
}
