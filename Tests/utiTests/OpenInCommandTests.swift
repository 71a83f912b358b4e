import Foundation
import TestSupport
import Testing

/// `uti open-in` and `uti set-default` on a temporary XDG tree holding a
/// desktop entry, an app bundle with its own type, and a program that
/// records its arguments.
@Suite struct OpenInCommandTests {
    final class Tree {
        let folder = TemporaryFolder("uti-open-in")
        var root: String { folder.path }
        var environment: [String: String] { folder.privateXDGEnvironment }

        init() throws {
            try write(
                "share/applications/editor.desktop",
                """
                [Desktop Entry]
                Type=Application
                Name=Editor
                Exec=\(root)/record --from %k "100%%" %F
                MimeType=text/plain;
                """)
            try write("record", "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$(dirname \"$0\")/recorded\"\n")
            chmod(root + "/record", 0o755)
            try write(
                "share/uti/apps/Notes.app/Contents/Info.plist", notesAppInfoPlist)
            try write("docs/today.note", "milk\n")
        }

        func write(_ path: String, _ text: String) throws {
            try folder.write(path, text)
        }
    }

    @Test func ranksTheBundleOwnerBeforeASupertypeEditor() throws {
        let tree = try Tree()
        let file = tree.root + "/docs/today.note"
        let run = try Run(["open-in", "--no-system", file], environment: tree.environment)
        // The default has no command: the item cannot be opened, as uti open's status 3 says.
        #expect(run.status == 1, "\(run.stderr)")
        let plist = tree.root + "/share/uti/apps/Notes.app/Contents/Info.plist"
        #expect(
            run.stdout == """
                \(file): com.example.note
                  * com.example.notes  Notes  declares com.example.note in LSItemContentTypes, Owner, Editor: \(plist):5
                    editor.desktop     Editor  declares text/plain (supertype) in MimeType: \(tree.root)/share/applications/editor.desktop:5
                  command: none (com.example.notes cannot be run: it has no CFBundleExecutable)

                """)
        // The bundle's type is known to every command.
        let lookup = try Run(["--no-system", "-b", "note"], environment: tree.environment)
        #expect(lookup.stdout == "com.example.note\n")
    }

    @Test func printsAndRunsTheExactCommandWithoutAShell() throws {
        let tree = try Tree()
        try tree.write("docs/it's $HOME.txt", "x")
        let file = tree.root + "/docs/it's $HOME.txt"
        let run = try Run(["open-in", "--no-system", "--app", "editor.desktop", file], environment: tree.environment)
        let entry = tree.root + "/share/applications/editor.desktop"
        #expect(
            run.stdout.hasSuffix(
                "  command: \(tree.root)/record --from \(entry) 100% '\(tree.root)/docs/it'\\''s $HOME.txt'\n"))
        #expect(!FileManager.default.fileExists(atPath: tree.root + "/recorded"), "printing never runs it")
        let ran = try Run(["open-in", "--no-system", "--run", "--wait", file], environment: tree.environment)
        #expect(ran.status == 0, "\(ran.stderr)")
        #expect(
            try String(contentsOfFile: tree.root + "/recorded", encoding: .utf8) == "--from\n\(entry)\n100%\n\(file)\n")
    }

    /// `Terminal=true` runs in a terminal, as the desktop does:
    /// `xdg-terminal-exec` first, then `$TERMINAL -e`, then
    /// `x-terminal-emulator -e`; with none, a clear error and nothing run.
    @Test func terminalEntriesRunInATerminal() throws {
        let tree = try Tree()
        try tree.write(
            "share/applications/vim.desktop",
            """
            [Desktop Entry]
            Type=Application
            Name=Vim
            Exec=vim %f
            Terminal=true
            MimeType=text/x-markdown;text/markdown;
            """)
        try tree.write("notes.md", "# notes")
        let bin = tree.root + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        // Each fake terminal records its arguments; vim itself must be on PATH for the entry to count.
        for name in ["vim", "xdg-terminal-exec", "x-terminal-emulator", "myterm"] {
            try tree.write("bin/\(name)", "#!/bin/sh\nprintf '%s\\n' \"\(name)\" \"$@\" > \"\(tree.root)/recorded\"\n")
            chmod(bin + "/" + name, 0o755)
        }
        let file = tree.root + "/notes.md"
        func run(_ extra: [String: String]) throws -> (Run, String?) {
            try? FileManager.default.removeItem(atPath: tree.root + "/recorded")
            var environment = tree.environment
            // Only what the test provides: a terminal of the machine's is never found, or started.
            environment["PATH"] = bin
            for (key, value) in extra { environment[key] = value }
            let run = try Run(
                ["open-in", "--no-system", "--app", "vim.desktop", "--run", "--wait", "--verbose", file],
                environment: environment)
            return (run, try? String(contentsOfFile: tree.root + "/recorded", encoding: .utf8))
        }
        var (ran, recorded) = try run([:])
        #expect(ran.status == 0, "\(ran.stderr)")
        #expect(ran.stdout.contains("command: \(bin)/xdg-terminal-exec vim \(file)"), "\(ran.stdout)")
        #expect(recorded == "xdg-terminal-exec\nvim\n\(file)\n")
        unlink(bin + "/xdg-terminal-exec")
        (ran, recorded) = try run(["TERMINAL": "myterm"])
        #expect(recorded == "myterm\n-e\nvim\n\(file)\n")
        (ran, recorded) = try run([:])
        #expect(recorded == "x-terminal-emulator\n-e\nvim\n\(file)\n")
        unlink(bin + "/x-terminal-emulator")
        (ran, recorded) = try run([:])
        #expect(ran.status == 1, "\(ran.stdout) \(ran.stderr)")
        #expect(
            ran.stdout.contains(
                "command: none (vim.desktop: the entry runs in a terminal (Terminal=true), and none was found"),
            "\(ran.stdout)")
        #expect(recorded == nil)
    }

    @Test func nothingOpensItExitsOne() throws {
        let tree = try Tree()
        let run = try Run(["open-in", "--no-system", "--type", "public.png", "--json"], environment: tree.environment)
        #expect(run.status == 1)
        let items = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [[String: Any]]
        #expect(items[0]["query"] as? String == "public.png")
        #expect((items[0]["candidates"] as? [Any])?.isEmpty == true)
        #expect(items[0]["default"] is NSNull)
    }

    @Test func setDefaultWritesMimeappsListAndWins() throws {
        let tree = try Tree()
        try tree.write(
            "share/applications/viewer.desktop",
            "[Desktop Entry]\nType=Application\nName=Viewer\nExec=/bin/true %f\nMimeType=text/plain;\n")
        let before = try Run(["open-in", "--no-system", "--type", "txt", "--json"], environment: tree.environment)
        let items = try JSONSerialization.jsonObject(with: Data(before.stdout.utf8)) as! [[String: Any]]
        #expect(items[0]["default"] as? String == "editor.desktop")
        let set = try Run(["set-default", "--no-system", "txt", "viewer.desktop"], environment: tree.environment)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(
            set.stdout
                == "public.plain-text: viewer.desktop is the default (text/plain) in \(tree.root)/config/mimeapps.list\n"
        )
        #expect(
            try String(contentsOfFile: tree.root + "/config/mimeapps.list", encoding: .utf8)
                == "[Default Applications]\ntext/plain=viewer.desktop;\n")
        let after = try Run(["open-in", "--no-system", "--type", "txt"], environment: tree.environment)
        #expect(
            after.stdout.contains(
                "* viewer.desktop  Viewer  set as the default for text/plain in Default Applications: \(tree.root)/config/mimeapps.list:2"
            ))
        let unknown = try Run(["set-default", "--no-system", "txt", "nothing.desktop"], environment: tree.environment)
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "uti: nothing.desktop: no desktop entry or app bundle has this ID\n")
    }

    /// `image/*`-style keys (handlr writes them) are written on purpose,
    /// read back, and never stop a later `set-default`: the exact type's
    /// default wins over the wildcard's, which comes before the applications
    /// that declare the type.
    @Test func wildcardDefaultsAreWrittenAndRead() throws {
        let tree = try Tree()
        try tree.write(
            "share/applications/viewer.desktop",
            "[Desktop Entry]\nType=Application\nName=Viewer\nExec=/bin/true %f\nMimeType=text/plain;\n")
        try tree.write(
            "share/applications/pager.desktop", "[Desktop Entry]\nType=Application\nName=Pager\nExec=/bin/true %f\n")
        // set-default writes a wildcard as its MIME types; a wildcard key an earlier release wrote is still read.
        let wildcard = try Run(
            ["set-default", "--no-system", "text/*", "pager.desktop"], environment: tree.environment)
        #expect(wildcard.status == 2 && wildcard.stderr.contains("pager.desktop opens none of the MIME types"))
        try tree.write("config/mimeapps.list", "[Default Applications]\ntext/*=pager.desktop;\n")
        let plain = try Run(["open-in", "--no-system", "--type", "txt", "--json"], environment: tree.environment)
        let ids = try (JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as! [[String: Any]])[0]["candidates"]
            .map { ($0 as! [[String: Any]]).map { $0["id"] as! String } }
        #expect(ids == ["pager.desktop", "editor.desktop", "viewer.desktop"])
        let exact = try Run(["set-default", "--no-system", "txt", "viewer.desktop"], environment: tree.environment)
        #expect(exact.status == 0 && exact.stderr.isEmpty, "\(exact.stderr)")
        #expect(
            try String(contentsOfFile: tree.root + "/config/mimeapps.list", encoding: .utf8)
                == "[Default Applications]\ntext/*=pager.desktop;\ntext/plain=viewer.desktop;\n")
        let after = try Run(["open-in", "--no-system", "--type", "txt", "--json"], environment: tree.environment)
        #expect(
            (try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as! [[String: Any]])[0]["default"]
                as? String
                == "viewer.desktop")
        for bad in ["text/*x", "*/*", "*"] {
            let refused = try Run(["set-default", "--no-system", bad, "pager.desktop"], environment: tree.environment)
            #expect(
                refused.status == 2 && refused.stderr.contains("a wildcard names a MIME type's major part"),
                "\(bad): \(refused.stderr)")
        }
        let role = try Run(
            ["set-default", "--no-system", "--role", "viewer", "text/*", "viewer.desktop"],
            environment: tree.environment
        )
        #expect(role.status == 2 && role.stderr.contains("a wildcard default is for all roles"))
        // A key uti does not read is reported, and the rest of the file still counts.
        try tree.write(
            "config/mimeapps.list", "[Default Applications]\ntext/x*=pager.desktop;\ntext/plain=viewer.desktop;\n")
        let odd = try Run(["open-in", "--no-system", "--type", "txt", "--json"], environment: tree.environment)
        #expect(odd.stderr.contains("text/x*: a wildcard key is a MIME type's major part and /*"), "\(odd.stderr)")
    }

    /// Twenty runs at once, each setting the default of another type: every
    /// one of them is in the file afterwards.
    @Test func concurrentSetDefaultsAllSurvive() throws {
        let tree = try Tree()
        let types = (0..<20).map { "text/x-uti-concurrent-\($0)" }
        let env = Run.environment(tree.environment)
        _ = try Run(["set-default", "--no-system", "txt", "editor.desktop"], environment: tree.environment)
        let runs = try types.map { type in
            let process = Process()
            process.executableURL = Run.binary
            process.arguments = ["set-default", "--no-system", type, "editor.desktop"]
            process.environment = env
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        for process in runs { process.waitUntilExit() }
        #expect(runs.allSatisfy { $0.terminationStatus == 0 })
        let text = try String(contentsOfFile: tree.root + "/config/mimeapps.list", encoding: .utf8)
        for type in types { #expect(text.contains("\(type)=editor.desktop;"), "\(type) lost") }
        #expect(text.contains("text/plain=editor.desktop;"))
        #expect(text.components(separatedBy: "\n").filter { $0.hasPrefix("[") } == ["[Default Applications]"])
    }

    /// Anyone who can read the config folder could hold a lock on it; the
    /// lock is a private file of the user, and a run waits for it only so
    /// long. Run as root on a user's list, the list keeps its owner and mode.
    @Test func theLockIsPrivateAndTheListKeepsItsOwner() throws {
        let tree = try Tree()
        _ = try Run(["set-default", "--no-system", "txt", "editor.desktop"], environment: tree.environment)
        // Another process holding a lock on the folder no longer stops a run.
        let folder = open(tree.root + "/config", O_RDONLY | O_DIRECTORY)
        #expect(flock(folder, LOCK_EX) == 0)
        defer { close(folder) }
        let list = tree.root + "/config/mimeapps.list"
        if geteuid() == 0 {
            #expect(chown(list, 65534, 65534) == 0 && chmod(list, 0o640) == 0)
        }
        let run = try Run(
            ["set-default", "--no-system", "text/x-uti-lock", "editor.desktop"], environment: tree.environment)
        #expect(run.status == 0, "\(run.stderr)")
        var info = stat()
        #expect(stat(list, &info) == 0 && info.st_mode & 0o777 == (geteuid() == 0 ? 0o640 : 0o644))
        if geteuid() == 0 { #expect(info.st_uid == 65534 && info.st_gid == 65534) }
        var lock = stat()
        #expect(stat(tree.root + "/config/.mimeapps.list.uti-lock", &lock) == 0 && lock.st_mode & 0o777 == 0o600)
        // A lock that is not a private file of the user is refused, and nothing is written.
        chmod(tree.root + "/config/.mimeapps.list.uti-lock", 0o666)
        let refused = try Run(
            ["set-default", "--no-system", "text/x-uti-other", "editor.desktop"], environment: tree.environment)
        #expect(
            refused.status == 2
                && refused.stderr.contains("the lock is not a private file of this user; nothing was written"))
    }

    /// A run holding the lock (a stuck one of the user's own) makes another
    /// wait `UserDefaults.lockWait` seconds, then stop with nothing written.
    @Test func aHeldLockIsWaitedForOnlySoLong() throws {
        let tree = try Tree()
        _ = try Run(["set-default", "--no-system", "txt", "editor.desktop"], environment: tree.environment)
        let lock = open(tree.root + "/config/.mimeapps.list.uti-lock", O_RDWR)
        #expect(lock >= 0 && flock(lock, LOCK_EX) == 0)
        defer { close(lock) }
        let before = try String(contentsOfFile: tree.root + "/config/mimeapps.list", encoding: .utf8)
        let run = try Run(
            ["set-default", "--no-system", "text/x-uti-waits", "editor.desktop"], environment: tree.environment)
        #expect(
            run.status == 2 && run.stderr.contains("another process has held it for 10 s); nothing was written"),
            "\(run.stderr)")
        #expect(try String(contentsOfFile: tree.root + "/config/mimeapps.list", encoding: .utf8) == before)
    }

    @Test func badSourcesAndArgumentsExitTwo() throws {
        let tree = try Tree()
        let missing = try Run(
            ["open-in", "--no-system", "--apps", tree.root + "/nowhere", "x.txt"], environment: tree.environment)
        #expect(missing.status == 2)
        #expect(missing.stderr == "uti: \(tree.root)/nowhere: error: No such file or directory\n")
        let role = try Run(["open-in", "--role", "owner", "x.txt"], environment: tree.environment)
        #expect(role.status == 2)
        #expect(role.stderr.contains("--role owner: use any, viewer, editor or shell"))
    }
}

/// The Info.plist of the test bundle Notes.app: the owner (Editor) of
/// `com.example.note`, which it declares with the extension `note`.
let notesAppInfoPlist = """
    <?xml version="1.0" encoding="UTF-8"?>
    <plist version="1.0"><dict>
      <key>CFBundleIdentifier</key><string>com.example.notes</string>
      <key>CFBundleName</key><string>Notes</string>
      <key>CFBundleDocumentTypes</key><array><dict>
        <key>CFBundleTypeName</key><string>Note</string>
        <key>CFBundleTypeRole</key><string>Editor</string>
        <key>LSHandlerRank</key><string>Owner</string>
        <key>LSItemContentTypes</key><array><string>com.example.note</string></array>
      </dict></array>
      <key>UTExportedTypeDeclarations</key><array><dict>
        <key>UTTypeIdentifier</key><string>com.example.note</string>
        <key>UTTypeConformsTo</key><array><string>public.plain-text</string></array>
        <key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><string>note</string></dict>
      </dict></array>
    </dict></plist>
    """
