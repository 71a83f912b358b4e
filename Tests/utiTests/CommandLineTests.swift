import Foundation
import TestSupport
import Testing

@testable import uti

/// The machine as the built `uti` sees it in these tests, made for this
/// test process in a temporary folder and removed when it exits: an empty
/// home and empty XDG folders (never the user's own configuration, data or
/// cache), a `PATH` that holds only the few ordinary tools the tests'
/// scripts use (so no terminal, selector or other application of the
/// machine is ever found), and the compiled registries of this run.
enum TestWorld {
    static let root: String = {
        let folder = TemporaryFolder("uti-tests")
        let root = folder.path
        // Kept for the whole process (`TemporaryFolder` would remove it when released), and removed at exit.
        retained = folder
        for name in [
            "home", "config", "etc-xdg", "data", "share", "cache", "state", "runtime", "bin", "registry-cache",
        ] {
            try! folder.makeFolder(name)
        }
        chmod(root + "/runtime", 0o700)
        try! folder.makeFolder("system-mime")
        symlink("/usr/share/mime", root + "/system-mime/mime")
        for tool in tools {
            let places: [String] = ["/usr/bin/" + tool, "/bin/" + tool]
            if let source = places.first(where: { access($0, X_OK) == 0 }) {
                symlink(source, root + "/bin/" + tool)
            }
        }
        atexit { TestWorld.retained = nil }
        return root
    }()

    nonisolated(unsafe) private static var retained: TemporaryFolder?

    /// What the tests' shell scripts and commands call by name: ordinary
    /// tools, none of which opens a window or another program of the user's.
    static let tools = [
        "sh", "cat", "sed", "tr", "dirname", "basename", "echo", "printf", "true", "false", "sleep", "mkdir", "rm",
        "touch", "chmod", "ls", "id", "kill", "find", "xargs", "stat", "wc", "head", "tail", "grep", "env",
    ]

    static var bin: String { root + "/bin" }

    /// A data folder that holds the system's MIME database (README's set-up)
    /// and nothing else of /usr/share: no desktop entry or type declaration
    /// installed on this machine.
    static var systemMIMEOnly: String { root + "/system-mime" }
}

/// Runs the built `uti` and captures what it prints and its exit status.
struct Run {
    var status: Int32
    var stdout: String
    var stderr: String

    /// Compiled registries of this test run, kept out of the user's cache.
    static var cacheDirectory: String { TestWorld.root + "/registry-cache" }

    static var binary: URL { BuiltProducts.url("uti") }

    /// The test environment, built whole (nothing comes from this
    /// process's): the test world's folders, no user or system data unless
    /// `additions` (added last) brings some, this run's own cache, and the
    /// C locale.
    static func environment(_ additions: [String: String] = [:]) -> [String: String] {
        let world = TestWorld.root
        var env = [
            "PATH": TestWorld.bin,
            "HOME": world + "/home",
            "XDG_CONFIG_HOME": world + "/config",
            "XDG_CONFIG_DIRS": world + "/etc-xdg",
            "XDG_DATA_HOME": world + "/data",
            "XDG_DATA_DIRS": world + "/share",
            "XDG_CACHE_HOME": world + "/cache",
            "XDG_STATE_HOME": world + "/state",
            "XDG_RUNTIME_DIR": world + "/runtime",
            "UTI_MIME_TYPES": "",
            "UTI_CACHE_DIR": Run.cacheDirectory,
            "LANG": "C.UTF-8",
        ]
        for (k, v) in additions { env[k] = v }
        return env
    }

    init(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
        executable: String? = nil, directory: String? = nil
    ) throws {
        let run = try ProgramRun(
            executable.map { URL(fileURLWithPath: $0) } ?? Run.binary, arguments, stdin: stdin,
            environment: Run.environment(environment), directory: directory)
        status = run.status
        stdout = run.stdout
        stderr = run.stderr
    }

    init(_ arguments: String..., stdin: String? = nil, environment: [String: String] = [:]) throws {
        try self.init(arguments, stdin: stdin, environment: environment)
    }

    var lines: [String] {
        stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast(
            stdout.hasSuffix("\n") ? 1 : 0)
    }

    func json() throws -> Any { try JSONSerialization.jsonObject(with: Data(stdout.utf8)) }
}

func fixture(_ name: String) -> String {
    Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil)!.path
}

@Suite struct LookupCommandTests {
    @Test func describesAnExtension() throws {
        let run = try Run("jpg")
        #expect(run.status == 0)
        #expect(run.lines.first == "public.jpeg  JPEG image")
        #expect(run.stdout.contains("  query:            extension \"jpg\""))
        #expect(run.stdout.contains("  supertypes:       public.image, public.data, public.content, public.item"))
        #expect(run.stdout.contains("  extensions:       jpeg, jpg, jpe"))
        #expect(run.stdout.contains("Data/CoreTypes.plist:"))
        #expect(run.stderr.isEmpty)
    }

    @Test(arguments: [
        (["jpg", "-b"], "public.jpeg"),
        (["image/png", "--brief"], "public.png"),
        (["PUBLIC.HTML", "-b"], "public.html"),
        (["--as-extension", "public.jpeg", "-b"], "dyn.ah62d4rv4ge81a7pcrvy0gpxnsbw0s"),
        (["sql", "-b"], "dyn.ah62d4rv4ge81g6pq"),
        (["--tag-class", "ostype", "JPEG", "-b"], "public.jpeg"),
        (["--conforming-to", "public.audio", "mp4", "-b"], "public.mpeg-4-audio"),
        (["lookup", "file", "-b"], "dyn.ah62d4rv4ge80q4pqqy"),
    ])
    func briefAnswers(arguments: [String], expected: String) throws {
        let run = try Run(arguments)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == expected + "\n")
    }

    @Test func jsonSchema() throws {
        let run = try Run("--json", "mp4", "dyn.age81e62")
        #expect(run.status == 0)
        let results = try #require(try run.json() as? [[String: Any]])
        #expect(results.count == 2)
        #expect(results[0]["query"] as? String == "mp4")
        #expect(results[0]["queryKind"] as? String == "extension")
        #expect(results[0]["alternatives"] as? [String] == ["public.mpeg-4-audio"])
        let type = try #require(results[0]["type"] as? [String: Any])
        #expect(type["identifier"] as? String == "public.mpeg-4")
        #expect(
            type["declared"] as? Bool == true && type["dynamic"] as? Bool == false && type["public"] as? Bool == true)
        #expect(type["conformsTo"] as? [String] == ["public.movie"])
        #expect((type["tags"] as? [String: [String]])?["public.filename-extension"] == ["mp4", "mpg4"])
        #expect(type["preferredMIMEType"] as? String == "video/mp4")
        let origin = try #require(type["origin"] as? [String: Any])
        #expect(origin["source"] as? String == "bundled" && origin["kind"] as? String == "exported")
        #expect(origin["file"] as? String == "Data/CoreTypes.plist" && origin["line"] is Int)
        let dynamic = try #require(results[1]["type"] as? [String: Any])
        #expect(dynamic["dynamic"] as? Bool == true && dynamic["origin"] is NSNull)
        #expect((dynamic["tags"] as? [String: [String]])?["public.filename-extension"] == ["rs"])
    }

    @Test func unknownIdentifierAndBadArguments() throws {
        let missing = try Run("--as-identifier", "com.example.nothing")
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("com.example.nothing: no type is declared with identifier"))
        let badDynamic = try Run("dyn.aIII")
        #expect(badDynamic.status == 1 && badDynamic.stderr.contains("not a well-formed dynamic identifier"))
        #expect(try Run("--no-such-flag", "jpg").status == 2)
        #expect(try Run("--as-mime", "--as-extension", "jpg").status == 2)
        #expect(try Run("lookup").status == 2)
    }

    @Test func helpAndVersion() throws {
        let help = try Run("--help")
        #expect(help.status == 0 && help.stdout.contains("Examples:") && help.stdout.contains("conforms"))
        let version = try Run("--version")
        #expect(version.status == 0 && version.stdout == "0.1.0\n")
        let completion = try Run("--generate-completion-script", "bash")
        #expect(completion.status == 0 && completion.stdout.contains("uti"))
        // The values --class, --tag-class and --role accept are offered.
        #expect(completion.stdout.contains("-W 'extension'$'\\n''mime'$'\\n''ostype'"))
        #expect(completion.stdout.contains("'viewer'$'\\n''editor'$'\\n''shell'"))
    }
}

@Suite struct RelationCommandTests {
    @Test func conformsExitCodes() throws {
        let yes = try Run("conforms", "jpg", "public.image")
        #expect(yes.status == 0 && yes.stdout.isEmpty && yes.stderr.isEmpty)
        let no = try Run("conforms", "jpg", "public.text")
        #expect(no.status == 1 && no.stdout.isEmpty && no.stderr.isEmpty)
        let verbose = try Run("conforms", "-v", "image/png", "public.data")
        #expect(verbose.status == 0 && verbose.stdout == "public.png conforms to public.data\n")
        let typo = try Run("conforms", "jpg", "public.imgae")
        #expect(typo.status == 2 && typo.stderr.contains("SUPERTYPE \"public.imgae\""))
        #expect(try Run("conforms", "jpg").status == 2)
        #expect(try Run("conforms", "sql", "public.data").status == 0)
    }

    @Test func equalSupertypesDescendantsGraphDecode() throws {
        #expect(try Run("equal", "jpg", "image/jpeg").status == 0)
        #expect(try Run("equal", "jpg", "png").status == 1)
        #expect(
            try Run("supertypes", "public.jpeg").lines == [
                "public.image", "public.data", "public.content", "public.item",
            ])
        let descendants = try Run("descendants", "public.image")
        #expect(
            descendants.status == 0 && descendants.lines.contains("public.jpeg")
                && !descendants.lines.contains("public.image"))
        let graph = try Run("graph", "public.jpeg", "--up")
        #expect(graph.stdout.hasPrefix("digraph \"public.jpeg\" {"))
        #expect(graph.stdout.contains("\"public.jpeg\" -> \"public.image\";"))
        #expect(graph.stdout.contains("\"public.data\" -> \"public.item\";"))
        let down = try Run("graph", "public.image")
        #expect(down.stdout.contains("\"public.png\" -> \"public.image\";"))
        let decode = try Run("decode", "dyn.ah62d4rv4ge81g6pq")
        #expect(
            decode.lines == ["dyn.ah62d4rv4ge81g6pq", "  conforms to: public.data", "  public.filename-extension: sql"])
        #expect(try Run("decode", "public.jpeg").status == 2)
    }

    @Test func tags() throws {
        #expect(try Run("tags", "jpg", "--class", "extension").lines == ["jpeg", "jpg", "jpe"])
        #expect(try Run("tags", "public.jpeg", "--class", "mime", "--preferred").lines == ["image/jpeg"])
        let images = try Run("tags", "public.image", "--class", "extension", "--descendants").lines
        #expect(images.contains("jpg") && images.contains("png") && !images.contains("txt"))
        let json = try #require(try Run("tags", "public.png", "--json").json() as? [String: Any])
        #expect((json["tags"] as? [String: [String]])?["public.mime-type"] == ["image/png"])
        #expect(try Run("tags", "public.image", "--class", "extension").status == 1)
        #expect(try Run("tags", "jpg", "--preferred").status == 2)
    }
}

/// `-` is standard input wherever a file is taken, as in `uti file -`.
@Suite struct StandardInputConformsTests {
    @Test(arguments: [
        (["conforms", "-", "public.shell-script"], 0), (["conforms", "--file", "-", "public.shell-script"], 0),
        (["conforms", "-", "public.image"], 1), (["conforms", "-", "public.script"], 0),
    ])
    func dashIsStandardInput(arguments: [String], status: Int) throws {
        let run = try Run(arguments, stdin: "#!/bin/sh\necho hi\n", environment: ["XDG_DATA_DIRS": "/usr/share"])
        #expect(run.status == Int32(status) && run.stderr.isEmpty, "\(arguments): \(run.stderr)")
        let file = try Run(
            ["file", "-b", "-"], stdin: "#!/bin/sh\necho hi\n", environment: ["XDG_DATA_DIRS": "/usr/share"])
        #expect(file.lines == ["public.shell-script"])
    }
}

@Suite struct FileAndBatchCommandTests {
    @Test(arguments: [
        ["--conforming-to", "public.text"], ["--as-mime"], ["--as-identifier"], ["--as-extension"], ["--unfiltered"],
        ["--tag-class", "ostype"],
    ])
    func batchFileRefusesTheQueryOptions(options: [String]) throws {
        let run = try Run(["batch", "--file"] + options, stdin: "a.jpg\n")
        #expect(run.status == 2 && run.stdout.isEmpty)
        #expect(run.stderr.contains("\(options[0]) reads queries; --file lines are file names"), "\(run.stderr)")
    }

    @Test func fileByName() throws {
        let run = try Run("file", "photo.JPG", "a.tar.gz", "/")
        #expect(
            run.lines == [
                "photo.JPG: public.jpeg (image/jpeg, JPEG image) by name; no such file",
                "a.tar.gz: org.gnu.gnu-zip-archive (application/x-gzip, GZip archive) by name; no such file",
                "/: public.folder (folder) by file-system",
            ])
        let json = try #require(try Run("file", "--json", "x.md").json() as? [[String: Any]])
        #expect(json[0]["basis"] as? String == "name" && json[0]["matchedExtension"] as? String == "md")
    }

    @Test func batchAnswersInOrder() throws {
        let run = try Run("batch", stdin: "jpg\nimage/png\npublic.html\nsql\n")
        #expect(run.status == 0)
        #expect(run.lines == ["public.jpeg", "public.png", "public.html", "dyn.ah62d4rv4ge81g6pq"])
        // A name that gives no type is no answer, as `uti file --no-sniff README` says.
        let files = try Run("batch", "--file", stdin: "a.jpg\n/x/y/b.tar.gz\nREADME\nc.unknown\n")
        #expect(
            files.status == 1
                && files.lines == ["public.jpeg", "org.gnu.gnu-zip-archive", "", "dyn.ah62d4rv4ge81n5xpr311s5u"])
        let bad = try Run("batch", stdin: "jpg\n\npng\n")
        #expect(bad.status == 1 && bad.lines == ["public.jpeg", "", "public.png"])
        #expect(bad.stderr.contains("standard input line 2"))
        let jsonl = try Run("batch", "--json", stdin: "jpg\npng\n")
        #expect(jsonl.lines.count == 2)
        for line in jsonl.lines {
            #expect((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["type"] != nil)
        }
    }

    @Test func manyQueriesThroughOneProcess() throws {
        let names = (0..<5000).map { "file\($0).\(["jpg", "png", "txt", "zz\($0 % 7)"][$0 % 4])" }
        let run = try Run("batch", "--file", stdin: names.joined(separator: "\n") + "\n")
        #expect(run.status == 0)
        #expect(run.lines.count == 5000)
        #expect(run.lines[0] == "public.jpeg" && run.lines[2] == "public.plain-text")
    }
}

@Suite struct DeclarationCommandTests {
    @Test func declarationsOptionAndEnvironment() throws {
        let run = try Run("--declarations", fixture("cookbook-Info.plist"), "cookbook", "-b")
        #expect(run.status == 0 && run.stdout == "com.example.cookbookfile\n")
        let env = try Run("cookbook", "-b", environment: ["UTI_DECLARATIONS": fixture("cookbook-Info.plist")])
        #expect(env.stdout == "com.example.cookbookfile\n")
        let conforms = try Run("conforms", "--declarations", fixture("cookbook-Info.plist"), "cookbook", "public.text")
        #expect(conforms.status == 0)
    }

    @Test func brokenDeclarationSourcesStopWithStatus2() throws {
        let missing = try Run("--declarations", "/nonexistent/types.plist", "jpg")
        #expect(missing.status == 2 && missing.stderr.contains("/nonexistent/types.plist"))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("uti-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let broken = dir.appendingPathComponent("broken.plist")
        try "<plist>\n<dict>\n<key>x</key>\n</plist>".write(to: broken, atomically: true, encoding: .utf8)
        let run = try Run("--declarations", broken.path, "jpg")
        #expect(run.status == 2)
        #expect(run.stderr.contains("\(broken.path):4: error: malformed property list"))
        #expect(run.stdout.isEmpty)
    }

    /// A broken file in an XDG `uti/types` folder is named and left out;
    /// the answer comes from the other sources, on every run.
    @Test func brokenFoundDeclarationFilesAreSkipped() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("uti-e2e-\(UUID().uuidString)")
        let types = dir.appendingPathComponent("uti/types")
        try FileManager.default.createDirectory(at: types, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let broken = types.appendingPathComponent("broken.plist").path
        try "<plist>\n<dict>\n".write(toFile: broken, atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(
            atPath: fixture("cookbook-Info.plist"), toPath: types.appendingPathComponent("cookbook.plist").path)
        for arguments in [["cookbook", "-b"], ["cookbook", "-b"], ["conforms", "cookbook", "public.text"]] {
            let run = try Run(arguments, environment: ["XDG_DATA_HOME": dir.path])
            #expect(run.status == 0, "\(arguments)")
            #expect(run.stdout == (arguments[0] == "conforms" ? "" : "com.example.cookbookfile\n"))
            #expect(
                run.stderr
                    == "uti: \(broken):3: error: malformed property list: Premature end of data in tag dict line 2; the file is skipped\n"
            )
        }
    }

    @Test func validate() throws {
        let clean = try Run("validate", fixture("cookbook-Info.plist"))
        #expect(clean.status == 0)
        #expect(clean.lines.last == "1 file, 2 types: 0 errors, 0 warnings")
        let bad = try Run("validate", fixture("bad-declarations.plist"))
        #expect(bad.status == 1)
        #expect(bad.stdout.contains("bad-declarations.plist:6: error: type declaration has no UTTypeIdentifier"))
        #expect(
            bad.stdout.contains(
                "bad-declarations.plist:14: warning: com.example.orphan conforms to com.example.missing-parent"))
        let json = try #require(
            try Run("validate", "--json", fixture("bad-declarations.plist")).json() as? [String: Any])
        #expect((json["errors"] as? Int ?? 0) >= 3)
        let first = try #require((json["diagnostics"] as? [[String: Any]])?.first)
        #expect(first["line"] is Int && first["severity"] is String && first["file"] is String)
        #expect(try Run("validate", "/nonexistent.plist").status == 2)
        #expect(try Run("validate", "--strict", fixture("cookbook-Info.plist")).status == 0)
    }
}

/// `uti help COMMAND` as Tests/utiTests/Fixtures/help holds it, so that a
/// change to help text is seen in review (tools/update-help-snapshots.sh
/// rewrites them).
@Suite struct HelpSnapshotTests {
    @Test(arguments: CommandNames.ordered.filter { $0 != "help" } + ["uti"])
    func helpTextIsTheSnapshot(command: String) throws {
        let run = try Run(command == "uti" ? ["--help"] : ["help", command], environment: ["COLUMNS": "80"])
        #expect(run.status == 0)
        let snapshot = try String(contentsOfFile: fixture("help/\(command).txt"), encoding: .utf8)
        #expect(
            run.stdout == snapshot,
            "uti help \(command) changed: run tools/update-help-snapshots.sh and review the difference")
    }
}

/// `uti help WORD` for a word that is no command is an error, not the
/// general help with status 0.
@Suite struct HelpForNoCommandTests {
    @Test(arguments: ["nosuch", "wtach", "jpg"])
    func helpForAWordThatIsNoCommandIsAnError(word: String) throws {
        let run = try Run(["help", word])
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == "uti: help: \"\(word)\" is not a command; uti --help lists them\n")
    }
}

/// A cache folder `uti` cannot use costs every run the sources' reading:
/// it is said once a run, whichever door the query came in by.
@Suite struct UnusableCacheFolderTests {
    @Test(arguments: [["-b", "jpg"], ["lookup", "--brief", "jpg"], ["conforms", "-v", "jpg", "public.image"]])
    func isToldOnceOnStandardError(arguments: [String]) throws {
        let folder = TemporaryFolder("uti-cache")
        try folder.makeFolder("shared")
        chmod(folder.path("shared"), 0o777)
        let run = try Run(arguments, environment: ["UTI_CACHE_DIR": folder.path("shared")])
        #expect(run.status == 0)
        #expect(!run.stdout.isEmpty)
        #expect(
            run.stderr == "uti: warning: the compiled registry cannot be kept in \(folder.path("shared")) "
                + "(\(folder.path("shared")) is writable by other users), so every run reads the type sources "
                + "again; set UTI_CACHE_DIR to a folder only you can write, or to nothing to turn the cache off\n")
        // Nothing was written there.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("shared")).isEmpty)
        // A folder that cannot be made is told the same way; an empty value turns the cache off quietly.
        let missing = try Run(arguments, environment: ["UTI_CACHE_DIR": "/proc/uti-no-such-folder"])
        #expect(missing.status == 0 && missing.stdout == run.stdout)
        #expect(
            missing.stderr.hasPrefix("uti: warning: the compiled registry cannot be kept in /proc/uti-no-such-folder (")
        )
        #expect(missing.stderr.split(separator: "\n").count == 1)
        let off = try Run(arguments, environment: ["UTI_CACHE_DIR": ""])
        #expect(off.status == 0 && off.stdout == run.stdout && off.stderr.isEmpty)
    }
}
