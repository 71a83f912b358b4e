import Foundation
import Testing
import UniformTypes

@testable import DocumentHandlers

/// URL schemes: how they are read, which applications claim them, the
/// commands that open a URL, and defaults by role.
@Suite struct URLSchemeTests {
    @Test func schemesAreReadAsRFC3986AndGIODo() throws {
        #expect(URLScheme("HTTPS")?.name == "https")
        #expect(URLScheme("svn+ssh")?.name == "svn+ssh")
        #expect(URLScheme("x-my.app")?.handlerMIMEType == "x-scheme-handler/x-my.app")
        for bad in ["", "1http", "my scheme", "ht_tp", "é", "-x"] { #expect(URLScheme(bad) == nil, "\(bad)") }
        #expect(URLScheme(urlString: "mailto:me@example.org")?.name == "mailto")
        #expect(URLScheme(urlString: "/tmp/a:b") == nil)
        #expect(URLScheme(urlString: "notes.txt") == nil)
        #expect(URLScheme(handlerMIMEType: "X-Scheme-Handler/HTTPS")?.name == "https")
        #expect(URLScheme(handlerMIMEType: "x-scheme-handler/") == nil)
        #expect(URLScheme(handlerMIMEType: "text/plain") == nil)
    }

    @Test func commandLineArgumentsAreFilesOrURLs() throws {
        func read(_ text: String) throws -> OpenTarget {
            try OpenTarget.commandLineArgument(text, directory: "/home/me")
        }
        #expect(try read("notes.txt") == .file("/home/me/notes.txt"))
        // Normalized by its text, as GIO gives it: no `.` or `..` left.
        #expect(try read("./a:b") == .file("/home/me/a:b"))
        #expect(try read("../x/./y//z") == .file("/home/x/y/z"))
        #expect(try read("/srv/x") == .file("/srv/x"))
        #expect(try read("https://example.org/a b") == .url("https://example.org/a b", scheme: URLScheme("https")!))
        #expect(try read("file:///tmp/a%20b%C3%A9.txt") == .file("/tmp/a bé.txt"))
        #expect(try read("FILE://localhost/etc/hosts") == .file("/etc/hosts"))
        #expect(try read("file:/etc/hosts#top") == .file("/etc/hosts"))
        for (bad, reason) in [
            ("file://server/share/x", "host \"server\""), ("file:///a%2", "two hexadecimal digits"),
            ("file:///a%00b", "NUL"), ("file:///%FF", "not UTF-8"), ("file:relative", "absolute path"),
        ] {
            #expect {
                _ = try read(bad)
            } throws: { error in
                "\(error)".contains(reason)
            }
        }
    }

    @Test func urlsGoToURLCodesAndAreRefusedByFileCodes() throws {
        let url = OpenTarget.url("https://example.org/?q=a b", scheme: URLScheme("https")!)
        #expect(
            try ExecCommand("browser --new %u").commands(opening: [url]) == [
                ["browser", "--new", "https://example.org/?q=a b"]
            ])
        #expect(
            try ExecCommand("browser %U").commands(opening: [.file("/a b"), url])
                == [["browser", "file:///a%20b", "https://example.org/?q=a b"]])
        #expect(try ExecCommand("settings").commands(opening: [url]) == [["settings"]])
        for exec in ["view %f", "view %F"] {
            #expect {
                _ = try ExecCommand(exec).commands(opening: [.file("/a"), url])
            } throws: { error in
                "\(error)".contains("takes local files") && "\(error)".contains("https://example.org/?q=a b")
            }
        }
        // Files alone still work with file codes.
        #expect(try ExecCommand("view %F").commands(opening: [.file("/a")]) == [["view", "/a"]])
    }

    /// Browsers and mail clients as desktop entries and bundles: the scheme
    /// claims, a default, a removal, and a bundle's ranked URL types.
    static func tree() -> HandlerTree {
        let tree = HandlerTree()
        tree.desktop(
            "share/applications/firefox.desktop", name: "Firefox",
            mime: ["text/html", "x-scheme-handler/http", "x-scheme-handler/https"], exec: "/bin/true %u")
        tree.desktop(
            "share/applications/chromium.desktop", name: "Chromium",
            mime: ["X-Scheme-Handler/HTTPS", "x-scheme-handler/mailto"], exec: "/bin/true %U")
        tree.desktop(
            "share/applications/mutt.desktop", name: "Mutt", mime: ["x-scheme-handler/mailto"], exec: "/bin/true %u")
        tree.desktop("share/applications/hex.desktop", name: "Hex", mime: ["application/octet-stream"])
        tree.write(
            "config/mimeapps.list",
            "[Default Applications]\nx-scheme-handler/mailto=mutt.desktop;\n"
                + "[Removed Associations]\nx-scheme-handler/mailto=chromium.desktop;\n")
        HandlerResolverTests.bundle(tree, "Applications/Mail.app", id: "com.example.mail", name: "Mail", types: "")
        tree.write(
            "Applications/Mail.app/Contents/Info.plist",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
              <key>CFBundleIdentifier</key><string>com.example.mail</string>
              <key>CFBundleName</key><string>Mail</string>
              <key>CFBundleURLTypes</key><array>
                <dict><key>CFBundleURLName</key><string>Mail</string><key>CFBundleTypeRole</key><string>Viewer</string>
                  <key>LSHandlerRank</key><string>Owner</string>
                  <key>CFBundleURLSchemes</key><array><string>MAILTO</string><string>x-mail</string></array></dict>
                <dict><key>CFBundleURLName</key><string>Web</string><key>CFBundleTypeRole</key><string>Viewer</string>
                  <key>LSHandlerRank</key><string>Alternate</string>
                  <key>CFBundleURLSchemes</key><array><string>https</string></array></dict>
              </array>
            </dict></plist>
            """)
        return tree
    }

    @Test func schemeHandlersComeFromEntriesListsAndBundles() throws {
        let tree = Self.tree()
        let resolver = try tree.resolver(bundles: [tree.root + "/Applications"])
        func ids(_ scheme: String) -> [String] {
            resolver.resolve(URLScheme(scheme)!.type(in: resolver.registry)).candidates.map(\.handler.id)
        }
        // Desktop entries in GLib's order, then the bundle (a later source).
        #expect(ids("https") == ["chromium.desktop", "firefox.desktop", "com.example.mail"])
        // The default first; the removal hides Chromium; the bundle is an Owner of its source.
        #expect(ids("mailto") == ["mutt.desktop", "com.example.mail"])
        #expect(ids("x-mail") == ["com.example.mail"])
        // A scheme's type stands alone: an application for all data is not offered for it.
        #expect(ids("ssh").isEmpty)
        let https = URLScheme("https")!.type(in: resolver.registry)
        #expect(https.identifier == resolver.registry.dynamicType(tag: "https", tagClass: .urlScheme).identifier)
        #expect(resolver.supertypeChain(of: https).map(\.identifier) == [https.identifier])
        #expect(resolver.catalog.claimedSchemes == ["http", "https", "mailto", "x-mail"])
        // The application's view: every claim, with whether it is the default.
        let claims = resolver.claims(of: "firefox.desktop")
        #expect(claims.map(\.claim.typeName) == ["text/html", "x-scheme-handler/http", "x-scheme-handler/https"])
        #expect(claims.map(\.isDefault) == [true, true, false])
        #expect(claims[2].defaultHandlerID == "chromium.desktop")
        let mail = resolver.claims(of: "com.example.mail")
        #expect(mail.map(\.claim.typeName) == ["mailto", "x-mail", "https"])
        #expect(mail.map(\.claim.rank) == [.owner, .owner, .alternate])
    }

    @Test func roleDefaultsAreWrittenApartAndCountOnlyForTheirRole() throws {
        let tree = HandlerTree()
        HandlerResolverTests.bundle(
            tree, "Applications/Writer.app", id: "com.example.writer", name: "Writer",
            types: HandlerResolverTests.documentType("Text", role: "Editor", contentTypes: ["public.plain-text"]))
        HandlerResolverTests.bundle(
            tree, "Applications/Reader.app", id: "com.example.reader", name: "Reader",
            types: HandlerResolverTests.documentType("Text", role: "Viewer", contentTypes: ["public.plain-text"])
                + HandlerResolverTests.documentType("Preview", role: "QLGenerator", contentTypes: ["public.png"]))
        tree.desktop("share/applications/vim.desktop", name: "Vim", mime: ["text/plain"])
        let file = tree.configHome + "/mimeapps.list"
        tree.write("config/mimeapps.list", "[Default Applications]\ntext/plain=vim.desktop;\n")
        try UserDefaultsWriter.apply(
            [
                .init(keys: ["text/plain"], role: .editor, handlerID: "com.example.writer"),
                .init(keys: ["text/plain"], role: .viewer, handlerID: "com.example.reader"),
                .init(keys: ["x-scheme-handler/https"], handlerID: "firefox.desktop"),
            ], in: file)
        #expect(
            try String(contentsOfFile: file, encoding: .utf8) == """
                [Default Applications]
                text/plain=vim.desktop;
                x-scheme-handler/https=firefox.desktop;

                [X-UTI Default Editor]
                text/plain=com.example.writer;

                [X-UTI Default Viewer]
                text/plain=com.example.reader;

                """)
        let resolver = try tree.resolver(bundles: [tree.root + "/Applications"])
        #expect(resolver.ids("public.plain-text").first == "vim.desktop")
        #expect(resolver.ids("public.plain-text", role: .editor) == ["com.example.writer"])
        #expect(resolver.ids("public.plain-text", role: .viewer).prefix(2) == ["com.example.reader", "vim.desktop"])
        // A Quick Look generator is never offered.
        let png = resolver.resolve(resolver.registry.type(identifier: "public.png")!)
        #expect(!png.candidates.contains { $0.handler.id == "com.example.reader" })
        #expect(png.excluded.contains { $0.id == "com.example.reader" && $0.reason.contains("QLGenerator") })
        // Clearing one role leaves the others.
        try UserDefaultsWriter.set(nil, for: ["text/plain"], role: .editor, in: file)
        #expect(
            try String(contentsOfFile: file, encoding: .utf8).contains(
                "[X-UTI Default Editor]\n\n[X-UTI Default Viewer]\ntext/plain=com.example.reader;"))
    }

    /// A list saved on Windows (a byte-order mark, CR LF line ends) reads as
    /// the same lines.
    @Test func settingsFilesWithABOMAndCRLFReadAsTheirLines() {
        let windows = DefaultSettings(
            bytes: Array("\u{FEFF}md vim.desktop\r\ntxt vim.desktop viewer\r\n".utf8), file: "w")
        #expect(windows.problems.isEmpty, "\(windows.problems)")
        #expect(
            windows.lines == [
                .init(subject: "md", app: "vim.desktop", role: nil, number: 1),
                .init(subject: "txt", app: "vim.desktop", role: .viewer, number: 2),
            ])
    }

    @Test func settingsFilesNameEveryBadLine() throws {
        let text =
            "# defaults\n\nmd vim.desktop\nhttps: firefox.desktop all\npublic.plain-text com.example.writer Editor\n"
            + "onlyone\npng a.desktop viewer extra\ntxt b.desktop owner\n"
        let settings = DefaultSettings(bytes: Array(text.utf8), file: "s.txt")
        #expect(
            settings.lines == [
                .init(subject: "md", app: "vim.desktop", role: nil, number: 3),
                .init(subject: "https:", app: "firefox.desktop", role: nil, number: 4),
                .init(subject: "public.plain-text", app: "com.example.writer", role: .editor, number: 5),
            ])
        #expect(
            settings.problems.map(\.description) == [
                "s.txt:6: error: expected TYPE-OR-SCHEME APP [ROLE], found 1 field",
                "s.txt:7: error: expected TYPE-OR-SCHEME APP [ROLE], found 4 fields",
                "s.txt:8: error: role \"owner\": use viewer, editor, shell or all",
            ])
        #expect(
            DefaultSettings(bytes: [0x6d, 0x64, 0x20, 0xff], file: "s").problems.map(\.description) == [
                "s:1: error: the file is not UTF-8 text"
            ])
    }

    /// What `uti validate` reports about document and URL types.
    @Test func documentAndURLTypesAreChecked() throws {
        let tree = HandlerTree()
        HandlerResolverTests.bundle(
            tree, "Bad.app", id: "com.example.bad", name: "Bad",
            types: HandlerResolverTests.documentType(
                "Pictures", role: "Edit", rank: "Owners",
                contentTypes: ["public.imgae", "image/png", "com.example.elsewhere"],
                extensions: ["png"])
                + HandlerResolverTests.documentType(
                    "Lower", role: "viewer", rank: "alternate", contentTypes: ["public.png"])
                + "<dict><key>LSHandlerRanks</key><string>Owner</string><key>LSItemContentTypes</key><string>public.png</string></dict>",
            declarations: """
                <key>CFBundleURLTypes</key><array><dict><key>CFBundleURLSchemes</key><array>
                  <string>https://</string><string>my scheme</string><string>ok</string></array></dict>
                  <dict><key>CFBundleTypeRole</key><string>QLGenerator</string></dict></array>
                """)
        let bundle = try AppBundle(path: tree.root + "/Bad.app")
        let messages = (bundle.diagnostics + bundle.contentTypeDiagnostics(registry: TypeRegistry.bundled))
            .map { "\($0.severity.rawValue): \($0.message)" }
        #expect(
            messages == [
                "error: CFBundleTypeRole \"Edit\" is not one of Editor, Viewer, Shell, None or QLGenerator (did you mean Editor?); Viewer is used",
                "error: LSHandlerRank \"Owners\" is not one of Owner, Default, Alternate or None (did you mean Owner?); Default is used",
                "warning: CFBundleTypeExtensions is ignored because LSItemContentTypes is given; declare the types and list them in LSItemContentTypes",
                "warning: CFBundleTypeRole \"viewer\" is spelled \"Viewer\" by Apple",
                "warning: LSHandlerRank \"alternate\" is spelled \"Alternate\" by Apple",
                "warning: CFBundleDocumentTypes entry: unknown key LSHandlerRanks, which is ignored (did you mean LSHandlerRank?)",
                "warning: URL type has no CFBundleTypeRole (Editor, Viewer, Shell or None); Viewer is used",
                "error: CFBundleURLSchemes: \"https://\" is a URL; write the scheme alone: \"https\"",
                "error: CFBundleURLSchemes: \"my scheme\" is not a URL scheme (a letter, then letters, digits, \"+\", \"-\" or \".\")",
                "error: CFBundleTypeRole \"QLGenerator\" is not one of Editor, Viewer, Shell or None; Viewer is used",
                "error: URL type has no CFBundleURLSchemes",
                "error: LSItemContentTypes: \"public.imgae\" names no declared type (did you mean public.image?)",
                "error: LSItemContentTypes: \"image/png\" is a MIME type; LSItemContentTypes takes type identifiers (public.png)",
                "warning: LSItemContentTypes: \"com.example.elsewhere\" is declared by no source uti reads; the document type applies only where some app declares it",
            ])
        #expect(bundle.documentTypes.map(\.rank) == [.default, .alternate, .default])
        #expect(bundle.urlTypes.map { $0.schemes.map(\.name) } == [["ok"], []])
    }
}
