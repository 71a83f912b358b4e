import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `uti open`, `uti open-in --run` and `uti` run as `xdg-open`, on a
/// temporary XDG tree whose applications are shell scripts: `handler`
/// records its process ID and arguments, waits until the test releases it,
/// then records that it ended.
@Suite struct OpenCommandTests {
    final class Tree {
        let folder = TemporaryFolder("uti-open")
        var root: String { folder.path }
        var environment: [String: String] {
            // Only the programs the test makes: no terminal of the machine's is ever found.
            folder.privateXDGEnvironment.merging(["PATH": root + "/bin"]) { $1 }
        }
        /// Every handler started, stopped when the tree goes.
        private var started: [pid_t] = []

        init() throws {
            try program(
                "handler",
                """
                #!/bin/sh
                PATH=/usr/bin:/bin
                here='\(root)'
                printf '%s\\n' "$$" "$@" > "$here/started.part" && mv "$here/started.part" "$here/started"
                while [ ! -e "$here/release" ]; do sleep 0.02; done
                : > "$here/ended"
                """)
            // A program whose interpreter is missing: the exec fails.
            try program("broken", "#!/nonexistent/interpreter\n")
            try write(
                "share/applications/handler.desktop",
                """
                [Desktop Entry]
                Type=Application
                Name=Handler
                Exec=\(root)/handler %f
                MimeType=text/plain;x-scheme-handler/demo;
                """)
            try write(
                "share/applications/broken.desktop",
                """
                [Desktop Entry]
                Type=Application
                Name=Broken
                Exec=\(root)/broken %u
                MimeType=x-scheme-handler/broken;
                """)
            try write("docs/a.txt", "text\n")
            try folder.makeFolder("bin")
        }

        deinit {
            try? write("release", "")
            for pid in started { kill(pid, SIGKILL) }
        }

        func write(_ path: String, _ text: String) throws { try folder.write(path, text) }

        func program(_ path: String, _ text: String) throws {
            try write(path, text)
            chmod(self.path(path), 0o755)
        }

        func path(_ relative: String) -> String { folder.path(relative) }

        func exists(_ relative: String) -> Bool { access(path(relative), F_OK) == 0 }

        /// The lines `relative` holds once it exists (the handler writes its
        /// record whole). The limit only stops a run that hangs.
        func awaitLines(_ relative: String) throws -> [String] {
            for _ in 0..<6000 where !exists(relative) { usleep(10_000) }
            let text = try String(contentsOfFile: path(relative), encoding: .utf8)
            return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }

        /// The handler's process ID and arguments, once it has started; it is stopped when the tree goes.
        func awaitHandler() throws -> (pid: pid_t, arguments: [String]) {
            let lines = try awaitLines("started")
            let pid = pid_t(lines[0])!
            started.append(pid)
            return (pid, Array(lines.dropFirst()))
        }
    }

    /// The process `pid` exists and has not ended (not a zombie).
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return !stat[close...].hasPrefix(") Z")
    }

    /// The session of `pid`, from `/proc/PID/stat`.
    static func session(of pid: pid_t) -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return Int(fields[3])
    }

    @Test func opensWithTheDefaultAndReturnsWhileItRuns() throws {
        let tree = try Tree()
        let file = tree.path("docs/a.txt")
        let run = try Run(["open", "--no-system", file], environment: tree.environment)
        #expect(run.status == 0 && run.stdout.isEmpty && run.stderr.isEmpty, "\(run.stdout) \(run.stderr)")
        let handler = try tree.awaitHandler()
        #expect(handler.arguments == [file])
        // uti has ended; the application runs on, in a session of its own, reading /dev/null.
        #expect(Self.isRunning(handler.pid))
        #expect(!tree.exists("ended"))
        #expect(Self.session(of: handler.pid) != Int(getsid(0)))
        #expect(
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(handler.pid)/fd/0")) == "/dev/null")
    }

    @Test func waitReturnsOnceTheApplicationHasExited() throws {
        let tree = try Tree()
        try tree.write("release", "")
        // A relative path is made absolute; a URL goes to its scheme's handler.
        let run = try Run(
            ["open", "--no-system", "--wait", "docs/a.txt"], environment: tree.environment, directory: tree.root)
        #expect(run.status == 0 && run.stdout.isEmpty && run.stderr.isEmpty, "\(run.stdout) \(run.stderr)")
        #expect(tree.exists("ended"), "--wait returned before the application exited")
        #expect(try tree.awaitHandler().arguments == [tree.path("docs/a.txt")])
    }

    @Test func exitCodesAreXDGOpens() throws {
        let tree = try Tree()
        let file = tree.path("docs/a.txt")
        try tree.write("docs/b.png", "")
        // 2: a file on the command line does not exist; nothing is opened, not even the others.
        let missing = try Run(["open", "--no-system", file, tree.path("gone.txt")], environment: tree.environment)
        #expect(missing.status == 2)
        #expect(missing.stderr == "uti: \(tree.path("gone.txt")): no such file\n")
        let remote = try Run(["open", "--no-system", "file://server/x"], environment: tree.environment)
        #expect(remote.status == 2 && remote.stderr.contains("not on this machine"), "\(remote.stderr)")
        // 3: no application.
        let none = try Run(["open", "--no-system", tree.path("docs/b.png")], environment: tree.environment)
        #expect(none.status == 3)
        #expect(none.stderr == "uti: \(tree.path("docs/b.png")): no application opens public.png (image/png)\n")
        let scheme = try Run(["open", "--no-system", "nothing:x"], environment: tree.environment)
        #expect(scheme.status == 3)
        #expect(scheme.stderr == "uti: nothing:x: no application opens URLs of scheme nothing\n")
        // A command for files cannot open a URL: no application for it either.
        let url = try Run(["open", "--no-system", "demo:x"], environment: tree.environment)
        #expect(url.status == 3 && url.stderr.contains("its command takes local files (%f)"), "\(url.stderr)")
        // 4: the application cannot be started.
        let broken = try Run(["open", "--no-system", "broken:x"], environment: tree.environment)
        #expect(broken.status == 4)
        #expect(broken.stderr == "uti: \(tree.path("broken")): cannot start: No such file or directory\n")
        // 1: an error in the command line.
        for arguments in [["open"], ["open", "--no-system", "--bogus", file], ["open", ""]] {
            let syntax = try Run(arguments, environment: tree.environment)
            #expect(syntax.status == 1, "\(arguments): \(syntax.stderr)")
        }
        #expect(!tree.exists("started"), "nothing was opened")
    }

    @Test func runAsXDGOpen() throws {
        let tree = try Tree()
        let link = tree.path("bin/xdg-open")
        #expect(symlink(Run.binary.path, link) == 0)
        func xdgOpen(_ arguments: [String]) throws -> Run {
            try Run(arguments, environment: tree.environment, executable: link)
        }
        for arguments in [[], [""], ["a", "b"], ["-x"], ["--wait", "a"]] {
            let syntax = try xdgOpen(arguments)
            #expect(syntax.status == 1 && syntax.stdout.isEmpty, "\(arguments)")
        }
        #expect(try xdgOpen(["a", "b"]).stderr.hasPrefix("xdg-open: unexpected argument 'b'\n"))
        #expect(
            try xdgOpen(["-x"]).stderr.hasPrefix(
                "xdg-open: unexpected option '-x'; for a file of that name, write ./-x\n"))
        #expect(try xdgOpen([]).stderr.contains("xdg-open { file | URL }"))
        for (option, text) in [
            ("--help", "xdg-open { --help | --manual | --version }"), ("--manual", "EXIT CODES"),
            ("--version", "xdg-open (uti "),
        ] {
            let answer = try xdgOpen([option, "ignored"])
            #expect(answer.status == 0 && answer.stdout.contains(text), "\(option): \(answer.stdout)")
        }
        let missing = try xdgOpen([tree.path("gone.txt")])
        #expect(missing.status == 2 && missing.stderr == "xdg-open: \(tree.path("gone.txt")): no such file\n")
        #expect(try xdgOpen(["nothing:x"]).status == 3)
        #expect(try xdgOpen(["broken:x"]).status == 4)
        let opened = try xdgOpen(["file://" + tree.path("docs/a.txt")])
        #expect(opened.status == 0 && opened.stdout.isEmpty && opened.stderr.isEmpty, "\(opened.stderr)")
        let handler = try tree.awaitHandler()
        #expect(handler.arguments == [tree.path("docs/a.txt")] && Self.isRunning(handler.pid))
    }

    @Test func openInRunReturnsOnceStartedAndPrintsOnlyWhenAsked() throws {
        let tree = try Tree()
        let file = tree.path("docs/a.txt")
        let run = try Run(["open-in", "--no-system", "--run", file], environment: tree.environment)
        #expect(run.status == 0 && run.stdout.isEmpty && run.stderr.isEmpty, "\(run.stdout) \(run.stderr)")
        let handler = try tree.awaitHandler()
        #expect(Self.isRunning(handler.pid) && !tree.exists("ended"))
        try tree.write("release", "")
        let verbose = try Run(
            ["open-in", "--no-system", "--run", "--wait", "--verbose", file], environment: tree.environment)
        #expect(verbose.status == 0, "\(verbose.stderr)")
        #expect(
            verbose.stdout.contains("* handler.desktop") && verbose.stdout.contains("command: \(tree.root)/handler"))
        #expect(tree.exists("ended"))
        let wait = try Run(["open-in", "--no-system", "--wait", file], environment: tree.environment)
        #expect(wait.status == 2 && wait.stderr.contains("--wait waits for what --run or --choose opens"))
    }

    /// Runs `uti ARGUMENTS` on a pseudo-terminal (python3's `pty`), as from an interactive shell.
    static func onTerminal(_ arguments: [String], environment: [String: String]) throws -> Run {
        let script = "import os, pty, sys\nsys.exit(os.waitstatus_to_exitcode(pty.spawn(sys.argv[1:])))\n"
        return try Run(
            ["-c", script, Run.binary.path] + arguments, environment: environment, executable: "/usr/bin/python3")
    }

    /// `Terminal=true`: in the terminal uti runs in, waited for; off a
    /// terminal, in a terminal emulator, else refused with status 3.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func terminalEntriesRunInTheCallersTerminal() throws {
        let tree = try Tree()
        try tree.program(
            "console",
            """
            #!/bin/sh
            PATH=/usr/bin:/bin
            if [ -t 0 ] && [ -t 1 ]; then where=terminal; else where=none; fi
            printf '%s\\n' "$where" "$@" > '\(tree.root)/console-ran'
            """)
        try tree.write(
            "share/applications/console.desktop",
            """
            [Desktop Entry]
            Type=Application
            Name=Console
            Exec=\(tree.root)/console %f
            Terminal=true
            MimeType=text/plain;
            """)
        try tree.write("config/mimeapps.list", "[Default Applications]\ntext/plain=console.desktop\n")
        try tree.program(
            "bin/x-terminal-emulator", "#!/bin/sh\nprintf '%s\\n' \"$@\" > '\(tree.root)/emulator-ran'\n")
        let file = tree.path("docs/a.txt")
        let inTerminal = try Self.onTerminal(["open", "--no-system", file], environment: tree.environment)
        #expect(inTerminal.status == 0, "\(inTerminal.stdout)")
        // Waited for: its record is there when uti returns, and it ran on the terminal, not in an emulator.
        #expect(tree.exists("console-ran"))
        #expect(try tree.awaitLines("console-ran") == ["terminal", file])
        #expect(!tree.exists("emulator-ran"))

        let offTerminal = try Run(["open", "--no-system", file], environment: tree.environment)
        #expect(offTerminal.status == 0, "\(offTerminal.stderr)")
        #expect(try tree.awaitLines("emulator-ran") == ["-e", tree.path("console"), file])

        unlink(tree.path("bin/x-terminal-emulator"))
        let noEmulator = try Run(["open", "--no-system", file], environment: tree.environment)
        #expect(noEmulator.status == 3)
        #expect(noEmulator.stderr.contains("the entry runs in a terminal (Terminal=true), and none was found"))
    }

    /// `open-in --run` prints nothing but errors: an item it cannot open says why, as `uti open` does.
    @Test func openInRunSaysWhyAnItemIsNotOpened() throws {
        let tree = try Tree()
        try tree.write("docs/b.png", "")
        let scheme = try Run(["open-in", "--no-system", "--run", "nothing:x"], environment: tree.environment)
        #expect(scheme.status == 1 && scheme.stdout.isEmpty)
        #expect(scheme.stderr == "uti: nothing:x: no application opens URLs of scheme nothing\n")
        let file = tree.path("docs/b.png")
        let png = try Run(["open-in", "--no-system", "--run", file], environment: tree.environment)
        #expect(png.status == 1 && png.stderr == "uti: \(file): no application opens public.png (image/png)\n")
        let open = try Run(["open", "--no-system", file], environment: tree.environment)
        #expect(open.status == 3 && open.stderr == png.stderr)
        #expect(!tree.exists("started"))
    }

    /// A broken entry somewhere on the search path is told only where it
    /// bears on what was asked; run as xdg-open, every message says xdg-open.
    @Test func brokenEntriesSpeakOnlyForWhatTheyOpenAndXDGOpenNamesItself() throws {
        let tree = try Tree()
        try tree.write(
            "share/applications/badcode.desktop",
            "[Desktop Entry]\nType=Application\nName=Bad\nExec=sh -c \"echo %f\"\nMimeType=image/png;\n")
        try tree.write("docs/b.png", "")
        try tree.write("http:x.md", "")
        try tree.write("release", "")
        let link = tree.path("bin/xdg-open")
        #expect(symlink(Run.binary.path, link) == 0)
        let text = tree.path("docs/a.txt")
        for arguments in [
            ["open", "--no-system", "--wait", text], ["open-in", "--no-system", "--run", "--wait", text],
        ] {
            let quiet = try Run(arguments, environment: tree.environment)
            #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(arguments): \(quiet.stderr)")
        }
        let xdgQuiet = try Run([text], environment: tree.environment, executable: link)
        #expect(xdgQuiet.status == 0 && xdgQuiet.stderr.isEmpty, "\(xdgQuiet.stderr)")
        // For the item the broken entry claims, its problem is the reason.
        let png = tree.path("docs/b.png")
        let broken = try Run(["open", "--no-system", png], environment: tree.environment)
        #expect(broken.status == 3)
        #expect(broken.stderr.hasPrefix("uti: \(png): no application opens public.png (image/png)\n"))
        #expect(broken.stderr.contains("uti: \(tree.path("share/applications/badcode.desktop")):4: error: Exec:"))
        // open-in lists every problem of the sources.
        let listed = try Run(["open-in", "--no-system", text], environment: tree.environment)
        #expect(listed.status == 0 && listed.stderr.contains("badcode.desktop:4: error: Exec:"), "\(listed.stderr)")
        for arguments in [[png], ["http:x.md"]] {
            let run = try Run(arguments, environment: tree.environment, executable: link, directory: tree.root)
            let lines = run.stderr.split(separator: "\n")
            #expect(run.status == 3 && !lines.isEmpty, "\(arguments)")
            #expect(lines.allSatisfy { $0.hasPrefix("xdg-open: ") }, "\(run.stderr)")
        }
        let url = try Run(["http:x.md"], environment: tree.environment, executable: link, directory: tree.root)
        #expect(
            url.stderr.hasPrefix(
                "xdg-open: http:x.md is read as a URL (scheme http); for the file, write ./http:x.md\n"))
    }

    /// An argument that starts with - is named as an unknown option, with how to name such a file.
    @Test func anUnknownOptionIsNamedWithHowToOpenSuchAFile() throws {
        let tree = try Tree()
        try tree.write("docs/-x.txt", "text\n")
        try tree.write("release", "")
        for arguments in [["open", "-x.txt"], ["open", "-x.txt", "a.txt"], ["open", "a.txt", "-x.txt"]] {
            let run = try Run(arguments, environment: tree.environment, directory: tree.path("docs"))
            #expect(run.status == 1, "\(arguments)")
            #expect(
                run.stderr.hasPrefix(
                    "Error: Unknown option '-x.txt'; for a file of that name, write ./-x.txt (or put -- before it)\n"),
                "\(arguments): \(run.stderr)")
        }
        let link = tree.path("bin/xdg-open")
        #expect(symlink(Run.binary.path, link) == 0)
        let xdg = try Run(["-x.txt"], environment: tree.environment, executable: link, directory: tree.path("docs"))
        #expect(xdg.status == 1)
        #expect(xdg.stderr.hasPrefix("xdg-open: unexpected option '-x.txt'; for a file of that name, write ./-x.txt\n"))
        let ended = try Run(
            ["open", "--no-system", "--wait", "--", "-x.txt"], environment: tree.environment,
            directory: tree.path("docs"))
        #expect(ended.status == 0 && ended.stderr.isEmpty, "\(ended.stderr)")
        #expect(try tree.awaitHandler().arguments == [tree.path("docs/-x.txt")])
    }

    /// The application is given the path with its `.` and `..` resolved by their text, as GIO gives it.
    @Test func aPathIsGivenNormalized() throws {
        let tree = try Tree()
        try tree.write("release", "")
        let run = try Run(
            ["open", "--no-system", "--wait", "../docs/./a.txt"], environment: tree.environment,
            directory: tree.path("bin"))
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        #expect(try tree.awaitHandler().arguments == [tree.path("docs/a.txt")])
    }

    /// A `TERMINAL` that names no program is passed over for x-terminal-emulator;
    /// with no terminal at all, open-in's command is none and it exits 1, as uti open exits 3.
    @Test func aTerminalThatIsNoProgramFallsBackToTheNext() throws {
        let tree = try Tree()
        try tree.write(
            "share/applications/console.desktop",
            "[Desktop Entry]\nType=Application\nName=Console\nExec=\(tree.root)/handler %f\nTerminal=true\n"
                + "MimeType=text/plain;\n")
        try tree.write("config/mimeapps.list", "[Default Applications]\ntext/plain=console.desktop\n")
        try tree.program("bin/x-terminal-emulator", "#!/bin/sh\n")
        var environment = tree.environment
        environment["TERMINAL"] = "nonexistent"
        let file = tree.path("docs/a.txt")
        let found = try Run(["open-in", "--no-system", file], environment: environment)
        #expect(found.status == 0, "\(found.stderr)")
        #expect(
            found.stdout.contains("command: \(tree.path("bin/x-terminal-emulator")) -e \(tree.root)/handler \(file)"),
            "\(found.stdout)")
        unlink(tree.path("bin/x-terminal-emulator"))
        let none = try Run(["open-in", "--no-system", file], environment: environment)
        #expect(none.status == 1, "\(none.stdout)")
        #expect(
            none.stdout.contains("command: none (") && none.stdout.contains("TERMINAL=nonexistent is not a program"))
        let run = try Run(["open-in", "--no-system", "--run", file], environment: environment)
        #expect(
            run.status == 1 && run.stderr.hasPrefix("uti: \(file): console.desktop: the entry runs in a terminal"),
            "\(run.stderr)")
        let open = try Run(["open", "--no-system", file], environment: environment)
        #expect(open.status == 3 && open.stderr == run.stderr, "\(open.stderr)")
        #expect(!tree.exists("started"))
    }
}
