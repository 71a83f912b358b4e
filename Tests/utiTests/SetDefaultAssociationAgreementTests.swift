import Foundation
import TestSupport
import Testing

/// After `set-default --add` or `--remove`, GIO (`gio mime TYPE`, its
/// registered applications) and `uti open-in` offer the same applications
/// for every MIME type written: a wildcard or an abstract type is written as
/// the MIME types it stands for, never under a key only `uti` reads.
/// `--all-declared` writes a declared MIME type's aliases, which xdg-mime
/// reads as written; `uti defaults` marks the keys only `uti` reads. GIO
/// and xdg-mime are asked only when installed (`.ci/run` installs both).
@Suite struct SetDefaultAssociationAgreementTests {
    typealias Tree = SetDefaultAgreementTests.Tree
    static let gio = SetDefaultAgreementTests.gio
    static let xdgMIME = SetDefaultAgreementTests.xdgMIME

    /// The tree of `SetDefaultAgreementTests` with the `mimeinfo.cache`
    /// that `update-desktop-database` writes for its entries: GIO learns
    /// what a desktop entry declares from that file alone.
    static func makeTree(list: String? = nil) throws -> Tree {
        let tree = try Tree(list: list)
        try tree.folder.write(
            "data/applications/mimeinfo.cache",
            "[MIME Cache]\nimage/gif=myview.desktop;\nimage/jpeg=myview.desktop;\nimage/png=myview.desktop;\n"
                + "text/html=other.desktop;\n")
        return tree
    }

    /// The MIME types and aliases of the shared-mime-info database the
    /// tree reads: the types GIO knows.
    static let freedesktopTypes: Set<String> = {
        var names: Set<String> = []
        for file in ["/usr/share/mime/types", "/usr/share/mime/aliases"] {
            let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") {
                names.formUnion(line.split(separator: " ").map { $0.lowercased() })
            }
        }
        return names
    }()

    /// The keys of `group` in the user's list, each with its applications.
    static func entries(of group: String, in tree: Tree) throws -> [String: [String]] {
        var entries: [String: [String]] = [:]
        var inGroup = false
        for line in try String(contentsOfFile: tree.list, encoding: .utf8).split(separator: "\n") {
            if line.hasPrefix("[") {
                inGroup = line == "[\(group)]"
            } else if inGroup, let equals = line.firstIndex(of: "=") {
                entries[String(line[..<equals])] = line[line.index(after: equals)...].split(separator: ";").map(
                    String.init)
            }
        }
        return entries
    }

    /// The applications `uti open-in` offers for each of `keys`, in order.
    static func utiApplications(_ keys: [String], in tree: Tree) throws -> [Set<String>] {
        let run = try Run(["open-in", "--json"] + keys.flatMap { ["--type", $0] }, environment: tree.environment)
        let items = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]] ?? []
        return items.map { item in
            Set((item["candidates"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
        }
    }

    /// The applications `gio mime` registers for `mime`.
    static func gioApplications(_ mime: String, in tree: Tree) throws -> Set<String> {
        let lines = try tree.run(gio!, ["mime", mime]).stdout.split(separator: "\n")
        var registered: Set<String> = []
        var inRegistered = false
        for line in lines {
            if line.hasPrefix("\t") {
                if inRegistered { registered.insert(line.trimmingCharacters(in: .whitespaces)) }
            } else {
                inRegistered = line.hasPrefix("Registered applications")
            }
        }
        return registered
    }

    /// The keys a run names: "SUBJECT: APP is added (KEY, KEY) in FILE".
    static func keysNamed(_ stdout: String) -> [String] {
        let named = stdout.split(separator: "(", maxSplits: 1).last?.split(separator: ")").first ?? ""
        return named.components(separatedBy: ", ")
    }

    struct Case: Sendable, CustomTestStringConvertible {
        /// `--add` or `--remove`.
        var option: String
        var app: String
        var subject: String
        /// The list before the run.
        var list: String?
        /// Keys the run must write (it may write more).
        var keys: [String]
        /// Keys the run must not write.
        var absent: [String] = []
        var testDescription: String { "set-default \(option) \(app) \(subject)" }
    }

    static let cases = [
        // Every MIME type the wildcard covers, not only those myview declares.
        Case(
            option: "--add", app: "myview.desktop", subject: "image/*", keys: ["image/png", "image/tiff", "image/bmp"]),
        Case(option: "--add", app: "other.desktop", subject: "public.image", keys: ["image/png", "image/svg+xml"]),
        // Where myview is offered: what it declares, aliases too; no other image type.
        Case(
            option: "--remove", app: "myview.desktop", subject: "image/*",
            keys: ["image/png", "image/jpeg", "image/pjpeg", "image/gif"], absent: ["image/tiff"]),
        Case(
            option: "--remove", app: "myview.desktop", subject: "public.image",
            keys: ["image/png", "image/jpeg", "image/gif"], absent: ["image/tiff"]),
        // An application added for a type it does not declare is removed from it.
        Case(
            option: "--remove", app: "other.desktop", subject: "image/*",
            list: "[Added Associations]\nimage/tiff=other.desktop;\n", keys: ["image/tiff"], absent: ["image/png"]),
    ]

    @Test(arguments: cases)
    func everyKeyWrittenOffersTheApplicationAsGIODoes(_ given: Case) throws {
        let tree = try Self.makeTree(list: given.list)
        let run = try Run(["set-default", given.option, given.app, given.subject], environment: tree.environment)
        #expect(run.status == 0, "\(run.stderr)")
        let written = Self.keysNamed(run.stdout)
        for key in given.keys { #expect(written.contains(key), "\(key) is not written: \(run.stdout)") }
        for key in given.absent { #expect(!written.contains(key), "\(key) is written: \(run.stdout)") }
        let adding = given.option == "--add"
        let group = try Self.entries(of: adding ? "Added Associations" : "Removed Associations", in: tree)
        // Nothing but MIME types: no wildcard, no identifier.
        #expect(Set(group.keys) == Set(written))
        let offered = try Self.utiApplications(written, in: tree)
        #expect(offered.count == written.count)
        for (key, apps) in zip(written, offered) {
            #expect(key.contains("/") && !key.contains("*"), "\(key) is not a MIME type")
            #expect(group[key]?.first == given.app, "\(key)")
            #expect(apps.contains(given.app) == adding, "uti open-in --type \(key): \(apps.sorted())")
            guard Self.gio != nil else { continue }
            let registered = try Self.gioApplications(key, in: tree)
            #expect(registered.contains(given.app) == adding, "gio mime \(key): \(registered.sorted())")
            // Every application, for a type GIO knows (uti also types image/jpg, which it does not).
            if Self.freedesktopTypes.contains(key.lowercased()) {
                #expect(registered == apps, "gio mime \(key)")
            }
        }
    }

    /// GIO itself: after `--remove` of a wildcard, it registers the
    /// application for none of the types it declares.
    @Test(.enabled(if: gio != nil, "gio is not installed"))
    func gioNoLongerRegistersARemovedApplication() throws {
        let tree = try Self.makeTree()
        for key in ["image/png", "image/jpeg", "image/gif"] {
            #expect(try Self.gioApplications(key, in: tree) == ["myview.desktop"])
        }
        let run = try Run(["set-default", "--remove", "myview.desktop", "image/*"], environment: tree.environment)
        #expect(run.status == 0, "\(run.stderr)")
        for key in ["image/png", "image/jpeg", "image/pjpeg", "image/gif"] {
            #expect(try Self.gioApplications(key, in: tree).isEmpty, "gio mime \(key)")
        }
        #expect(
            try Run(["set-default", "--add", "myview.desktop", "image/*"], environment: tree.environment).status == 0)
        for key in ["image/png", "image/tiff", "image/bmp"] {
            #expect(try Self.gioApplications(key, in: tree) == ["myview.desktop"], "gio mime \(key)")
        }
    }

    @Test func anAssociationWithNoMIMETypeToWriteIsRefused() throws {
        let tree = try Tree(list: "[Added Associations]\ntext/plain=other.desktop;\n")
        let before = try String(contentsOfFile: tree.list, encoding: .utf8)
        let cases: [([String], String)] = [
            (
                ["set-default", "--remove", "myview.desktop", "audio/*"],
                "uti: audio/*: myview.desktop is offered for none of the MIME types of every audio/ type; "
                    + "nothing to remove"
            ),
            (
                ["set-default", "--add", "myview.desktop", ".zzqq"],
                "has no MIME type, nor has any type under it; mimeapps.list keys are MIME types"
            ),
            (
                ["set-default", "--remove", "nosuch.desktop", "image/*"],
                "uti: nosuch.desktop: no desktop entry or app bundle has this ID"
            ),
        ]
        for (arguments, message) in cases {
            let run = try Run(arguments, environment: tree.environment)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stderr.contains(message), "\(run.stderr)")
            #expect(try String(contentsOfFile: tree.list, encoding: .utf8) == before)
        }
    }

    /// `--all-declared` writes a declared MIME type with its aliases, as
    /// `set-default TYPE` does, and every reader agrees on each.
    @Test func allDeclaredWritesTheAliasesOfADeclaredMIMEType() throws {
        let tree = try Tree()
        try tree.folder.write(
            "data/applications/reader.desktop",
            "[Desktop Entry]\nType=Application\nName=Reader\nExec=/bin/true %f\nMimeType=application/pdf;\n")
        let run = try Run(["set-default", "--all-declared", "reader.desktop"], environment: tree.environment)
        #expect(run.status == 0, "\(run.stderr)")
        let keys = try tree.defaultKeys()
        for key in ["application/pdf", "application/x-pdf"] {
            #expect(keys.contains(key), "\(keys)")
            #expect(try tree.utiDefault(key) == "reader.desktop", "uti open-in --type \(key)")
            if Self.gio != nil { #expect(try tree.gioDefault(key) == "reader.desktop", "gio mime \(key)") }
        }
        #expect(keys.first == "application/pdf")
    }

    @Test(.enabled(if: xdgMIME != nil, "xdg-mime is not installed"))
    func xdgMIMEReadsTheAliasAllDeclaredWrites() throws {
        let tree = try Tree()
        try tree.folder.write(
            "data/applications/reader.desktop",
            "[Desktop Entry]\nType=Application\nName=Reader\nExec=/bin/true %f\nMimeType=application/pdf;\n")
        #expect(try tree.xdgMIMEDefault("application/x-pdf") != "reader.desktop")
        let run = try Run(["set-default", "--all-declared", "reader.desktop"], environment: tree.environment)
        #expect(run.status == 0, "\(run.stderr)")
        for key in ["application/pdf", "application/x-pdf"] {
            #expect(try tree.xdgMIMEDefault(key) == "reader.desktop", "xdg-mime query default \(key)")
        }
    }

    /// `uti defaults` marks the keys only uti reads, in text and JSON.
    @Test func defaultsMarksTheKeysOnlyUTIReads() throws {
        let tree = try Tree(list: SetDefaultAgreementTests.formerList + "image/png=myview.desktop;\n")
        let run = try Run(["defaults"], environment: tree.environment)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let mark = "    only uti reads this key; set it again to write MIME type keys"
        for key in ["image/*", "public.image"] {
            let index = try #require(lines.firstIndex { $0.hasPrefix(key + " ") })
            #expect(lines.indices.contains(index + 1) && lines[index + 1] == mark, "\(run.stdout)")
        }
        let png = try #require(lines.firstIndex { $0.hasPrefix("image/png ") })
        #expect(!lines.indices.contains(png + 1) || lines[png + 1] != mark)
        let json = try Run(["defaults", "--json"], environment: tree.environment)
        let items = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]] ?? []
        let marks = Dictionary(
            uniqueKeysWithValues: items.map { ($0["key"] as? String ?? "", $0["onlyUTIReads"] as? Bool) })
        #expect(marks == ["image/*": true, "public.image": true, "image/png": false])
    }
}
