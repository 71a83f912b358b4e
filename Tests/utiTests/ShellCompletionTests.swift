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

        init() throws {
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
        }

        var environment: [String: String] {
            [
                "PATH": folder.path("bin") + ":/usr/bin:/bin", "HOME": folder.path("home"),
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

    /// bash: the script sourced, `COMP_*` set as readline sets them, the
    /// completion function called, `COMPREPLY` printed.
    @Test(.enabled(if: bash != nil, "bash is not installed"))
    func bashOffersPathsTypesAndApplications() throws {
        let world = try World()
        var script = """
            source \(world.folder.path("bash-script"))
            complete_line() {
                COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
                read -ra COMP_WORDS <<<"$1"
                [[ "$1" == *" " ]] && COMP_WORDS+=("")
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
                _uti uti "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
                printf '== %s\\n' "$1"; printf '%s\\n' "${COMPREPLY[@]}"
            }

            """
        for test in Self.cases { script += "complete_line '\(test.line)'\n" }
        let run = try ProgramRun(
            URL(fileURLWithPath: try #require(Self.bash)), ["--norc", "--noprofile", "-c", script],
            environment: world.environment, directory: world.work)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        let sections = run.stdout.components(separatedBy: "== ").dropFirst()
        try #require(sections.count == Self.cases.count, "\(run.stdout)")
        for (section, test) in zip(sections, Self.cases) {
            let lines = section.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.first == test.line)
            Self.check(lines.dropFirst().filter { !$0.isEmpty }, test, shell: "bash")
        }
    }

    /// zsh: real completion in an interactive `zsh -f` on a terminal, after
    /// `compinit`; a `compadd` in front of the builtin writes down what each
    /// call adds (as the builtin matches it against the word) before adding it.
    @Test(.enabled(if: zsh != nil && python3 != nil, "zsh or python3 is not installed"))
    func zshOffersPathsTypesAndApplications() throws {
        let world = try World()
        try world.folder.write(
            "probe.zsh",
            """
            autoload -Uz compinit && compinit -u -D
            source \(world.folder.path("zsh-script"))
            compadd() {
                if (( ${@[(I)-[ODA]*]} )); then builtin compadd "$@"; return; fi
                local -a found
                builtin compadd -A found "$@"
                print -rl -- $found >> $CAPTURE
                builtin compadd "$@"
            }

            """)
        for (index, test) in Self.cases.enumerated() {
            let capture = world.folder.path("capture-\(index)")
            try world.folder.write("capture-\(index)", "")
            _ = try world.terminal(
                [try #require(Self.zsh), "-f", "-i"],
                setup: "CAPTURE=\(capture); source \(world.folder.path("probe.zsh")); PROMPT='RE''ADY> '",
                // Tab, then Control-U empties the line; the end marker is printed by a command of its own.
                keys: test.line + "\\t\\x15print -r __DO\"\"NE__\\r", end: "__DONE__")
            let found = try String(contentsOfFile: capture, encoding: .utf8).split(separator: "\n").map(String.init)
            Self.check(found, test, shell: "zsh")
        }
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
