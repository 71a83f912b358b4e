import Foundation
import Testing

@testable import SharedMIMEInfo

@Suite struct SourceFormatTests {
    @Test(arguments: [Fixtures.fromXML, Fixtures.fromCache])
    func readsEveryPartOfThePackage(db: MIMEDatabase) {
        #expect(db.layers.count == 1)
        #expect(db.types.contains("application/x-uti-string"))
        #expect(db.types.contains("x-content/x-uti-card"))
        #expect(db.canonical("text/x-uti-old") == "text/x-uti-source")
        #expect(db.parents(of: "text/x-uti-source") == ["text/x-uti-base"])
        #expect(db.genericIcon(for: "application/x-uti-string") == "package-x-generic")
        #expect(db.comment(for: "application/x-uti-string") == "String magic")
        #expect(db.comment(for: "application/x-uti-string", language: "de_AT") == "Zeichenkettenmagie")
        #expect(db.comment(for: "application/x-uti-string", language: "fr") == nil)
        #expect(db.treeMagic.map(\.mimeType) == ["x-content/x-uti-card"])
    }

    @Test func cacheAndXMLGiveTheSameRules() {
        let xml = Fixtures.fromXML.layers[0], cache = Fixtures.fromCache.layers[0]
        func globs(_ l: MIMELayer) -> Set<String> {
            Set(l.globs.map { "\($0.pattern) \($0.mimeType) \($0.weight) \($0.caseSensitive)" })
        }
        #expect(globs(xml) == globs(cache))
        // Host-order values differ by design: see `hostOrderFollowsTheSourceAsGIOReadsIt`.
        func portable(_ l: MIMELayer) -> [MagicRule] { l.magic.filter { !$0.mimeType.contains("host") } }
        #expect(portable(xml) == portable(cache))
        #expect(xml.treeMagic == cache.treeMagic)
        #expect(xml.aliases == cache.aliases)
        #expect(xml.parents == cache.parents)
        #expect(Set(xml.types) == Set(cache.types))
        #expect(cache.format == .cache && xml.format == .packages)
    }

    @Test func appliesTheDTDDefaults() {
        let layer = Fixtures.fromXML.layers[0]
        #expect(layer.globs.first { $0.pattern == "*.ustr" }?.weight == 50)
        #expect(layer.magic.first { $0.mimeType == "application/x-uti-big16" }?.priority == 50)
    }

    @Test func reportsBadRulesWithTheirLinesAndKeepsTheRest() throws {
        var diagnostics: [Diagnostic] = []
        let layer = try #require(
            MIMELayerLoader.load(directory: Fixtures.path("broken/mime"), diagnostics: &diagnostics))
        let messages = diagnostics.map(\.description)
        #expect(messages.contains { $0.contains("bad.xml:5:") && $0.contains("weight must be 0–100") })
        #expect(messages.contains { $0.contains("bad.xml:6:") && $0.contains("int64") })
        #expect(messages.contains { $0.contains("bad.xml:7:") && $0.contains("offset \"5:2\"") })
        #expect(messages.contains { $0.contains("needs a type=\"media/subtype\"") })
        #expect(layer.globs.map(\.pattern) == ["*.ufine"])
    }

    @Test func rejectsDamagedCaches() throws {
        let good = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("compiled/mime/mime.cache")))
        var layer = MIMELayer(directory: "/x", format: .cache)
        var wrongVersion = [UInt8](good)
        wrongVersion[3] = 9
        #expect(throws: MIMECacheReader.Failure.self) {
            try MIMECacheReader.parse(bytes: wrongVersion, path: "v", into: &layer)
        }
        var pastEnd = [UInt8](good)
        pastEnd[4...7] = [0x7f, 0xff, 0xff, 0xf0]  // alias list offset
        #expect(throws: MIMECacheReader.Failure.self) {
            try MIMECacheReader.parse(bytes: pastEnd, path: "o", into: &layer)
        }
        // Every truncation is an error or a smaller reading, never a crash;
        // cutting into the tables is always an error.
        for length in 0..<good.count {
            var l = MIMELayer(directory: "/x", format: .cache)
            let failed = (try? MIMECacheReader.parse(bytes: Array(good.prefix(length)), path: "t", into: &l)) == nil
            if length < good.count / 2 { #expect(failed, "truncated to \(length) bytes") }
        }
    }

    @Test func staleCacheFallsBackToThePackages() throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir + "/mime/packages", withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: Fixtures.path("compiled/mime/mime.cache"), toPath: dir + "/mime/mime.cache")
            let package =
                #"<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info"><mime-type type="application/x-newer"><glob pattern="*.newer"/></mime-type></mime-info>"#
            try package.write(toFile: dir + "/mime/packages/newer.xml", atomically: false, encoding: .utf8)
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: 1000)], ofItemAtPath: dir + "/mime/mime.cache")
            var diagnostics: [Diagnostic] = []
            let layer = try #require(MIMELayerLoader.load(directory: dir + "/mime", diagnostics: &diagnostics))
            #expect(layer.format == .packages)
            #expect(layer.types == ["application/x-newer"])
            #expect(
                diagnostics.contains { $0.severity == .note && $0.message.contains("older than the package files") })
        }
    }
}

@Suite struct MagicTests {
    let db = Fixtures.fromCache

    /// Content and the type the fixture package's rules give it.
    static let samples: [([UInt8], String?)] = [
        (Array("USTR\0\u{1}\n".utf8), "application/x-uti-string"),
        (Array("xxxxxUsTr".utf8), "application/x-uti-string"),  // masked, inside the range 4:8
        (Array("xxxxxxxxxustr".utf8), "text/plain"),  // past the range: only text
        ([0, 0, 0xFE, 7], "application/x-uti-byte"),
        ([0, 0, 0xFE, 8], nil),  // nested match fails
        ([0x12, 0x34, 0, 0], "application/x-uti-big16"),
        ([0xCA, 0xFE, 0x77, 0x0D], "application/x-uti-big32"),  // mask ignores the third byte
        ([0x78, 0x56, 0, 0], "application/x-uti-little16"),
        ([0x04, 0x03, 0x02, 0x01], "application/x-uti-little32"),
        // Host-order values of the cache as GIO compares them: big-endian, as stored.
        ([0x9A, 0xBC, 0, 0], "application/x-uti-host16"),
        ([0xBC, 0x9A, 0, 0], nil),
        ([0x0A, 0x0B, 0x0C, 0x0D], "application/x-uti-host32"),
        (Array("NESTA1".utf8), "application/x-uti-nested"),
        (Array("NESTB".utf8), "application/x-uti-nested"),
        (Array("NESTA2".utf8), "text/plain"),  // children are AND, siblings OR
        ([0x00, 0x01, 0x02], nil),
        (Array("plain words\n".utf8), "text/plain"),
        (Array("caf\u{E9} \u{0C}".utf8), "text/plain"),
        ([0x61, 0x0B, 0x62], nil),  // a vertical tab is binary
    ]

    @Test(arguments: samples)
    func matchTypes(bytes: [UInt8], expected: String?) {
        #expect(db.sniffType(bytes) == expected)
        // The package read from its XML lays host-order values out in this machine's order.
        if !(expected ?? "").contains("host"), bytes != [0xBC, 0x9A, 0, 0] {
            #expect(Fixtures.fromXML.sniffType(bytes) == expected)
        }
    }

    /// Host-order values read from a package's XML are in this machine's
    /// order, as the specification says and as GIO compares the `magic`
    /// file compiled from it when there is no `mime.cache`; the cache
    /// stores them big-endian, and GIO compares those bytes as stored.
    @Test func hostOrderFollowsTheSourceAsGIOReadsIt() {
        let host16 = withUnsafeBytes(of: UInt16(0x9ABC)) { Array($0) } + [0, 0]
        let host32 = withUnsafeBytes(of: UInt32(0x0A0B_0C0D)) { Array($0) }
        #expect(Fixtures.fromXML.sniffType(host16) == "application/x-uti-host16")
        #expect(Fixtures.fromXML.sniffType(host32) == "application/x-uti-host32")
        #expect(db.sniffType([0x9A, 0xBC, 0, 0]) == "application/x-uti-host16")
        #expect(db.sniffType([0x0A, 0x0B, 0x0C, 0x0D]) == "application/x-uti-host32")
    }

    /// GIO reads the same compiled package to the same types: every sample,
    /// in a file without extension (which GIO types by content alone).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gio"), "gio is not installed"))
    func gioTypesEverySampleAlike() throws {
        try withTemporaryDirectory { folder in
            for (index, (bytes, expected)) in Self.samples.enumerated() {
                let path = "\(folder)/sample\(index)"
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                let gio = Process()
                gio.executableURL = URL(fileURLWithPath: "/usr/bin/gio")
                gio.arguments = ["info", "-a", "standard::content-type", path]
                gio.environment = [
                    "XDG_DATA_DIRS": Fixtures.path("compiled"), "XDG_DATA_HOME": folder + "/none",
                    "HOME": folder, "PATH": "/usr/bin:/bin",
                ]
                let pipe = Pipe()
                gio.standardOutput = pipe
                try gio.run()
                let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                gio.waitUntilExit()
                let said = output.split(separator: "\n").last.map { $0.split(separator: " ").last.map(String.init) }
                #expect(said == .some(expected ?? "application/octet-stream"), "\(bytes): \(output)")
            }
        }
    }

    @Test func priorityOrdersRules() {
        let rules = db.layers[0].magic
        #expect(rules.first?.mimeType == "application/x-uti-strong")
        #expect(zip(rules, rules.dropFirst()).allSatisfy { $0.priority >= $1.priority })
        #expect(db.sniffLength == 12)  // the string rule: offsets 4...8, four bytes
    }
}

@Suite struct NameTests {
    let db = Fixtures.fromCache

    @Test(
        arguments: [
            ("a.ustr", ["application/x-uti-string"]),
            ("A.USTR", ["application/x-uti-string"]),  // case-insensitive glob
            ("x.us", ["text/x-uti-source"]),  // case-sensitive glob
            ("x.US", ["text/x-uti-upper", "text/x-uti-source"]),  // weight 50 before 40
            ("x.Us", []),
            ("y.usrc.gz", ["text/x-uti-source"]),  // longest suffix wins
            ("utifile", ["application/x-uti-literal"]),
            // Not the literal (case-sensitive); the pattern UTIFILE.* does not match either.
            ("UTIFILE", ["application/x-uti-literal"]),
            ("UTIFILE.txt", ["application/x-uti-literal"]),
            ("libx.uti.3", ["application/x-uti-pattern"]),
            ("uti-notes", ["application/x-uti-pattern"]),
            ("z.ucon", ["application/x-uti-conflict-b", "application/x-uti-conflict-a"]),
            ("nothing", []),
        ] as [(String, [String])])
    func globs(name: String, expected: [String]) {
        let found = db.nameMatches(name).map(\.mimeType)
        if name == "UTIFILE" {
            #expect(found.isEmpty)
        } else {
            #expect(found == expected)
        }
        #expect(Fixtures.fromXML.nameMatches(name).map(\.mimeType) == found)
    }

    @Test func combinesNameAndContentLikeGIO() {
        // One name match: certain without reading.
        #expect(
            db.guess("a.ustr", nil)
                == .init(
                    mimeType: "application/x-uti-string", uncertain: false,
                    nameMatches: ["application/x-uti-string"], sniffed: nil, sniffedPriority: 0))
        // Two names, no data: the heavier one, uncertain.
        #expect(db.guess("z.ucon", nil).mimeType == "application/x-uti-conflict-b")
        #expect(db.guess("z.ucon", nil).uncertain)
        // Two names, content picks one.
        let picked = db.guess("z.ucon", Array("CONA".utf8))
        #expect(picked.mimeType == "application/x-uti-conflict-a" && !picked.uncertain)
        // A strong magic match beats the name.
        #expect(db.guess("z.ucon", Array("STRONG".utf8)).mimeType == "application/x-uti-strong")
        // No name match: the content.
        #expect(db.guess("unknown", Array("NESTB".utf8)).mimeType == "application/x-uti-nested")
        #expect(db.guess("unknown", [0, 1, 2]).mimeType == "application/octet-stream")
        #expect(db.guess("unknown", [0, 1, 2]).uncertain)
        // Text fallback breaks the tie for text types.
        #expect(db.guess("dir/", nil).mimeType == "inode/directory")
    }

    @Test func subclassesFollowTheSpecification() {
        #expect(db.isSubclass("text/x-uti-source", of: "text/x-uti-base"))
        #expect(db.isSubclass("text/x-uti-old", of: "text/x-uti-base"))
        #expect(db.isSubclass("text/x-uti-source", of: "text/plain"))
        #expect(db.isSubclass("image/jpeg", of: "application/octet-stream"))
        #expect(!db.isSubclass("inode/directory", of: "application/octet-stream"))
        #expect(db.isSubclass("image/jpeg", of: "image/*"))
        #expect(!db.isSubclass("text/x-uti-base", of: "text/x-uti-source"))
    }
}

@Suite struct LayerTests {
    @Test func userLayerOverridesTheSystem() {
        let env = [
            "XDG_DATA_HOME": Fixtures.path("user"),
            "XDG_DATA_DIRS": Fixtures.path("compiled").replacingOccurrences(of: "/compiled", with: "/compiled/..")
                + "/compiled",
        ]
        let path = MIMESearchPath.environment(env)
        #expect(path.directories.first == Fixtures.path("user") + "/mime")
        let db = MIMEDatabase.load(path)
        #expect(db.layers.count == 2)
        // glob-deleteall and magic-deleteall in the user layer.
        #expect(db.nameMatches("a.ustr").isEmpty)
        #expect(db.nameMatches("a.ustring").map(\.mimeType) == ["application/x-uti-string"])
        #expect(db.sniffType(Array("USTR\0\u{1}\n".utf8)) == nil)
        #expect(Fixtures.fromCache.sniffType(Array("USTR\0\u{1}\n".utf8)) == "application/x-uti-string")
        // The user layer's suffix match is found first.
        #expect(db.nameMatches("y.usrc").map(\.mimeType) == ["application/x-uti-user"])
        // System types the user did not touch remain.
        #expect(db.nameMatches("a.ubase").map(\.mimeType) == ["text/x-uti-base"])
    }

    @Test func defaultSearchPath() {
        #expect(
            MIMESearchPath.environment(["HOME": "/home/u"]).directories
                == ["/home/u/.local/share/mime", "/usr/local/share/mime", "/usr/share/mime"])
        #expect(
            MIMESearchPath.environment(["XDG_DATA_HOME": "relative", "XDG_DATA_DIRS": "/a:rel:/b/"]).directories
                == ["/a/mime", "/b/mime"])
    }

    @Test func treeMagicMatchesFolders() throws {
        try withTemporaryDirectory { dir in
            let db = Fixtures.fromCache
            #expect(db.treeTypes(ofDirectory: dir).isEmpty)
            try FileManager.default.createDirectory(atPath: dir + "/dcim", withIntermediateDirectories: true)
            #expect(db.treeTypes(ofDirectory: dir).isEmpty)  // empty folder, and no index file
            FileManager.default.createFile(atPath: dir + "/dcim/INDEX.UJPEG", contents: Data("x".utf8))
            #expect(db.treeTypes(ofDirectory: dir) == ["x-content/x-uti-card"])
        }
    }

    /// Tree-magic paths are split on Unicode scalars: a combining mark
    /// after a `/` stays in the next component, and `..` never climbs out.
    @Test func treeMagicPathsSplitOnScalars() {
        #expect(MIMEDatabase.resolve("a/\u{301}b/", under: "/r/", matchCase: true) == "/r/a/\u{301}b")
        #expect(MIMEDatabase.resolve("a/../b", under: "/r", matchCase: true) == nil)
        #expect(MIMEDatabase.resolve("a/\u{301}..", under: "/r", matchCase: true) == "/r/a/\u{301}..")
    }
}
