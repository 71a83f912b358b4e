import Foundation
import Glibc
import SystemBase
import TestSupport
import Testing

@testable import InboxProcessing

/// The route table: rules from `--route` and routes files, and where a run
/// puts items by them.
struct RouteTests {
    // MARK: Rules

    @Test func aRouteFolderIsARelativePathOfNames() throws {
        #expect(try RouteFolder("Pictures").description == "Pictures")
        #expect(try RouteFolder("Media//Videos/").components == [FileName("Media"), FileName("Videos")])
        for (bad, phrase) in [
            ("", "empty"), ("/abs", "no leading \"/\""), ("a/../b", "\".\" or \"..\""), ("./a", "\".\" or \"..\""),
            ("..", "\".\" or \"..\""), ("P\rpublic.text Q", "control character"), ("a\tb", "control character"),
            (Array(repeating: "a", count: 2100).joined(separator: "/"), "longer than 4095 bytes"),
        ] {
            #expect(throws: RouteError.self) { try RouteFolder(bad) }
            do { _ = try RouteFolder(bad) } catch {
                #expect(error.code == .badFolder && error.message.contains(phrase), "\(bad): \(error)")
            }
        }
    }

    @Test func aRouteOptionGivenAsBytesMakesItsFolderUnderThoseBytes() throws {
        let route = try InboxRoute.option(bytes: Array("public.image=P".utf8) + [0xFF] + Array("x".utf8))
        #expect(route.type == "public.image" && route.folder.bytes == [0x50, 0xFF, 0x78])
        #expect(route.origin.description == "--route 'public.image=P\\xffx'")
    }

    @Test func aByteOrderMarkStartsNoRule() throws {
        let routes = try InboxRoute.parseFile([0xEF, 0xBB, 0xBF] + Array("public.image Pictures\n".utf8), path: "r")
        #expect(routes.map(\.type) == ["public.image"] && routes.map(\.folder.description) == ["Pictures"])
    }

    @Test func aRouteOptionIsTypeEqualsFolder() throws {
        let route = try InboxRoute.option("public.image=My Pictures")
        #expect(route.type == "public.image" && route.folder.description == "My Pictures")
        #expect(route.origin.description == "--route 'public.image=My Pictures'")
        for (bad, phrase) in [("png", "give TYPE=FOLDER"), ("=Pictures", "the type is empty"), ("png=", "empty")] {
            do {
                _ = try InboxRoute.option(bad)
                Issue.record("\(bad) was taken")
            } catch {
                #expect(error.description.hasPrefix("--route '\(bad)': "), "\(error)")
                #expect(error.message.contains(phrase), "\(error)")
            }
        }
    }

    @Test func aRoutesFileHasOneRuleALineWithCommentsAndBlankLines() throws {
        let text = "# where things go\n\npng Pictures\n  public.movie \t Home Videos/2024  \r\n\t# indented comment\n"
        let routes = try InboxRoute.parseFile(Array(text.utf8), path: "routes")
        #expect(routes.map(\.type) == ["png", "public.movie"])
        #expect(routes.map(\.folder.description) == ["Pictures", "Home Videos/2024"])
        #expect(routes.map(\.origin) == [.file(path: "routes", line: 3), .file(path: "routes", line: 4)])
    }

    @Test func aBadLineOfARoutesFileIsNamedByFileAndLine() {
        for (text, line, phrase) in [
            ("png Pictures\nmov\n", 2, "no folder after the type \"mov\""),
            ("# x\n\npng /tmp\n", 3, "no leading \"/\""),
            ("png a/../b\n", 1, "\".\" or \"..\""),
            ("png ok\n\u{FF}\n", 2, "UTF-8"),
        ] {
            var bytes = Array(text.utf8)
            if text.contains("\u{FF}") { bytes = Array("png ok\n".utf8) + [0xFF, 0x0A] }
            do {
                _ = try InboxRoute.parseFile(bytes, path: "/home/me/.config/uti/routes")
                Issue.record("\(text) was taken")
            } catch {
                #expect(error.origin == .file(path: "/home/me/.config/uti/routes", line: line), "\(error)")
                #expect(error.description.hasPrefix("/home/me/.config/uti/routes:\(line): "), "\(error)")
                #expect(error.message.contains(phrase), "\(error)")
            }
        }
    }

    @Test func anUnknownTypeIsAnErrorNamingItsRule() throws {
        let routes = [
            try InboxRoute.option("png=Pictures"),
            InboxRoute(type: "nosuch", folder: try RouteFolder("X"), origin: .file(path: "r", line: 7)),
        ]
        do {
            _ = try InboxRoute.resolved(routes) { (query) throws(RouteError) -> String in
                guard query == "png" else { throw RouteError(.unknownType, "TYPE \"\(query)\": unknown") }
                return "public.png"
            }
            Issue.record("an unknown type was taken")
        } catch {
            #expect(error.code == .unknownType && error.description == "r:7: TYPE \"nosuch\": unknown")
        }
        let resolved = try InboxRoute.resolved([routes[0]]) { _ in "public.png" }
        #expect(resolved[0].identifier == "public.png" && resolved[0].type == "png")
    }

    @Test func theFirstMatchingRuleWinsAndAContradictedItemIsNotRoutedByItsName() throws {
        var routing = InboxRouting(
            routes: [
                InboxRoute(type: "public.png", folder: try RouteFolder("PNG"), origin: .option("a")),
                InboxRoute(type: "public.image", folder: try RouteFolder("Pictures"), origin: .option("b")),
            ], typeEntry: { _, _ in nil })
        let png = EntryTyping(identifier: "public.png", conformsTo: ["public.image", "public.data"])
        let jpeg = EntryTyping(identifier: "public.jpeg", conformsTo: ["public.image", "public.data"])
        let text = EntryTyping(identifier: "public.plain-text", conformsTo: ["public.text"])
        #expect(routing.decide(png).folder?.description == "PNG")
        #expect(routing.decide(png).route == 0)
        #expect(routing.decide(jpeg).folder?.description == "Pictures")
        #expect(routing.decide(text) == .init())
        #expect(routing.decide(nil) == .init())
        var lying = png
        lying.contradiction = "the content is public.plain-text"
        #expect(routing.decide(lying).folder == nil)
        #expect(routing.decide(lying).notRoutedByName == "the content is public.plain-text")
        routing.quarantine = try RouteFolder("Suspect")
        #expect(routing.decide(lying).folder?.description == "Suspect")
        #expect(throws: RouteError.self) {
            try InboxRouting(
                routes: [InboxRoute(type: "x", folder: try RouteFolder("Inbox/a"), origin: .option("x=Inbox/a"))],
                typeEntry: { _, _ in nil }
            ).checkOutsideInbox(named: "Inbox")
        }
    }

    // MARK: Runs

    /// Types entries by their extension, as a registry would by name: `png`
    /// an image, a folder a folder; content saying `lie` contradicts the name.
    static let typeByExtension: @Sendable (Int32, FileName) -> EntryTyping? = { folder, name in
        var info = stat()
        guard name.bytes.withCString({ fstatat(folder, $0, &info, AT_SYMLINK_NOFOLLOW) }) == 0 else { return nil }
        if info.isDirectory { return EntryTyping(identifier: "public.folder", conformsTo: ["public.directory"]) }
        let text = String(decoding: name.bytes, as: UTF8.self)
        guard text.hasSuffix(".png") else { return EntryTyping(identifier: "public.data", conformsTo: []) }
        var typing = EntryTyping(identifier: "public.png", conformsTo: ["public.image", "public.data"])
        let fd = name.bytes.withCString { openat(folder, $0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        if fd >= 0 {
            var buffer = [UInt8](repeating: 0, count: 3)
            if read(fd, &buffer, 3) == 3 && buffer == Array("lie".utf8) { typing.contradiction = "the content is text" }
            close(fd)
        }
        return typing
    }

    static func routing(quarantine: String? = nil) throws -> InboxRouting {
        InboxRouting(
            routes: [
                InboxRoute(type: "public.image", folder: try RouteFolder("Media/Pictures"), origin: .option("i")),
                InboxRoute(type: "public.folder", folder: try RouteFolder("Folders"), origin: .option("f")),
            ], quarantine: try quarantine.map { try RouteFolder($0) }, typeEntry: typeByExtension)
    }

    @Test func itemsGoToTheFolderOfTheirTypeMadeWhenMissingWithCounters() throws {
        let tree = Tree()
        tree.write(tree.inbox, "a.png", "png")
        tree.write(tree.inbox, "b.txt", "text")
        tree.write(tree.inbox, "c.png", "lie")
        mkdir(tree.inbox + "/trip", 0o755)
        try FileManager.default.createDirectory(
            atPath: tree.documents + "/Media/Pictures", withIntermediateDirectories: true)
        tree.write(tree.documents + "/Media/Pictures", "a.png", "old")
        let routing = try Self.routing()
        let (dry, _) = try run(
            processor(tree) {
                $0.routing = routing
                $0.dryRun = true
            })
        #expect(dry[FileName("a.png")]?.outcome == .wouldMove(to: FileName("a-1.png")))
        #expect(dry[FileName("a.png")]?.folder?.description == "Media/Pictures")
        #expect(dry[FileName("trip")]?.folder?.description == "Folders")
        #expect(!FileManager.default.fileExists(atPath: tree.documents + "/Folders"), "a dry run makes nothing")
        let (reports, summary) = try run(processor(tree) { $0.routing = routing })
        #expect(summary.moved == 4 && summary.isComplete)
        #expect(reports[FileName("a.png")]?.outcome == .moved(to: FileName("a-1.png"), copied: false))
        #expect(reports[FileName("a.png")]?.type == "public.png")
        #expect(reports[FileName("b.txt")]?.folder == nil)
        #expect(reports[FileName("c.png")]?.folder == nil)
        #expect(reports[FileName("c.png")]?.notRoutedByName == "the content is text")
        #expect(tree.textNames(tree.documents + "/Media/Pictures") == ["a-1.png", "a.png"])
        #expect(tree.textNames(tree.documents + "/Folders") == ["trip"])
        #expect(tree.textNames(tree.documents) == ["Folders", "Media", "b.txt", "c.png"])
    }

    @Test func aContradictedItemGoesToTheQuarantine() throws {
        let tree = Tree()
        tree.write(tree.inbox, "c.png", "lie")
        let (reports, _) = try run(processor(tree) { $0.routing = try? Self.routing(quarantine: "Suspect") })
        #expect(reports[FileName("c.png")]?.folder?.description == "Suspect")
        #expect(tree.textNames(tree.documents + "/Suspect") == ["c.png"])
    }

    /// A component of a route folder that is a symbolic link or a file is
    /// never followed or replaced: the item stays in the Inbox, and is said.
    @Test func aRouteFolderThroughALinkOrAFileIsRefusedAndNothingIsLost() throws {
        let tree = Tree()
        let elsewhere = tree.root + "/elsewhere"
        mkdir(elsewhere, 0o755)
        symlink(elsewhere, tree.documents + "/Media")
        tree.write(tree.documents, "Folders", "a file")
        tree.write(tree.inbox, "a.png", "png")
        mkdir(tree.inbox + "/trip", 0o755)
        for dryRun in [true, false] {
            let (reports, summary) = try run(
                processor(tree) {
                    $0.routing = try? Self.routing()
                    $0.dryRun = dryRun
                })
            #expect(summary.failed == 2)
            guard case .failed(let link) = reports[FileName("a.png")]?.outcome,
                case .failed(let file) = reports[FileName("trip")]?.outcome
            else {
                Issue.record("moved: \(reports)")
                continue
            }
            #expect(link.code == .destinationUnusable)
            #expect(link.message.hasSuffix("Media is a symbolic link, which is never followed"), "\(link)")
            #expect(file.message.hasSuffix("Folders is not a folder"), "\(file)")
        }
        #expect(tree.textNames(tree.inbox) == ["a.png", "trip"])
        #expect(tree.textNames(elsewhere) == [])
    }

    /// What a run killed midway left in a route folder (a staging folder)
    /// is found by its record, through the folder's path, device and inode,
    /// by any later run: one with no route there too.
    @Test func theStagingFolderOfARouteFolderIsRecovered() throws {
        let tree = Tree()
        let records = try Records(tree)
        let pictures = tree.documents + "/Media/Pictures"
        try FileManager.default.createDirectory(atPath: pictures, withIntermediateDirectories: true)
        mkdir(pictures + "/.uti-staging-dead", 0o700)
        tree.write(pictures + "/.uti-staging-dead", "1", "half")
        try records.staging(".uti-staging-dead", in: "Media/Pictures")
        tree.write(tree.inbox, "a.txt", "a")
        let (dry, drySummary) = try run(processor(tree) { $0.dryRun = true })
        #expect(dry.count == 1)
        #expect(
            drySummary.recoveryPlan == ["would remove .uti-staging-dead, the unfinished copies of an interrupted run"])
        _ = try run(processor(tree))
        #expect(tree.textNames(pictures) == [])
        #expect(records.names == [])
    }
}
