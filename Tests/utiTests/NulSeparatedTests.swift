import Foundation
import TestSupport
import Testing

@testable import uti

/// `-0`: lists of names whose records end with NUL, as `find -print0`
/// writes them and `xargs -0` reads them, through `uti batch` and
/// `uti file` (whose `-0` is file(1)'s: a NUL after each path).
@Suite struct NulSeparatedTests {
    /// A PNG's first bytes.
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 24)

    /// Files whose names hold a space, a line feed and a byte that is not UTF-8.
    static func folder() throws -> TemporaryFolder {
        let folder = TemporaryFolder("uti-nul")
        try folder.write("two words.png", bytes: png)
        try folder.write("line\nfeed.txt", "text\n")
        try folder.write("plain.jpg", bytes: [])
        try folder.write(name: Array("bad".utf8) + [0xFF] + Array("name.png".utf8), bytes: png)
        return folder
    }

    /// Runs `script` in `sh` in `directory`, `$UTI` the built tool.
    static func shell(_ script: String, in directory: String) throws -> Run {
        try Run(
            ["-c", "UTI=\"$0\"; " + script, Run.binary.path], environment: ["XDG_DATA_DIRS": "/usr/share"],
            executable: "/bin/sh", directory: directory)
    }

    /// The records of `text`, each ended by NUL.
    static func records(_ text: String) -> [String] {
        #expect(text.isEmpty || text.hasSuffix("\0"), "\(text.debugDescription) must end with NUL")
        return text.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    @Test func batchReadsWhatFindPrints() throws {
        let folder = try Self.folder()
        let run = try Self.shell(
            #"find . -type f ! -name list -print0 > list && "$UTI" batch --file -0 < list"#, in: folder.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty)
        // find's order: the answers come in the order of its records.
        let list = try #require(FileManager.default.contents(atPath: folder.path + "/list"))
        let names = list.split(separator: 0, omittingEmptySubsequences: false).dropLast()
        #expect(names.count == 4)
        let expected = names.map { name in
            name.elementsEqual(Array("./line\nfeed.txt".utf8))
                ? "public.plain-text" : name.elementsEqual(Array("./plain.jpg".utf8)) ? "public.jpeg" : "public.png"
        }
        #expect(Self.records(run.stdout) == expected, "\(run.stdout.debugDescription)")
    }

    @Test func batchRecordsAreTakenAsTheyAre() throws {
        // A space, a line feed and a carriage return belong to the record.
        let names = try Run(
            ["batch", "--file", "-0"], stdin: "two words.png\0line\nfeed.txt\0a.md\0")
        #expect(names.status == 0, "\(names.stderr)")
        #expect(Self.records(names.stdout) == ["public.png", "public.plain-text", "net.daringfireball.markdown"])
        // The last record needs no NUL, as for xargs -0.
        let queries = try Run(["batch", "-0"], stdin: "jpg\0image/png")
        #expect(queries.status == 0 && Self.records(queries.stdout) == ["public.jpeg", "public.png"])
        let json = try Run(["batch", "-0", "--json"], stdin: "jpg\0")
        let object = try JSONSerialization.jsonObject(with: Data(Self.records(json.stdout)[0].utf8))
        #expect((object as? [String: Any])?["query"] as? String == "jpg")
    }

    @Test func batchNonUTF8NamesAreTyped() throws {
        let run = try Self.shell(#"printf 'bad\377name.png\0x.jpg\0' | "$UTI" batch --file -0"#, in: "/")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.records(run.stdout) == ["public.png", "public.jpeg"])
    }

    @Test func batchRecordsThatCannotBeAnsweredKeepTheirPlace() throws {
        let long = String(repeating: "a", count: (1 << 20) + 1)
        let run = try Run(["batch", "--file", "-0"], stdin: "x.png\0\0" + long + "\0y.gif\0")
        #expect(run.status == 1)
        #expect(Self.records(run.stdout) == ["public.png", "", "", "com.compuserve.gif"])
        #expect(run.stderr.contains("uti: standard input record 2: empty file name"), "\(run.stderr)")
        #expect(run.stderr.contains("uti: standard input record 3: longer than 1048576 bytes; not read"))
        // Without -0 the same bytes are one line, and the errors name lines.
        let lines = try Run(["batch", "--file"], stdin: "\n")
        #expect(lines.stdout == "\n" && lines.stderr.contains("standard input line 1: empty file name"))
    }

    /// file(1)'s `-0`: the path, a NUL, then the rest of the line as
    /// without `-0`; the path as its bytes, a line feed and all.
    @Test func fileWritesANulAfterEachPath() throws {
        let folder = try Self.folder()
        let names = ["two words.png", "line\nfeed.txt", "plain.jpg", "nothing.gif"]
        let lines = try Run(["file"] + names, environment: ["XDG_DATA_DIRS": "/usr/share"], directory: folder.path)
        let nul = try Run(
            ["file", "-0"] + names, environment: ["XDG_DATA_DIRS": "/usr/share"], directory: folder.path)
        #expect(nul.status == lines.status && nul.stderr == lines.stderr)
        // Each answer: up to a NUL the path, then ": ", the answer and a line feed.
        var rest = Substring(nul.stdout)
        var parsed: [(String, String)] = []
        while let end = rest.firstIndex(of: "\0") {
            let path = String(rest[..<end])
            rest = rest[rest.index(after: end)...]
            let lineEnd = try #require(rest.firstIndex(of: "\n"))
            #expect(rest.hasPrefix(": "))
            parsed.append((path, String(rest.dropFirst(2)[..<lineEnd])))
            rest = rest[rest.index(after: lineEnd)...]
        }
        #expect(rest.isEmpty)
        #expect(parsed.map(\.0) == names)
        #expect(parsed.map { "\(Escaping.name($0.0)): \($0.1)" } == lines.lines)
    }

    @Test func fileBriefAndMIMEAnswersEndWithNul() throws {
        let folder = try Self.folder()
        let names = ["two words.png", "line\nfeed.txt", "missing", "plain.jpg"]
        for form in ["-b", "--mime"] {
            let lines = try Run(
                ["file", form] + names, environment: ["XDG_DATA_DIRS": "/usr/share"], directory: folder.path)
            let nul = try Run(
                ["file", form, "--print0"] + names, environment: ["XDG_DATA_DIRS": "/usr/share"],
                directory: folder.path)
            #expect(nul.status == 1 && nul.status == lines.status && nul.stderr == lines.stderr)
            #expect(Self.records(nul.stdout) == lines.lines, "\(form)")
            #expect(Self.records(nul.stdout).count == names.count)
        }
    }

    @Test func fileWritesANameThatIsNotUTF8AsItsBytes() throws {
        let folder = try Self.folder()
        let run = try Self.shell(#""$UTI" file -0 "$(printf 'bad\377name.png')" > out"#, in: folder.path)
        #expect(run.status == 0, "\(run.stderr)")
        // Up to the NUL, the name's own bytes; then the line as without -0.
        let out = try #require(FileManager.default.contents(atPath: folder.path + "/out"))
        let expected =
            Array("bad".utf8) + [0xFF] + Array("name.png\0: public.png (image/png, PNG image) by name\n".utf8)
        #expect(Array(out) == expected, "\(Array(out))")
    }

    /// On a terminal the path is escaped all the same: its control
    /// characters never reach one. (Needs script(1) for a terminal.)
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func aTerminalGetsThePathEscaped() throws {
        let command = "'\(Run.binary.path)' file -0 --no-sniff \"$(printf 'a\\nb.txt')\""
        let run = try Run(["-qc", command, "/dev/null"], executable: "/usr/bin/script")
        #expect(run.stdout.hasPrefix("a\\nb.txt\0: public.plain-text"), "\(run.stdout.debugDescription)")
    }

    /// `filter` escapes a path for a terminal too, `-0` or not; a pipe gets
    /// its bytes. (Needs script(1) for a terminal.)
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func filterGivesATerminalThePathEscaped() throws {
        let folder = TemporaryFolder("uti-filter-tty")
        let name = "a\u{1B}[31mb.txt"
        try folder.write(name, bytes: Array("text\n".utf8))
        for flags in [[], ["-0"]] {
            let command =
                "cd '\(folder.path)' && '\(Run.binary.path)' filter \(flags.joined(separator: " ")) public.text \"$(printf 'a\\033[31mb.txt')\""
            let run = try Run(["-qc", command, "/dev/null"], executable: "/usr/bin/script")
            #expect(run.stdout.hasPrefix("a\\x1b[31mb.txt"), "\(flags): \(run.stdout.debugDescription)")
            #expect(!run.stdout.contains("\u{1B}"), "\(flags): \(run.stdout.debugDescription)")
        }
        let piped = try Run(["filter", "-0", "public.text", name], directory: folder.path)
        #expect(piped.stdout == name + "\0", "\(piped.stdout.debugDescription)")
    }

    /// The fast path and the parser read `-0` alike.
    @Test func bothRoutesAgree() throws {
        let folder = try Self.folder()
        let names = ["two words.png", "line\nfeed.txt", "plain.jpg", "nothing.gif"]
        for flags in [["-0"], ["--print0"], ["-b", "-0"], ["--mime", "-0"], ["-i", "-0"], ["-0", "--no-sniff"]] {
            let fast = ["file"] + flags + names
            let parsed = ["file"] + flags + ["--"] + names
            #expect(FastPath.invocation(["uti"] + fast) != nil, "\(fast)")
            #expect(FastPath.invocation(["uti"] + parsed) == nil, "\(parsed)")
            let a = try Run(fast, environment: ["XDG_DATA_DIRS": "/usr/share"], directory: folder.path)
            let b = try Run(parsed, environment: ["XDG_DATA_DIRS": "/usr/share"], directory: folder.path)
            #expect(a.status == b.status && a.stdout == b.stdout && a.stderr == b.stderr, "\(flags)")
            #expect(a.stdout.contains("\0"), "\(flags)")
        }
    }

    @Test func fileRefusesNulWithJSON() throws {
        let run = try Run(["file", "-0", "--json", "x.png"])
        #expect(run.status == 2 && run.stdout.isEmpty)
        #expect(run.stderr.contains("-0"), "\(run.stderr)")
    }
}
