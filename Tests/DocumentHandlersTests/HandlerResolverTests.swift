import Foundation
import Testing
import UniformTypes

@testable import DocumentHandlers

/// Bundles with every document-type key, desktop entries and mimeapps.list
/// files in a temporary XDG tree.
@Suite struct HandlerResolverTests {
    static func bundle(
        _ tree: HandlerTree, _ path: String, id: String, name: String, executable: String? = nil,
        types: String, declarations: String = ""
    ) {
        tree.write(
            path + "/Contents/Info.plist",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
              <key>CFBundleIdentifier</key><string>\(id)</string>
              <key>CFBundleName</key><string>\(name)</string>
              \(executable.map { "<key>CFBundleExecutable</key><string>\($0)</string>" } ?? "")
              <key>CFBundleDocumentTypes</key><array>\(types)</array>
              \(declarations)
            </dict></plist>
            """)
    }

    static func documentType(
        _ name: String, role: String? = nil, rank: String? = nil, contentTypes: [String] = [],
        extensions: [String] = [], mime: [String] = [], osTypes: [String] = []
    ) -> String {
        func list(_ key: String, _ values: [String]) -> String {
            values.isEmpty
                ? "" : "<key>\(key)</key><array>" + values.map { "<string>\($0)</string>" }.joined() + "</array>"
        }
        return "<dict><key>CFBundleTypeName</key><string>\(name)</string>"
            + (role.map { "<key>CFBundleTypeRole</key><string>\($0)</string>" } ?? "")
            + (rank.map { "<key>LSHandlerRank</key><string>\($0)</string>" } ?? "")
            + list("LSItemContentTypes", contentTypes) + list("CFBundleTypeExtensions", extensions)
            + list("CFBundleTypeMIMETypes", mime) + list("CFBundleTypeOSTypes", osTypes) + "</dict>"
    }

    /// Notes.app owns an exported type; Viewer.app views images; HexEdit.app
    /// is an Alternate editor for all data; Legacy.app uses the old keys.
    static func bundles(_ tree: HandlerTree) -> String {
        let apps = tree.root + "/Applications"
        bundle(
            tree, "Applications/Notes.app", id: "com.example.notes", name: "Notes", executable: "notes",
            types: documentType("Note", role: "Editor", rank: "Owner", contentTypes: ["com.example.note"])
                + documentType("Text", role: "Editor", rank: "Alternate", contentTypes: ["public.plain-text"]),
            declarations: """
                <key>UTExportedTypeDeclarations</key><array><dict>
                  <key>UTTypeIdentifier</key><string>com.example.note</string>
                  <key>UTTypeConformsTo</key><array><string>public.plain-text</string></array>
                  <key>UTTypeDescription</key><string>Example note</string>
                  <key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><array><string>note</string></array></dict>
                </dict></array>
                """)
        tree.write("Applications/Notes.app/Contents/MacOS/notes", "#!/bin/sh\n")
        chmod(apps + "/Notes.app/Contents/MacOS/notes", 0o755)
        bundle(
            tree, "Applications/Viewer.app", id: "com.example.viewer", name: "Viewer",
            types: documentType("Images", role: "Viewer", contentTypes: ["public.image"])
                + documentType("PNG", role: "Viewer", rank: "None", contentTypes: ["public.png"])
                + documentType("Icons", role: "None", contentTypes: ["com.microsoft.ico"]))
        bundle(
            tree, "Applications/HexEdit.app", id: "com.example.hexedit", name: "HexEdit",
            types: documentType("Anything", role: "Editor", rank: "Alternate", contentTypes: ["public.data"]))
        bundle(
            tree, "Applications/Legacy.app", id: "com.example.legacy", name: "Legacy",
            types: documentType(
                "Old", role: "Viewer", extensions: ["gif", "zzq"], mime: ["image/tiff"], osTypes: ["fold"])
                + documentType("Mixed", rank: "Owner", contentTypes: ["public.mp3"], extensions: ["wav"]))
        return apps
    }

    /// GLib's mimeapps test: the data folder's list makes myapp3 the
    /// default; the user's list adds myapp and myapp2 and makes myapp the
    /// default. Each list takes its turn (defaults, then additions) before
    /// the next, as the spec says and GLib answers: myapp, myapp2, myapp3.
    @Test func eachListTakesItsTurnAfterTheDefault() throws {
        let tree = HandlerTree()
        for name in ["myapp", "myapp2", "myapp3"] {
            tree.desktop("share/applications/\(name).desktop", name: name, mime: [])
        }
        tree.write("share/applications/mimeapps.list", "[Default Applications]\nimage/png=myapp3.desktop;\n")
        tree.write(
            "config/mimeapps.list",
            """
            [Default Applications]
            image/png=myapp.desktop;
            [Added Associations]
            image/png=myapp.desktop;myapp2.desktop;
            """)
        let resolver = try tree.resolver()
        #expect(resolver.ids("public.png") == ["myapp.desktop", "myapp2.desktop", "myapp3.desktop"])
        let png = resolver.resolve(resolver.registry.type(identifier: "public.png")!)
        #expect(png.candidates.map(\.claim.kind) == [.userDefault, .added, .userDefault])
        // Without the user's list, the data folder's default is the default again.
        try FileManager.default.removeItem(atPath: tree.configHome + "/mimeapps.list")
        #expect(try tree.resolver().ids("public.png") == ["myapp3.desktop"])
    }

    @Test func bundleRanksRolesAndExportedTypes() throws {
        let tree = HandlerTree()
        let resolver = try tree.resolver(bundles: [Self.bundles(tree)])
        // The exported type joined the registry: the extension "note" is known.
        let note = try #require(resolver.registry.type(filenameExtension: "note"))
        #expect(note.identifier == "com.example.note")
        let noteResolution = resolver.resolve(note)
        #expect(noteResolution.candidates.map(\.handler.id) == ["com.example.notes", "com.example.hexedit"])
        #expect(noteResolution.candidates[0].isExact)
        #expect(
            noteResolution.candidates[0].reason.hasPrefix(
                "declares com.example.note in LSItemContentTypes, Owner, Editor: "))
        #expect(
            noteResolution.candidates[1].reason.hasPrefix(
                "declares public.data (supertype) in LSItemContentTypes, Alternate, Editor"))

        // A supertype-only handler: Viewer declares public.image, not public.jpeg.
        let jpeg = resolver.resolve(resolver.registry.type(identifier: "public.jpeg")!)
        #expect(jpeg.candidates.map(\.handler.id) == ["com.example.viewer", "com.example.hexedit"])
        #expect(jpeg.candidates.map(\.distance) == [1, 2])
        #expect(jpeg.candidates[0].matchedType.identifier == "public.image")

        // Rank None and role None are never offered, and say why.
        let png = resolver.resolve(resolver.registry.type(identifier: "public.png")!)
        #expect(png.candidates.map(\.handler.id) == ["com.example.hexedit"])
        #expect(png.excluded.map(\.reason) == ["its rank for public.png is None"])
        let ico = resolver.resolve(resolver.registry.type(identifier: "com.microsoft.ico")!)
        #expect(!ico.candidates.map(\.handler.id).contains("com.example.viewer"))
        #expect(ico.excluded.first?.reason == "its role for com.microsoft.ico is None")

        // Role filters.
        #expect(resolver.ids("public.jpeg", role: .editor) == ["com.example.hexedit"])
        #expect(resolver.ids("public.jpeg", role: .viewer) == ["com.example.viewer", "com.example.hexedit"])
        #expect(resolver.ids("public.jpeg", role: .shell).isEmpty)
    }

    @Test func legacyKeysAndTheirPrecedence() throws {
        let tree = HandlerTree()
        let resolver = try tree.resolver(bundles: [Self.bundles(tree)])
        #expect(resolver.ids("com.compuserve.gif").first == "com.example.legacy")
        #expect(resolver.ids("public.tiff").first == "com.example.legacy")
        #expect(resolver.ids("public.folder") == ["com.example.legacy"])
        // An extension no type claims gives a dynamic type, and files with it match.
        let unknown = resolver.registry.dynamicType(tag: "zzq", tagClass: .filenameExtension, conformingTo: .data)
        #expect(resolver.resolve(unknown).candidates.first?.handler.id == "com.example.legacy")
        // With LSItemContentTypes present, CFBundleTypeExtensions is ignored (as on macOS).
        #expect(resolver.ids("public.mp3").first == "com.example.legacy")
        #expect(!resolver.ids("com.microsoft.waveform-audio").contains("com.example.legacy"))
        #expect(
            resolver.catalog.diagnostics.contains {
                $0.severity == .warning
                    && $0.message.hasPrefix("CFBundleTypeExtensions is ignored because LSItemContentTypes is given")
            })
    }

    @Test func desktopEntriesHiddenNoDisplayTryExecAndMasking() throws {
        let tree = HandlerTree()
        tree.desktop("share/applications/viewer.desktop", name: "Image Viewer", mime: ["image/png", "image/jpeg"])
        tree.desktop("share/applications/kde/paint.desktop", name: "Paint", mime: ["image/png"])
        tree.desktop(
            "share/applications/nodisplay.desktop", name: "Helper", mime: ["image/png"], extra: "NoDisplay=true")
        tree.desktop(
            "share/applications/gone.desktop", name: "Gone", mime: ["image/png"], extra: "TryExec=uti-no-such-program")
        tree.desktop(
            "share/applications/missing.desktop", name: "Missing", mime: ["image/png"], exec: "/nonexistent/bin %f")
        tree.desktop("share/applications/masked.desktop", name: "Masked", mime: ["image/png"])
        tree.desktop(
            "local-share/applications/masked.desktop", name: "Masked", mime: ["image/png"], extra: "Hidden=true")
        tree.desktop("share/applications/text.desktop", name: "Text", mime: ["text/plain"], exec: "/bin/true %F")
        let resolver = try tree.resolver()
        let png = resolver.resolve(resolver.registry.type(identifier: "public.png")!)
        #expect(png.candidates.map(\.handler.id) == ["kde-paint.desktop", "nodisplay.desktop", "viewer.desktop"])
        #expect(
            png.candidates[0].reason.hasSuffix(
                "declares image/png in MimeType: \(tree.share)/applications/kde/paint.desktop:5"))
        let reasons = Dictionary(uniqueKeysWithValues: png.excluded.map { ($0.id, $0.reason) })
        #expect(reasons["gone.desktop"]?.hasPrefix("TryExec program \"uti-no-such-program\" is not installed") == true)
        #expect(reasons["missing.desktop"]?.hasPrefix("Exec program \"/nonexistent/bin\" is not installed") == true)
        // The Hidden entry masks the one in the less important folder.
        #expect(reasons["masked.desktop"] == "Hidden=true in \(tree.localShare)/applications/masked.desktop")
        #expect(!png.candidates.contains { $0.handler.id == "masked.desktop" })
        // Supertype: a text editor opens source code through public.plain-text.
        let swift = resolver.resolve(resolver.registry.type(identifier: "public.swift-source")!)
        #expect(swift.candidates.map(\.handler.id) == ["text.desktop"])
        #expect(!swift.candidates[0].isExact)
        let command = try swift.candidates[0].handler.commands(for: ["/a.swift", "/b.swift"]).get()
        #expect(command == [["/bin/true", "/a.swift", "/b.swift"]])
    }

    @Test func mimeappsDefaultsAddedAndRemovedAssociations() throws {
        let tree = HandlerTree()
        tree.desktop("share/applications/viewer.desktop", name: "Viewer", mime: ["image/png"])
        tree.desktop("share/applications/paint.desktop", name: "Paint", mime: ["image/png"])
        tree.desktop("share/applications/editor.desktop", name: "Editor", mime: ["text/plain"])
        tree.desktop("share/applications/browser.desktop", name: "Browser", mime: ["text/html"])
        // The system removes paint from PNG but adds browser to it.
        tree.write(
            "share/applications/mimeapps.list",
            """
            [Added Associations]
            image/png=browser.desktop;
            [Removed Associations]
            image/png=paint.desktop;browser.desktop;
            """)
        // The desktop-specific list may only set defaults.
        tree.write(
            "config/gnome-mimeapps.list",
            "[Default Applications]\ntext/plain=browser.desktop;\n[Added Associations]\ntext/plain=viewer.desktop;\n")
        tree.write("config/mimeapps.list", "[Default Applications]\nimage/png=gone.desktop;paint.desktop;\n")
        let resolver = try tree.resolver(desktops: ["gnome"])
        let png = resolver.resolve(resolver.registry.type(identifier: "public.png")!)
        // The user's default beats everything, even an application the system removed;
        // a default that is not installed is passed over.
        #expect(png.candidates.map(\.handler.id) == ["paint.desktop", "browser.desktop", "viewer.desktop"])
        #expect(
            png.candidates[0].reason.hasPrefix(
                "set as the default for image/png in Default Applications: \(tree.configHome)/mimeapps.list:2"))
        #expect(png.candidates[1].claim.kind == .added)
        #expect(png.excluded.first { $0.id == "gone.desktop" }?.reason == "no desktop entry or app bundle has this ID")
        // Defaults from the desktop-specific list; its [Added Associations] is ignored with a warning.
        #expect(resolver.ids("public.plain-text") == ["browser.desktop", "editor.desktop"])
        #expect(
            resolver.catalog.diagnostics.contains {
                $0.message.contains("[Added Associations] is only read from mimeapps.list")
            })
        // Without the user's default, the removal hides paint, and the same file's
        // addition keeps browser.
        try FileManager.default.removeItem(atPath: tree.configHome + "/mimeapps.list")
        let again = try tree.resolver(desktops: ["gnome"])
        #expect(again.ids("public.png") == ["browser.desktop", "viewer.desktop"])
        #expect(again.resolve(again.registry.type(identifier: "public.png")!).excluded.map(\.id) == ["paint.desktop"])
    }

    @Test func removedAssociationsHideLessImportantSourcesOnly() throws {
        let tree = HandlerTree()
        tree.desktop("share/applications/viewer.desktop", name: "Viewer", mime: ["image/png"])
        tree.desktop("home-share/applications/mine.desktop", name: "Mine", mime: ["image/png"])
        tree.write(
            "local-share/applications/mimeapps.list", "[Removed Associations]\nimage/png=viewer.desktop;mine.desktop;\n"
        )
        let resolver = try tree.resolver()
        // mine.desktop is in a more important folder than the list, so it stays.
        #expect(resolver.ids("public.png") == ["mine.desktop"])
    }

    @Test func userDefaultsAreWrittenForOtherReadersAndKeepTheRest() throws {
        let tree = HandlerTree()
        let file = tree.configHome + "/mimeapps.list"
        tree.write(
            "config/mimeapps.list",
            "# mine\n[Added Associations]\nimage/png=a.desktop;\n\n[Default Applications]\nimage/png=old.desktop;\ntext/plain=vim.desktop;\n"
        )
        try UserDefaultsWriter.set("new.desktop", for: ["image/png", "image/x-png"], in: file)
        #expect(
            try String(contentsOfFile: file, encoding: .utf8)
                == "# mine\n[Added Associations]\nimage/png=a.desktop;\n\n[Default Applications]\ntext/plain=vim.desktop;\nimage/png=new.desktop;\nimage/x-png=new.desktop;\n"
        )
        try UserDefaultsWriter.set(nil, for: ["image/png", "image/x-png"], in: file)
        #expect(
            try String(contentsOfFile: file, encoding: .utf8)
                == "# mine\n[Added Associations]\nimage/png=a.desktop;\n\n[Default Applications]\ntext/plain=vim.desktop;\n"
        )
        // A new file, through a symbolic link that stays a link.
        tree.write("dotfiles/placeholder", "")
        let linked = tree.root + "/linkhome/mimeapps.list"
        try FileManager.default.createDirectory(atPath: tree.root + "/linkhome", withIntermediateDirectories: true)
        tree.write("dotfiles/mimeapps.list", "")
        try FileManager.default.createSymbolicLink(
            atPath: linked, withDestinationPath: tree.root + "/dotfiles/mimeapps.list")
        try UserDefaultsWriter.set("x.desktop", for: ["text/markdown"], in: linked)
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: linked) == tree.root + "/dotfiles/mimeapps.list")
        #expect(
            try String(contentsOfFile: linked, encoding: .utf8) == "[Default Applications]\ntext/markdown=x.desktop;\n")
        // A file it cannot read completely is left alone.
        tree.write("config/broken.list", "[Default Applications]\nnot a key line\n")
        #expect(throws: UserDefaultsWriter.Failure.self) {
            try UserDefaultsWriter.set("x.desktop", for: ["text/plain"], in: tree.configHome + "/broken.list")
        }
        #expect(
            try String(contentsOfFile: tree.configHome + "/broken.list", encoding: .utf8)
                == "[Default Applications]\nnot a key line\n")
        // The written default is read back and wins.
        tree.desktop("share/applications/x.desktop", name: "X", mime: ["text/html"])
        tree.desktop("share/applications/md.desktop", name: "MD", mime: ["text/markdown"])
        try UserDefaultsWriter.set("x.desktop", for: ["text/markdown"], in: file)
        let resolver = try tree.resolver()
        #expect(resolver.ids("net.daringfireball.markdown") == ["x.desktop", "md.desktop"])
    }

    /// A repeated `[Default Applications]` group is merged by readers, so the
    /// old key goes from every copy; CR LF endings stay, and added lines
    /// use them too.
    @Test func userDefaultsReplaceTheKeyInEveryRepeatedGroupAndKeepCRLF() throws {
        let tree = HandlerTree()
        let file = tree.configHome + "/mimeapps.list"
        tree.write(
            "config/mimeapps.list",
            "[Default Applications]\r\ntext/plain=a.desktop;\r\n# note\r\n\r\n[Added Associations]\r\ntext/plain=b.desktop;\r\n"
                + "[Default Applications]\r\nText/Plain = old.desktop;\r\nimage/png=c.desktop;\r\n")
        try UserDefaultsWriter.set("new.desktop", for: ["text/plain"], in: file)
        #expect(
            try String(contentsOfFile: file, encoding: .utf8)
                == "[Default Applications]\r\n# note\r\ntext/plain=new.desktop;\r\n\r\n[Added Associations]\r\ntext/plain=b.desktop;\r\n"
                + "[Default Applications]\r\nimage/png=c.desktop;\r\n")
        let written = try KeyFile.read(path: file)
        #expect(
            written.group("Default Applications")?.entries.map { "\($0.key)=\($0.rawValue)" } == [
                "text/plain=new.desktop;", "image/png=c.desktop;",
            ])
        try UserDefaultsWriter.set(nil, for: ["image/png"], in: file)
        #expect(
            try String(contentsOfFile: file, encoding: .utf8)
                == "[Default Applications]\r\n# note\r\ntext/plain=new.desktop;\r\n\r\n[Added Associations]\r\ntext/plain=b.desktop;\r\n"
                + "[Default Applications]\r\n")
    }

    @Test func namedBundlePathsMustExistAndBeBundles() throws {
        let tree = HandlerTree()
        tree.write("notabundle.txt", "x")
        tree.write("Broken.app/Contents/Info.plist", "<plist><dict><key>CFBundleName</key></dict></plist>")
        let set = AppBundleSet(
            searchPath: tree.searchPath(bundles: [
                tree.root + "/missing", tree.root + "/notabundle.txt", tree.root + "/Broken.app",
            ]))
        #expect(
            set.problems.map(\.message).prefix(2) == [
                "No such file or directory", "is neither an app bundle nor a folder of bundles",
            ])
        #expect(set.problems.last?.message.hasPrefix("malformed property list") == true)
        #expect(set.problems.count == 3)
        #expect(set.problems[2].file.hasSuffix("Broken.app/Contents/Info.plist"))
    }
}

/// Handler sources built to make the work explode stay bounded.
@Suite struct HandlerSourceAmplificationTests {
    /// The walk ends (each folder read once) whatever loops the links make;
    /// the time limit only stops a hung run (the test takes well under a
    /// second even on a busy machine).
    @Test(.timeLimit(.minutes(10)))
    func folderLinkLoopsAreReadOnceAndLinksOutAreNotFollowed() throws {
        let tree = HandlerTree()
        tree.desktop("share/applications/viewer.desktop", name: "Viewer", mime: ["text/plain"])
        tree.desktop("share/applications/sub/nested.desktop", name: "Nested", mime: ["text/plain"])
        for name in ["l1", "l2", "l3", "l4"] {
            try FileManager.default.createSymbolicLink(
                atPath: tree.share + "/applications/" + name, withDestinationPath: ".")
        }
        try FileManager.default.createSymbolicLink(atPath: tree.share + "/applications/root", withDestinationPath: "/")
        try FileManager.default.createSymbolicLink(
            atPath: tree.share + "/applications/sub/up", withDestinationPath: "..")
        // A link to another applications folder of the search path is followed.
        tree.desktop("local-share/applications/shared/tool.desktop", name: "Tool", mime: ["text/plain"])
        try FileManager.default.createSymbolicLink(
            atPath: tree.share + "/applications/linked", withDestinationPath: tree.localShare + "/applications/shared")
        let catalog = HandlerCatalog(searchPath: tree.searchPath())
        let ids = Set(catalog.desktopEntries.keys)
        #expect(ids.isSuperset(of: ["viewer.desktop", "sub-nested.desktop", "linked-tool.desktop"]))
        #expect(!ids.contains { $0.hasPrefix("l1-") || $0.hasPrefix("root-") || $0.contains("-up-") })
        #expect(
            catalog.diagnostics.contains {
                $0.file.hasSuffix("/root") && $0.message.contains("outside the applications folders")
            })
        #expect(catalog.diagnostics.contains { $0.message.contains("symbolic link loop") })
    }

    /// 160,000 added and removed associations are all read and matched.
    /// Matching them pairwise would take billions of comparisons; the time
    /// limit, ten times the slowest run measured on a machine busy with
    /// other builds (31 s), only stops such a run instead of judging speed.
    @Test(.timeLimit(.minutes(10)))
    func manyAddedAndRemovedAssociationsAreAllMatched() throws {
        let tree = HandlerTree()
        tree.desktop("share/applications/viewer.desktop", name: "Viewer", mime: ["text/plain"])
        var lines = ["[Added Associations]"] + (0..<80_000).map { "a/t\($0)=a\($0).desktop;" }
        lines +=
            ["[Removed Associations]"] + (0..<80_000).map { "a/t\($0)=o\($0).desktop;" } + [
                "text/plain=viewer.desktop;"
            ]
        tree.write("config/mimeapps.list", lines.joined(separator: "\n") + "\n")
        let resolver = try tree.resolver()
        #expect(resolver.catalog.claims.count > 160_000)
        // The removal in the same file still hides the declaration.
        #expect(resolver.ids("public.plain-text").isEmpty)
    }
}
