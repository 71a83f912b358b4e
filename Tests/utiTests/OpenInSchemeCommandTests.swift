import Foundation
import Testing

/// `uti open-in` with URLs, `uti set-default` for schemes, roles and
/// settings files, `open-in --app --list`, and `uti validate` of an app.
@Suite struct OpenInSchemeCommandTests {
    typealias Tree = OpenInCommandTests.Tree

    /// The tree of `OpenInCommandTests` plus a browser that records its
    /// arguments (%u) and a file manager that takes only files (%F).
    static func tree() throws -> Tree {
        let tree = try Tree()
        try tree.write(
            "share/applications/browser.desktop",
            """
            [Desktop Entry]
            Type=Application
            Name=Browser
            Exec=\(tree.root)/record %u
            MimeType=text/html;x-scheme-handler/https;x-scheme-handler/http;
            """)
        try tree.write(
            "share/applications/files.desktop",
            """
            [Desktop Entry]
            Type=Application
            Name=Files
            Exec=\(tree.root)/record %F
            MimeType=x-scheme-handler/sftp;inode/directory;
            """)
        return tree
    }

    func recorded(_ tree: Tree) throws -> String {
        try String(contentsOfFile: tree.root + "/recorded", encoding: .utf8)
    }

    @Test func aURLIsOpenedByItsSchemeHandlers() throws {
        let tree = try Self.tree()
        let url = "https://example.org/a b?q=1"
        let run = try Run(["open-in", "--no-system", url, "ssh://host"], environment: tree.environment)
        #expect(run.status == 1, "ssh has no handler")
        let entry = tree.root + "/share/applications/browser.desktop"
        #expect(
            run.stdout == """
                \(url): URL scheme https (dyn.agy80u7dysb3u)
                  * browser.desktop  Browser  declares x-scheme-handler/https in MimeType: \(entry):5
                  command: \(tree.root)/record '\(url)'
                ssh://host: URL scheme ssh (dyn.agy81g65k)
                  no application opens URLs of scheme ssh

                """)
        let json = try Run(["open-in", "--no-system", "--json", "HTTPS://example.org"], environment: tree.environment)
        let items = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [[String: Any]]
        #expect(items[0]["url"] as? String == "HTTPS://example.org")
        #expect(items[0]["scheme"] as? String == "https")
        #expect(items[0]["mimeType"] as? String == "x-scheme-handler/https")
        #expect(items[0]["default"] as? String == "browser.desktop")

        let ran = try Run(["open-in", "--no-system", "--run", "--wait", url], environment: tree.environment)
        #expect(ran.status == 0, "\(ran.stderr)")
        #expect(try recorded(tree) == url + "\n")
        // A file: URL is its file.
        let file = try Run(
            ["open-in", "--no-system", "file://" + tree.root + "/docs/today.note"], environment: tree.environment)
        #expect(file.stdout.hasPrefix("file://\(tree.root)/docs/today.note: com.example.note\n"))
        // A URL built to retitle the terminal is printed escaped, in the command too.
        let hostile = try Run(
            ["open-in", "--no-system", "https://x/\u{1B}]0;owned\u{07}"], environment: tree.environment)
        #expect(!hostile.stdout.contains("\u{1B}") && !hostile.stdout.contains("\u{07}"))
        #expect(hostile.stdout.hasPrefix("https://x/\\x1b]0;owned\\x07: URL scheme https"))
        let remote = try Run(["open-in", "--no-system", "file://server/x"], environment: tree.environment)
        #expect(remote.status == 2)
        #expect(remote.stderr == "uti: file://server/x: names a file on host \"server\", not on this machine\n")
    }

    @Test func aCommandForFilesIsRefusedAURLAndNothingRuns() throws {
        let tree = try Self.tree()
        let run = try Run(["open-in", "--no-system", "--run", "sftp://host/x"], environment: tree.environment)
        #expect(run.status == 1)
        #expect(
            run.stderr
                == "uti: sftp://host/x: files.desktop: its command takes local files (%F), so it cannot open the URL sftp://host/x\n"
        )
        #expect(!FileManager.default.fileExists(atPath: tree.root + "/recorded"))
        // A file named like a URL is read as the URL, with a warning saying how to name the file.
        try tree.write("work/https:x", "")
        let named = try Run(
            ["open-in", "--no-system", "https:x"], environment: tree.environment, directory: tree.root + "/work")
        #expect(named.stderr == "uti: https:x is read as a URL (scheme https); for the file, write ./https:x\n")
    }

    @Test func setDefaultWritesSchemesAndRefusesAmbiguousWords() throws {
        let tree = try Self.tree()
        try tree.write(
            "share/applications/other.desktop", "[Desktop Entry]\nType=Application\nName=Other\nExec=/bin/true %u\n")
        for word in ["https", "https:", "https://example.org", "x-scheme-handler/HTTPS"] {
            let run = try Run(["set-default", "--no-system", word, "other.desktop"], environment: tree.environment)
            #expect(run.status == 0, "\(word): \(run.stderr)")
            #expect(
                run.stdout
                    == "URL scheme https: other.desktop is the default (x-scheme-handler/https) in \(tree.root)/config/mimeapps.list\n"
            )
        }
        #expect(
            try String(contentsOfFile: tree.root + "/config/mimeapps.list", encoding: .utf8)
                == "[Default Applications]\nx-scheme-handler/https=other.desktop;\n")
        let after = try Run(["open-in", "--no-system", "https://example.org"], environment: tree.environment)
        #expect(
            after.stdout.contains(
                "* other.desktop    Other  set as the default for x-scheme-handler/https in Default Applications"))
        // A word no type and no application claims is neither guessed as an extension nor as a scheme.
        let unknown = try Run(["set-default", "--no-system", "gopher", "other.desktop"], environment: tree.environment)
        #expect(unknown.status == 2)
        #expect(
            unknown.stderr.contains(
                "no type claims the extension \"gopher\" and no application claims the URL scheme; write .gopher for the extension or gopher: for the scheme"
            ))
        // A word that is both an extension and a claimed scheme must be spelled out.
        try tree.write(
            "share/applications/notes-url.desktop",
            "[Desktop Entry]\nType=Application\nName=N\nExec=/bin/true %u\nMimeType=x-scheme-handler/note;\n")
        let both = try Run(["set-default", "--no-system", "note", "other.desktop"], environment: tree.environment)
        #expect(both.status == 2)
        #expect(both.stderr.contains("is both an extension (com.example.note) and a URL scheme"))
        let roles = try Run(
            ["set-default", "--no-system", "--role", "editor", "https:", "com.example.notes"],
            environment: tree.environment)
        #expect(roles.status == 2)
        #expect(roles.stderr == "uti: https:: URL schemes have no roles; set the default for all roles\n")
    }

    @Test func roleDefaultsAndTheApplicationsView() throws {
        let tree = try Self.tree()
        let desktop = try Run(
            ["set-default", "--no-system", "--role", "viewer", "txt", "editor.desktop"], environment: tree.environment)
        #expect(desktop.status == 2)
        #expect(
            desktop.stderr
                == "uti: editor.desktop is a desktop entry, which declares no roles; its default is for all roles\n")
        let set = try Run(
            ["set-default", "--no-system", "--role", "editor", "txt", "com.example.notes"],
            environment: tree.environment)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(
            set.stdout
                == "public.plain-text: com.example.notes is the default for the Editor role (text/plain) in \(tree.root)/config/mimeapps.list\n"
        )
        let editor = try Run(
            ["open-in", "--no-system", "--role", "editor", "--type", "txt", "--json"], environment: tree.environment)
        let items = try JSONSerialization.jsonObject(with: Data(editor.stdout.utf8)) as! [[String: Any]]
        #expect(items[0]["default"] as? String == "com.example.notes")
        let any = try Run(["open-in", "--no-system", "--type", "txt", "--json"], environment: tree.environment)
        let anyItems = try JSONSerialization.jsonObject(with: Data(any.stdout.utf8)) as! [[String: Any]]
        #expect(anyItems[0]["default"] as? String == "editor.desktop", "a role default counts only for its role")

        let list = try Run(
            ["open-in", "--no-system", "--app", "browser.desktop", "--list"], environment: tree.environment)
        let entry = tree.root + "/share/applications/browser.desktop"
        #expect(
            list.stdout == """
                browser.desktop: Browser (\(entry))
                  * text/html               public.html       MimeType: \(entry):5
                  * x-scheme-handler/https  URL scheme https  MimeType: \(entry):5
                  * x-scheme-handler/http   URL scheme http   MimeType: \(entry):5

                """)
        let notes = try Run(
            ["open-in", "--no-system", "--app", "com.example.notes", "--list", "--json"], environment: tree.environment)
        let view = try JSONSerialization.jsonObject(with: Data(notes.stdout.utf8)) as! [String: Any]
        let claims = view["claims"] as! [[String: Any]]
        #expect(claims.map { $0["declares"] as? String } == ["text/plain", "com.example.note"])
        #expect(claims.map { $0["isDefault"] as? Bool } == [false, true])
        #expect(claims[0]["default"] as? String == "editor.desktop")
        let bad = try Run(["open-in", "--no-system", "--list"], environment: tree.environment)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--list needs --app ID"))
    }

    @Test func aSettingsFileIsAppliedWholeOrNotAtAll() throws {
        let tree = try Self.tree()
        try tree.write("config/mimeapps.list", "# mine\n[Default Applications]\ntext/html=editor.desktop;\n")
        let before = try String(contentsOfFile: tree.root + "/config/mimeapps.list", encoding: .utf8)
        try tree.write(
            "bad.settings",
            """
            # one bad line spoils the file
            html browser.desktop
            https: browser.desktop
            txt nobody.desktop
            public.html editor.desktop
            note com.example.notes owner

            """)
        let bad = try Run(
            ["set-default", "--no-system", "--file", tree.root + "/bad.settings"], environment: tree.environment)
        #expect(bad.status == 2)
        let settings = tree.root + "/bad.settings"
        #expect(
            bad.stderr == """
                uti: \(settings):6: error: role "owner": use viewer, editor, shell or all
                uti: \(settings):4: error: nobody.desktop: no desktop entry or app bundle has this ID
                uti: \(settings):5: error: public.html sets text/html again (\(settings):2 set it)
                uti: \(settings): nothing was written

                """)
        #expect(try String(contentsOfFile: tree.root + "/config/mimeapps.list", encoding: .utf8) == before)

        try tree.write(
            "good.settings", "html browser.desktop\nhttps: browser.desktop all\ntxt com.example.notes editor\n")
        let good = try Run(
            ["set-default", "--no-system", "--file", tree.root + "/good.settings"], environment: tree.environment)
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout.split(separator: "\n").count == 3)
        #expect(
            try String(contentsOfFile: tree.root + "/config/mimeapps.list", encoding: .utf8) == """
                # mine
                [Default Applications]
                text/html=browser.desktop;
                x-scheme-handler/https=browser.desktop;

                [X-UTI Default Editor]
                text/plain=com.example.notes;

                """)
        let missing = try Run(
            ["set-default", "--no-system", "--file", tree.root + "/none.settings"], environment: tree.environment)
        #expect(missing.status == 2)
        #expect(missing.stderr == "uti: \(tree.root)/none.settings: No such file or directory\n")
        // "-" reads the list from standard input, and names it so.
        let piped = try Run(
            ["set-default", "--no-system", "--file", "-"], stdin: "html browser.desktop\ntxt nobody.desktop\n",
            environment: tree.environment)
        #expect(piped.status == 2)
        #expect(
            piped.stderr == """
                uti: standard input:2: error: nobody.desktop: no desktop entry or app bundle has this ID
                uti: standard input: nothing was written

                """)
    }

    @Test func validateChecksAnAppsDocumentAndURLTypes() throws {
        let tree = try Tree()
        try tree.write(
            "Bad.app/Contents/Info.plist",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
              <key>CFBundleIdentifier</key><string>com.example.bad</string>
              <key>CFBundleDocumentTypes</key><array><dict>
                <key>CFBundleTypeRole</key><string>Edit</string>
                <key>LSHandlerRank</key><string>Owners</string>
                <key>LSItemContentTypes</key><array><string>public.imgae</string></array>
              </dict></array>
              <key>CFBundleURLTypes</key><array><dict>
                <key>CFBundleTypeRole</key><string>Viewer</string>
                <key>CFBundleURLSchemes</key><array><string>bad scheme</string></array>
              </dict></array>
            </dict></plist>
            """)
        let plist = tree.root + "/Bad.app/Contents/Info.plist"
        let run = try Run(["validate", tree.root + "/Bad.app"], environment: tree.environment)
        #expect(run.status == 1)
        #expect(
            run.stdout == """
                \(plist):5: error: CFBundleTypeRole "Edit" is not one of Editor, Viewer, Shell, None or QLGenerator (did you mean Editor?); Viewer is used
                \(plist):6: error: LSHandlerRank "Owners" is not one of Owner, Default, Alternate or None (did you mean Owner?); Default is used
                \(plist):7: error: LSItemContentTypes: "public.imgae" names no declared type (did you mean public.image?)
                \(plist):11: error: CFBundleURLSchemes: "bad scheme" is not a URL scheme (a letter, then letters, digits, "+", "-" or ".")
                1 file, 0 types: 4 errors, 0 warnings

                """)
        // The same property list in binary form gives the same findings, by byte offset.
        let binary = tree.root + "/Binary.app/Contents/Info.plist"
        try FileManager.default.createDirectory(
            atPath: tree.root + "/Binary.app/Contents", withIntermediateDirectories: true)
        let object = try PropertyListSerialization.propertyList(
            from: Data(contentsOf: URL(fileURLWithPath: plist)), format: nil)
        try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0).write(
            to: URL(fileURLWithPath: binary))
        let fromBinary = try Run(["validate", "--json", tree.root + "/Binary.app"], environment: tree.environment)
        #expect(fromBinary.status == 1)
        let report = try JSONSerialization.jsonObject(with: Data(fromBinary.stdout.utf8)) as! [String: Any]
        #expect(report["errors"] as? Int == 4)
        #expect(report["files"] as? [String] == [binary])
        // The fixture's good bundle passes.
        let good = try Run(["validate", tree.root + "/share/uti/apps/Notes.app"], environment: tree.environment)
        #expect(good.status == 0, "\(good.stdout)")
        #expect(good.stdout.hasSuffix("1 file, 1 type: 0 errors, 0 warnings\n"))
    }
}
