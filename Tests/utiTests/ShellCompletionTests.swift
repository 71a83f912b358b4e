import Foundation
import TestSupport
import Testing

/// The completion scripts `uti --generate-completion-script` writes, run by
/// each shell with the built binary on `PATH` as `uti`: paths where a path
/// is taken, extensions, MIME types and identifiers where a type is, desktop
/// IDs where an application is. Each shell works in a folder of its own
/// whose HOME and XDG folders are fixtures: the desktop entries offered are
/// the fixture's, whatever the machine has installed.
@Suite struct ShellCompletionTests {
    static func tool(_ name: String) -> String? {
        ["/usr/bin/", "/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
    static let bash = tool("bash")
    static let zsh = tool("zsh")
    static let fish = tool("fish")
    static let python3 = tool("python3")

    /// A command line up to the cursor, what its completion must offer,
    /// and what it must not.
    struct Case: Sendable {
        var line: String
        var offered: [String]
        var notOffered: [String] = []
    }

    static let cases = [
        Case(line: "uti file pho", offered: ["photo.jpg", "photos"], notOffered: ["notes.md"]),
        Case(line: "uti conforms jp", offered: ["jpg", "jpeg"], notOffered: ["png"]),
        Case(line: "uti lookup image/pn", offered: ["image/png"], notOffered: ["image/jpeg"]),
        Case(line: "uti lookup public.jp", offered: ["public.jpeg"], notOffered: ["public.png"]),
        Case(
            line: "uti set-default md ", offered: ["org.example.Editor.desktop", "org.example.Viewer.desktop"],
            notOffered: ["org.example.Hidden.desktop"]),
        Case(line: "uti inbox ", offered: ["photos"], notOffered: ["photo.jpg", "notes.md"]),
    ]

    /// A folder with `photo.jpg`, `photos/` and `notes.md` to work in,
    /// `uti` and the desktop entries' program in `bin`, two usable desktop
    /// entries and a hidden one, empty system folders, and a registry cache
    /// of its own; the three scripts.
    final class World: Sendable {
        let folder = TemporaryFolder("uti-completion")
        var work: String { folder.path("work") }

        /// `tools/install.sh --layout debian` into `prefix` when `installed`:
        /// its `bin/uti` comes first on `PATH`, and its scripts are the ones run.
        let installed: Bool
        var prefix: String { folder.path("prefix") }

        init(installed: Bool = false) throws {
            self.installed = installed
            try folder.makeFolder("work/photos")
            try folder.write("work/photo.jpg", "")
            try folder.write("work/notes.md", "# Notes\n")
            for name in ["home", "config", "etc-xdg", "share", "cache"] { try folder.makeFolder(name) }
            try folder.makeFolder("bin")
            try FileManager.default.createSymbolicLink(
                atPath: folder.path("bin/uti"), withDestinationPath: Run.binary.path)
            try folder.write("bin/fixture-editor", "#!/bin/sh\n")
            chmod(folder.path("bin/fixture-editor"), 0o755)
            for (name, hidden) in [("Editor", false), ("Viewer", false), ("Hidden", true)] {
                try folder.write(
                    "data/applications/org.example.\(name).desktop",
                    "[Desktop Entry]\nType=Application\nName=\(name)\nExec=fixture-editor %f\nMimeType=text/markdown;\n"
                        + (hidden ? "Hidden=true\n" : ""))
            }
            for shell in ["bash", "zsh", "fish"] {
                let script = try ProgramRun(
                    Run.binary, ["--generate-completion-script", shell], environment: environment)
                #expect(script.status == 0, "\(script.stderr)")
                try folder.write("\(shell)-script", script.stdout)
            }
            if installed {
                let run = try ProgramRun(
                    URL(fileURLWithPath: "/bin/sh"),
                    [
                        InstallTests.repository + "/tools/install.sh", "--prefix", prefix, "--layout", "debian",
                        "--binary", Run.binary.path,
                    ], environment: ["HOME": folder.path("home"), "PATH": "/usr/bin:/bin"])
                #expect(run.status == 0, "\(run.stderr)")
            }
        }

        var environment: [String: String] {
            [
                "PATH": (installed ? prefix + "/bin:" : "") + folder.path("bin") + ":/usr/bin:/bin",
                "HOME": folder.path("home"),
                "XDG_CONFIG_HOME": folder.path("config"), "XDG_CONFIG_DIRS": folder.path("etc-xdg"),
                "XDG_DATA_HOME": folder.path("data"), "XDG_DATA_DIRS": folder.path("share"),
                "XDG_CACHE_HOME": folder.path("cache"), "UTI_CACHE_DIR": folder.path("cache"), "UTI_MIME_TYPES": "",
                "LANG": "C.UTF-8", "TERM": "dumb",
            ]
        }

        /// Runs an interactive `shell` on a terminal (`Fixtures/completion/terminal.py`):
        /// `setup` ends by setting the prompt `READY> `, then `keys` are typed, and
        /// the run ends when `end` is printed.
        func terminal(_ shell: [String], setup: String, keys: String, end: String) throws -> String {
            let run = try ProgramRun(
                URL(fileURLWithPath: try #require(ShellCompletionTests.python3)),
                [fixture("completion/terminal.py")] + shell,
                stdin: [setup, "READY> ", keys, end].joined(separator: "\n") + "\n", environment: environment,
                directory: work)
            #expect(run.status == 0, "the shell did not print \(end): \(run.stdout) \(run.stderr)")
            return run.stdout
        }
    }

    /// Checks `candidates` (folders with or without their `/`) against `test`.
    static func check(_ candidates: [String], _ test: Case, shell: String) {
        let names = Set(candidates.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 })
        for name in test.offered {
            #expect(names.contains(name), "\(shell): \"\(test.line)\" does not offer \(name): \(candidates)")
        }
        for name in test.notOffered {
            #expect(!names.contains(name), "\(shell): \"\(test.line)\" offers \(name)")
        }
    }

    /// bash: `script` sourced, `COMP_*` set as readline sets them, the
    /// completion function called, `COMPREPLY` printed; the candidates of each case.
    static func bashCandidates(_ world: World, script path: String, _ cases: [Case]) throws -> [[String]] {
        var script = """
            source \(path)
            complete_line() {
                COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
                read -ra COMP_WORDS <<<"$1"
                [[ "$1" == *" " ]] && COMP_WORDS+=("")
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
                _uti uti "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
                printf '== %s\\n' "$1"; printf '%s\\n' "${COMPREPLY[@]}"
            }

            """
        for test in cases { script += "complete_line '\(test.line)'\n" }
        let run = try ProgramRun(
            URL(fileURLWithPath: try #require(Self.bash)), ["--norc", "--noprofile", "-c", script],
            environment: world.environment, directory: world.work)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        let sections = run.stdout.components(separatedBy: "== ").dropFirst()
        try #require(sections.count == cases.count, "\(run.stdout)")
        return zip(sections, cases).map { section, test in
            let lines = section.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.first == test.line)
            return lines.dropFirst().filter { !$0.isEmpty }
        }
    }

    @Test(.enabled(if: bash != nil, "bash is not installed"))
    func bashOffersPathsTypesAndApplications() throws {
        let world = try World()
        let found = try Self.bashCandidates(world, script: world.folder.path("bash-script"), Self.cases)
        for (candidates, test) in zip(found, Self.cases) { Self.check(candidates, test, shell: "bash") }
    }

    /// The scripts `tools/install.sh --layout debian` installs (as the
    /// Debian package holds them: bash's without `#!`, zsh's found on
    /// `fpath` by `compinit`) complete with the installed `uti`.
    @Test(.enabled(if: bash != nil, "bash is not installed"))
    func installedScriptsComplete() throws {
        let world = try World(installed: true)
        let cases = [Self.cases[0], Self.cases[2], Self.cases[4]]
        let bash = try Self.bashCandidates(
            world, script: world.prefix + "/share/bash-completion/completions/uti", cases)
        for (candidates, test) in zip(bash, cases) { Self.check(candidates, test, shell: "bash (installed)") }
        guard Self.zsh != nil, Self.python3 != nil else { return }
        let zsh = try Self.zshCandidates(
            world, before: "fpath=(\(world.prefix)/share/zsh/vendor-completions $fpath)", cases)
        for (candidates, test) in zip(zsh, cases) { Self.check(candidates, test, shell: "zsh (installed)") }
    }

    /// zsh: real completion in an interactive `zsh -f` on a terminal,
    /// `before` run before `compinit` and `after` after it; a `compadd` in front of the builtin
    /// writes down what each call adds (as the builtin matches it against
    /// the word) before adding it. The candidates of each case.
    static func zshCandidates(
        _ world: World, before: String = "", after: String = "", _ cases: [Case]
    ) throws -> [[String]] {
        try world.folder.write(
            "probe.zsh",
            """
            \(before)
            autoload -Uz compinit && compinit -u -D
            \(after)
            compadd() {
                if (( ${@[(I)-[ODA]*]} )); then builtin compadd "$@"; return; fi
                local -a found
                builtin compadd -A found "$@"
                print -rl -- $found >> $CAPTURE
                builtin compadd "$@"
            }

            """)
        return try cases.enumerated().map { index, test in
            let capture = world.folder.path("capture-\(index)")
            try world.folder.write("capture-\(index)", "")
            _ = try world.terminal(
                [try #require(Self.zsh), "-f", "-i"],
                setup: "CAPTURE=\(capture); source \(world.folder.path("probe.zsh")); PROMPT='RE''ADY> '",
                // Tab, then Control-U empties the line; the end marker is printed by a command of its own.
                keys: test.line + "\\t\\x15print -r __DO\"\"NE__\\r", end: "__DONE__")
            return try String(contentsOfFile: capture, encoding: .utf8).split(separator: "\n").map(String.init)
        }
    }

    @Test(.enabled(if: zsh != nil && python3 != nil, "zsh or python3 is not installed"))
    func zshOffersPathsTypesAndApplications() throws {
        let world = try World()
        let found = try Self.zshCandidates(world, after: "source \(world.folder.path("zsh-script"))", Self.cases)
        for (candidates, test) in zip(found, Self.cases) { Self.check(candidates, test, shell: "zsh") }
    }

    /// fish: an interactive `fish --no-config` on a terminal, where a key
    /// bound to a function prints `complete -C` of the line being edited
    /// (fish 3's `commandline -C`, which the script asks for the cursor,
    /// answers only in an interactive session).
    @Test(.enabled(if: fish != nil && python3 != nil, "fish or python3 is not installed"))
    func fishOffersPathsTypesAndApplications() throws {
        let world = try World()
        try world.folder.write(
            "probe.fish",
            """
            source \(world.folder.path("fish-script"))
            function probe
                printf '\\n__BEGIN__\\n'
                complete -C (commandline)
                printf '__END__\\n'
            end
            bind \\cg probe
            function fish_prompt
                printf 'RE''ADY> '
            end

            """)
        for test in Self.cases {
            let output = try world.terminal(
                [try #require(Self.fish), "--no-config", "-i"],
                setup: "source \(world.folder.path("probe.fish"))", keys: test.line + "\\a", end: "__END__")
            let text = output.replacingOccurrences(of: "\r", with: "")
            let listed = try #require(
                text.range(of: "__BEGIN__\n").flatMap { begin in
                    text.range(of: "__END__", range: begin.upperBound..<text.endIndex).map {
                        text[begin.upperBound..<$0.lowerBound]
                    }
                }, "\(text)")
            let found = listed.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
            Self.check(found, test, shell: "fish")
        }
    }
}
