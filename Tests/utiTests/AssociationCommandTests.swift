import Foundation
import TestSupport
import Testing

/// `set-default --add/--remove/--all-declared`, `defaults` and `open-in
/// --choose`, through the built binary on a temporary XDG tree.
@Suite struct AssociationCommandTests {
    typealias Tree = OpenInCommandTests.Tree

    static func tree() throws -> Tree {
        let tree = try Tree()
        try tree.write(
            "share/applications/viewer.desktop",
            "[Desktop Entry]\nType=Application\nName=Viewer\nExec=\(tree.root)/record viewer %f\n"
                + "MimeType=image/png;text/plain;x-scheme-handler/viewer;image/*;\n")
        try tree.write(
            "share/applications/other.desktop",
            "[Desktop Entry]\nType=Application\nName=Other\nExec=\(tree.root)/record other %f\nMimeType=text/html;\n")
        return tree
    }

    func list(_ tree: Tree) throws -> String {
        try String(contentsOfFile: tree.root + "/config/mimeapps.list", encoding: .utf8)
    }

    func ids(_ tree: Tree, _ type: String) throws -> [String] {
        let run = try Run(["open-in", "--no-system", "--type", type, "--json"], environment: tree.environment)
        let items = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [[String: Any]]
        return (items[0]["candidates"] as! [[String: Any]]).map { $0["id"] as! String }
    }

    /// The file GIO's `g_app_info_add_supports_type` and
    /// `remove_supports_type` write for the same steps
    /// (tools/compare-gio-associations.py checks them against GIO itself).
    @Test func addAndRemoveEditTheListsAsGIODoes() throws {
        let tree = try Self.tree()
        try tree.write(
            "config/mimeapps.list",
            "[Added Associations]\ntext/plain=other.desktop;\n\n[Removed Associations]\n"
                + "text/plain=viewer.desktop;\nimage/png=other.desktop;\n")
        #expect(try ids(tree, "txt") == ["other.desktop", "editor.desktop"])
        let file = tree.root + "/config/mimeapps.list"
        let steps: [(String, String, String, String)] = [
            ("--add", "viewer.desktop", "txt", "public.plain-text: viewer.desktop is added (text/plain) in \(file)\n"),
            (
                "--add", "editor.desktop", "text/plain",
                "public.plain-text: editor.desktop is added (text/plain) in \(file)\n"
            ),
            (
                "--add", "viewer.desktop", "txt",
                "public.plain-text: viewer.desktop was already added (text/plain) in \(file); nothing was written\n"
            ),
            (
                "--remove", "editor.desktop", "txt",
                "public.plain-text: editor.desktop is removed (text/plain) in \(file)\n"
            ),
            ("--add", "other.desktop", "image/png", "public.png: other.desktop is added (image/png) in \(file)\n"),
            (
                "--remove", "other.desktop", "text/html",
                "public.html: other.desktop is removed (text/html) in \(file)\n"
            ),
        ]
        for (option, app, type, expected) in steps {
            let run = try Run(["set-default", "--no-system", option, app, type], environment: tree.environment)
            #expect(run.status == 0 && run.stderr.isEmpty, "\(option) \(app) \(type): \(run.stderr)")
            #expect(run.stdout == expected)
        }
        #expect(
            try list(tree) == """
                [Added Associations]
                text/plain=other.desktop;viewer.desktop;
                image/png=other.desktop;

                [Removed Associations]
                text/plain=editor.desktop;
                text/html=other.desktop;

                """)
        // Added first in the file's order; the removed editor is hidden, its declaration too.
        #expect(try ids(tree, "txt") == ["other.desktop", "viewer.desktop"])
        #expect(try ids(tree, "html").isEmpty)
        #expect(try ids(tree, "png") == ["other.desktop", "viewer.desktop"])
    }

    /// A removal also clears the user's own default; a default that a
    /// system list sets still wins over it, as in GIO, and uti says so
    /// with exit 1 rather than reading as done.
    @Test func removeClearsTheUsersDefaultAndReportsASystemDefault() throws {
        let tree = try Self.tree()
        let file = tree.root + "/config/mimeapps.list"
        _ = try Run(["set-default", "--no-system", "txt", "viewer.desktop"], environment: tree.environment)
        _ = try Run(
            ["set-default", "--no-system", "--role", "editor", "note", "com.example.notes"],
            environment: tree.environment)
        let removed = try Run(
            ["set-default", "--no-system", "--remove", "viewer.desktop", "txt"], environment: tree.environment)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(
            removed.stdout
                == "public.plain-text: viewer.desktop is removed (text/plain) in \(file); it is no longer the user's default\n"
        )
        #expect(try list(tree).contains("[Removed Associations]\ntext/plain=viewer.desktop;\n"))
        #expect(try !list(tree).contains("text/plain=viewer.desktop;\n[") && ids(tree, "txt") == ["editor.desktop"])

        try tree.write("etc-xdg/mimeapps.list", "[Default Applications]\ntext/html=viewer.desktop;\n")
        let still = try Run(
            ["set-default", "--no-system", "--remove", "viewer.desktop", "html"], environment: tree.environment)
        #expect(still.status == 1)
        #expect(
            still.stderr == "uti: public.html: viewer.desktop is still offered: set as the default for text/html in "
                + "Default Applications: \(tree.root)/etc-xdg/mimeapps.list:2\n")
    }

    @Test func badAssociationRequestsWriteNothing() throws {
        let tree = try Self.tree()
        let cases: [([String], String)] = [
            (["--add", "viewer.desktop"], "--add viewer.desktop: give the type or scheme too"),
            (["--add", "viewer.desktop", "png", "jpg"], "--add APP takes one TYPE"),
            (["--add", "viewer.desktop", "png", "--role", "viewer"], "--add takes no --role"),
            (["--add", "x.desktop", "--remove", "y.desktop", "png"], "--add and --remove cannot be used together"),
            (["--clear", "--remove", "y.desktop", "png"], "--remove and --clear cannot be used together"),
            (["--add", "nosuch.desktop", "png"], "nosuch.desktop: no desktop entry or app bundle has this ID"),
            (["--remove", "nosuch.desktop", "png"], "nosuch.desktop: no desktop entry or app bundle has this ID"),
            (["--add", "viewer.desktop", "nosuchword"], "nosuchword: no type claims the extension"),
            // A space or an invisible character is in no type or scheme name: never a junk dyn key.
            (["a b", "viewer.desktop"], "a b: holds U+0020 (a space or an invisible character)"),
            (["\u{FEFF}png", "viewer.desktop"], ": holds U+FEFF"),
            (["t\u{1}xt", "viewer.desktop"], "holds U+0001"),
            (["--all-declared", "viewer.desktop", "png"], "--all-declared takes no TYPE"),
            (
                ["--all-declared", "nosuch.desktop"],
                "--all-declared nosuch.desktop: no desktop entry or app bundle has this ID"
            ),
        ]
        for (arguments, message) in cases {
            let run = try Run(["set-default", "--no-system"] + arguments, environment: tree.environment)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: tree.root + "/config/mimeapps.list"))
    }

    /// An application that can no longer run may still be removed where a
    /// list names it.
    @Test func aListedApplicationThatCannotRunCanBeRemoved() throws {
        let tree = try Self.tree()
        try tree.write("config/mimeapps.list", "[Added Associations]\ntext/plain=gone.desktop;viewer.desktop;\n")
        let run = try Run(
            ["set-default", "--no-system", "--remove", "gone.desktop", "txt"], environment: tree.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            try list(tree)
                == "[Added Associations]\ntext/plain=viewer.desktop;\n\n[Removed Associations]\ntext/plain=gone.desktop;\n"
        )
    }

    /// handlr's request: one application the default for every type and
    /// scheme it declares, wildcards included, in one write.
    @Test func allDeclaredSetsEveryDeclaredType() throws {
        let tree = try Self.tree()
        let file = tree.root + "/config/mimeapps.list"
        let run = try Run(
            ["set-default", "--no-system", "--all-declared", "viewer.desktop"], environment: tree.environment)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(
            lines.prefix(2) == [
                "public.png: viewer.desktop is the default (image/png) in \(file)",
                "public.plain-text: viewer.desktop is the default (text/plain) in \(file)",
            ])
        // Its Exec takes local files only (%f): the scheme it declares is left out, and said so.
        #expect(
            run.stderr.hasSuffix(
                ": x-scheme-handler/viewer: viewer.desktop's Exec takes local files only (no %u or %U), "
                    + "so it cannot be a URL scheme's default; skipped\n"), "\(run.stderr)")
        // The wildcard as the image types it stands for, image/png once.
        #expect(lines.count == 3 && lines[2].hasPrefix("every image/ type: viewer.desktop is the default (image/jpeg"))
        #expect(!lines[2].contains("image/png") && !lines[2].contains("image/*"))
        let written = try list(tree)
        #expect(written.hasPrefix("[Default Applications]\nimage/png=viewer.desktop;\ntext/plain=viewer.desktop;\n"))
        #expect(written.contains("\nimage/gif=viewer.desktop;\n") && !written.contains("image/*"))
        #expect(try ids(tree, "txt").first == "viewer.desktop")
        // A bundle whose only document type has no MIME type: nothing GIO reads can be written.
        let notes = try Run(
            ["set-default", "--no-system", "--all-declared", "com.example.notes"], environment: tree.environment)
        #expect(notes.status == 2)
        #expect(notes.stderr.contains("com.example.note cannot be a key of mimeapps.list; skipped"), "\(notes.stderr)")
    }

    @Test func defaultsListsEveryKeyWithItsLine() throws {
        let tree = try Self.tree()
        try tree.write(
            "config/mimeapps.list",
            "[Default Applications]\ntext/plain=gone.desktop;viewer.desktop;\nimage/*=viewer.desktop;\n"
                + "x-scheme-handler/viewer=viewer.desktop;\n\n[X-UTI Default Editor]\ncom.example.note=com.example.notes;\n"
        )
        try tree.write(
            "etc-xdg/mimeapps.list", "[Default Applications]\ntext/plain=editor.desktop;\ntext/html=gone.desktop;\n")
        let config = tree.root + "/config/mimeapps.list", system = tree.root + "/etc-xdg/mimeapps.list"
        let run = try Run(["defaults", "--no-system"], environment: tree.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout == """
                com.example.note (editor)  com.example.note   com.example.notes  \(config):7
                    only uti reads this key; set it again to write MIME type keys
                image/*                    every image/ type  viewer.desktop     \(config):3
                    only uti reads this key; set it again to write MIME type keys
                text/html                  public.html        none usable (gone.desktop: no desktop entry or app bundle has this ID)
                    public.html opens with other.desktop: declares text/html in MimeType: \(tree.root)/share/applications/other.desktop:5
                text/plain                 public.plain-text  viewer.desktop     \(config):2
                x-scheme-handler/viewer    URL scheme viewer  viewer.desktop     \(config):4

                """)
        // The same question through a command word after options.
        let before = try Run(["--no-system", "defaults"], environment: tree.environment)
        #expect(before.stdout == run.stdout)
        let all = try Run(["defaults", "--no-system", "--all"], environment: tree.environment)
        #expect(
            all.stdout.contains(
                """
                text/plain                 public.plain-text  viewer.desktop     \(config):2
                    passed over: gone.desktop  \(config):2: no desktop entry or app bundle has this ID
                    passed over: editor.desktop  \(system):2: \(config):2 comes first
                    * viewer.desktop  set as the default for text/plain in Default Applications: \(config):2
                      editor.desktop  set as the default for text/plain in Default Applications: \(system):2
                """), "\(all.stdout)")
        let json = try Run(["defaults", "--no-system", "--json"], environment: tree.environment)
        let items = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [[String: Any]]
        #expect(
            items.map { $0["key"] as! String } == [
                "com.example.note", "image/*", "text/html", "text/plain", "x-scheme-handler/viewer",
            ])
        let plain = items[3]
        #expect(
            plain["application"] as? String == "viewer.desktop" && plain["line"] as? Int == 2
                && plain["file"] as? String == config)
        #expect(
            (plain["passed"] as! [[String: Any]]).map { $0["application"] as! String } == [
                "gone.desktop", "editor.desktop",
            ])
        #expect(
            items[2]["application"] is NSNull && items[1]["wildcard"] as? Bool == true
                && items[0]["role"] as? String == "Editor")
        #expect(items[4]["scheme"] as? String == "viewer")
        // Nothing set: an empty list, said once on standard error.
        try FileManager.default.removeItem(atPath: config)
        try FileManager.default.removeItem(atPath: system)
        let none = try Run(["defaults", "--no-system"], environment: tree.environment)
        #expect(none.status == 0 && none.stdout.isEmpty && none.stderr == "uti: no mimeapps.list sets a default\n")
        #expect(try Run(["defaults", "--no-system", "--json"], environment: tree.environment).stdout == "[]\n")
    }

    /// `--choose`: the candidates go to the selector, one `ID  Name` a
    /// line; the line it prints is opened; cancelling opens nothing.
    @Test func chooseRunsTheSelectorAndOpensTheChoice() throws {
        let tree = try Self.tree()
        try tree.write("docs/a.txt", "x")
        let file = tree.root + "/docs/a.txt"
        let recorded = tree.root + "/recorded"
        try tree.write(
            "pick", "#!/bin/sh\ncat > \"$(dirname \"$0\")/offered\"\nsed -n 2p \"$(dirname \"$0\")/offered\"\n")
        chmod(tree.root + "/pick", 0o755)
        let run = try Run(
            ["open-in", "--no-system", "--choose", "--wait", "--verbose", "--selector", tree.root + "/pick", file],
            environment: tree.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            try String(contentsOfFile: tree.root + "/offered", encoding: .utf8)
                == "editor.desktop  Editor\nviewer.desktop  Viewer\n")
        #expect(
            run.stdout.contains("  using viewer.desktop (chosen)\n  command: \(tree.root)/record viewer \(file)\n"),
            "\(run.stdout)")
        #expect(try String(contentsOfFile: recorded, encoding: .utf8) == "viewer\n\(file)\n")

        // UTI_SELECTOR, and an answer that is an ID alone.
        try FileManager.default.removeItem(atPath: recorded)
        var environment = tree.environment
        environment["UTI_SELECTOR"] = "echo editor.desktop"
        let byID = try Run(["open-in", "--no-system", "--choose", "--wait", file], environment: environment)
        #expect(byID.status == 0, "\(byID.stderr)")
        #expect(
            try String(contentsOfFile: recorded, encoding: .utf8)
                == "--from\n\(tree.root)/share/applications/editor.desktop\n100%\n\(file)\n")

        try FileManager.default.removeItem(atPath: recorded)
        let cancelled = try Run(
            ["open-in", "--no-system", "--choose", "--selector", "false", file], environment: tree.environment)
        #expect(cancelled.status == 1)
        #expect(
            cancelled.stderr == "uti: \(file): no application chosen (the selector exited with status 1); not opened\n")
        let wrong = try Run(
            ["open-in", "--no-system", "--choose", "--selector", "echo 'vim.desktop\u{1b}'", file],
            environment: tree.environment)
        #expect(wrong.status == 2)
        #expect(wrong.stderr == "uti: selector echo answered \"vim.desktop\\x1b\", which is none of the candidates\n")
        #expect(!FileManager.default.fileExists(atPath: recorded), "nothing is opened without a choice")

        // No selector anywhere: a clear error, nothing opened.
        environment = tree.environment
        environment["PATH"] = tree.root + "/empty-bin"
        environment["DISPLAY"] = ":0"
        environment["WAYLAND_DISPLAY"] = ""
        let missing = try Run(["open-in", "--no-system", "--choose", file], environment: environment)
        #expect(missing.status == 2)
        #expect(
            missing.stderr
                == "uti: no selector to choose with (none of rofi, wofi, dmenu is on PATH); set UTI_SELECTOR or give --selector\n"
        )
        for (arguments, message) in [
            (["--choose", "--type", "txt"], "--choose opens files and URLs"),
            (["--choose", "--json", file], "--choose and --json cannot be used together"),
            (["--choose", "--app", "viewer.desktop", file], "--choose and --app cannot be used together"),
            (["--selector", "fzf", file], "--selector is the program --choose runs"),
        ] {
            let refused = try Run(["open-in", "--no-system"] + arguments, environment: tree.environment)
            #expect(refused.status == 2 && refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
        }
    }
}
