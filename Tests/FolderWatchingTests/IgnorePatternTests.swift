import FolderWatching
import Foundation
import Testing

/// The glob dialect of `IgnorePattern`, as tables: patterns against paths
/// inside the watched folder, and malformed patterns with the place of
/// their fault.
@Suite struct IgnorePatternTests {
    /// A path given as text, or as bytes when it is not UTF-8.
    struct Path: CustomTestStringConvertible, Sendable {
        var bytes: [UInt8]
        var testDescription: String { String(decoding: bytes, as: UTF8.self) }
    }

    static func bytes(_ text: String) -> Path { Path(bytes: Array(text.utf8)) }

    /// (glob, path, is a folder, matches).
    static let table: [(String, Path, Bool, Bool)] = [
        // `*` within a name, a leading dot too; a name at any depth.
        ("*.swp", bytes(".notes.txt.swp"), false, true),
        ("*.swp", bytes("a/b/.x.swp"), false, true),
        ("*.swp", bytes(".swp"), false, true),
        ("*.swp", bytes("x.swpx"), false, false),
        ("*.swp", bytes("swp"), false, false),
        ("*.swp", bytes("x.swp/inner"), false, false),
        ("*", bytes(".hidden"), false, true),
        ("*", bytes("a/b"), true, true),
        ("a*b*c", bytes("aXbYbZc"), false, true),
        ("a*b*c", bytes("aXbYc d"), false, false),
        ("*.tar.gz", bytes("x.tar.gz"), false, true),
        ("*.tar.gz", bytes("x.tar.gz.part"), false, false),
        // Dots are themselves; case matters.
        ("a.b.c", bytes("a.b.c"), false, true),
        ("a.b.c", bytes("aXb.c"), false, false),
        ("*.TXT", bytes("a.txt"), false, false),
        // Spaces are characters like any other.
        ("my file.txt", bytes("docs/my file.txt"), false, true),
        ("* *", bytes("a b"), false, true),
        ("* *", bytes("ab"), false, false),
        // `?` is one character: a UTF-8 sequence, or one byte that is not part of one.
        ("?", bytes("é"), false, true),
        ("?", bytes("ab"), false, false),
        ("caf?.txt", bytes("café.txt"), false, true),
        ("caf?.txt", Path(bytes: Array("caf".utf8) + [0xE9] + Array(".txt".utf8)), false, true),
        ("caf?.txt", Path(bytes: Array("caf".utf8) + [0xC3] + Array(".txt".utf8)), false, true),
        // NFD (e and a combining accent) is two characters, and other bytes than NFC.
        ("caf?.txt", bytes("cafe\u{301}.txt"), false, false),
        ("café.txt", bytes("cafe\u{301}.txt"), false, false),
        ("?", Path(bytes: [0xFF]), false, true),
        ("??", Path(bytes: [0xC3]), false, false),
        ("*", Path(bytes: [0xFF, 0xFE]), false, true),
        // Brackets: escaped, or in a class.
        ("\\[draft\\]*", bytes("[draft] plan.md"), false, true),
        ("\\[draft\\]*", bytes("d plan.md"), false, false),
        ("[[]draft]*", bytes("[draft] plan.md"), false, true),
        ("[]]x", bytes("]x"), false, true),
        ("[\\]]", bytes("]"), false, true),
        ("[!a]x", bytes("bx"), false, true),
        ("[!a]x", bytes("ax"), false, false),
        ("[^a]x", bytes("ax"), false, false),
        ("[a-c]", bytes("b"), false, true),
        ("[a-c]", bytes("d"), false, false),
        ("[a-]", bytes("-"), false, true),
        ("[-a]", bytes("-"), false, true),
        ("[é-ë]", bytes("ê"), false, true),
        ("[é-ë]", bytes("e"), false, false),
        ("[!é]", bytes("e"), false, true),
        ("[\u{10FFFF}]", bytes("\u{10FFFF}"), false, true),
        ("x[0-9][0-9]", bytes("x42"), false, true),
        ("x[0-9][0-9]", bytes("x4"), false, false),
        // Neither a class nor `?` crosses a `/`.
        ("a[!x]b", bytes("a/b"), false, false),
        ("/a?b", bytes("a/b"), false, false),
        ("/a*b", bytes("a/b"), false, false),
        // Escapes.
        ("\\*", bytes("*"), false, true),
        ("\\*", bytes("a"), false, false),
        ("\\\\", bytes("\\"), false, true),
        ("\\!x", bytes("!x"), false, true),
        ("x!", bytes("x!"), false, true),
        // A slash anchors at the watched folder.
        ("src/*.o", bytes("src/x.o"), false, true),
        ("src/*.o", bytes("lib/src/x.o"), false, false),
        ("src/*.o", bytes("src/sub/x.o"), false, false),
        ("/build", bytes("build"), true, true),
        ("/build", bytes("a/build"), true, false),
        ("build", bytes("a/build"), false, true),
        ("build", bytes("build"), true, true),
        ("build", bytes("builds"), true, false),
        // A trailing slash: folders only.
        ("build/", bytes("build"), false, false),
        ("build/", bytes("build"), true, true),
        ("build/", bytes("x/y/build"), true, true),
        ("/build/", bytes("a/build"), true, false),
        ("/build/", bytes("build"), true, true),
        (".git/", bytes(".git"), false, false),
        (".git/", bytes("sub/.git"), true, true),
        // `**`.
        ("**/build", bytes("a/b/build"), false, true),
        ("**/build", bytes("build"), false, true),
        ("**/build", bytes("build/x"), false, false),
        ("a/**/b", bytes("a/b"), false, true),
        ("a/**/b", bytes("a/x/b"), false, true),
        ("a/**/b", bytes("a/x/y/b"), false, true),
        ("a/**/b", bytes("b"), false, false),
        ("a/**/b", bytes("a/b/c"), false, false),
        ("a/**/b", bytes("x/a/b"), false, false),
        ("a/**/b", bytes("a/xb"), false, false),
        ("a/**", bytes("a"), true, false),
        ("a/**", bytes("a/x"), false, true),
        ("a/**", bytes("a/x/y"), false, true),
        ("a/**", bytes("b/x"), false, false),
        ("**", bytes("x"), false, true),
        ("**", bytes("a/b/c"), false, true),
        ("/**", bytes("x"), false, true),
        ("**/", bytes("x"), false, false),
        ("**/", bytes("x/y"), true, true),
        ("a/**/", bytes("a/x"), true, true),
        ("a/**/", bytes("a/x"), false, false),
        ("**/*.o", bytes("x.o"), false, true),
        ("**/*.o", bytes("a/b/x.o"), false, true),
        ("src/**/*.o", bytes("src/x.o"), false, true),
        ("src/**/*.o", bytes("src/a/b/x.o"), false, true),
        ("src/**/*.o", bytes("x.o"), false, false),
        ("a/**/**/b", bytes("a/b"), false, true),
        ("a/**/**/b", bytes("a/x/y/b"), false, true),
        ("**/x/**", bytes("p/x/q"), false, true),
        ("**/x/**", bytes("p/x"), true, false),
        // Editors', downloads' and version control's names.
        ("#*#", bytes("#notes.org#"), false, true),
        ("#*#", bytes("#notes.org"), false, false),
        (".#*", bytes(".#notes.org"), false, true),
        ("*~", bytes("notes.txt~"), false, true),
        ("*~", bytes("notes.txt.~1~"), false, true),
        ("*~", bytes("~notes"), false, false),
        ("4913", bytes("4913"), false, true),
        ("4913", bytes("49130"), false, false),
        ("*.part", bytes("movie.mkv.part"), false, true),
        ("*.part", bytes("x.partial"), false, false),
        (".~lock.*#", bytes(".~lock.report.odt#"), false, true),
    ]

    @Test(arguments: table)
    func aPatternMatchesPaths(glob: String, path: Path, isFolder: Bool, matches: Bool) throws {
        let pattern = try IgnorePattern(glob)
        #expect(pattern.matches(path.bytes, isFolder: isFolder) == matches)
    }

    /// A glob given as bytes that are not UTF-8: each such byte is a
    /// character of its own, in a name, a class or a range.
    @Test func patternsOfBytesThatAreNotUTF8() throws {
        let star = try IgnorePattern(bytes: [0xFF, 0x2A])
        #expect(star.matches([0xFF, 0x41], isFolder: false))
        #expect(!star.matches([0xFE, 0x41], isFolder: false))
        #expect(!star.matches(Array("ÿA".utf8), isFolder: false))
        // `[` E0 `-` EF `]`: neither end starts well-formed UTF-8, so both are bytes.
        let range = try IgnorePattern(bytes: [0x5B, 0xE0, 0x2D, 0xEF, 0x5D])
        #expect(range.matches([0xE5], isFolder: false))
        #expect(!range.matches([0xF0], isFolder: false))
        #expect(!range.matches(Array("å".utf8), isFolder: false))
        #expect(star.description == "\\xff*")
    }

    @Test func aPatternSaysHowItIsRead() throws {
        let folders = try IgnorePattern("/build/")
        #expect(folders.isAnchored && folders.matchesFoldersOnly)
        #expect(folders.description == "/build/")
        let names = try IgnorePattern("*.o")
        #expect(!names.isAnchored && !names.matchesFoldersOnly)
        #expect(try IgnorePattern("a/b").isAnchored)
        #expect(try !IgnorePattern("b/").isAnchored)
        #expect(try IgnorePattern("\t*").description == "\\x09*")
    }

    /// (glob, code, position of the fault, from 1, counting characters).
    static let problems: [(Path, IgnorePattern.Problem.Code, Int)] = [
        (bytes(""), .empty, 1),
        (bytes("/"), .empty, 1),
        (bytes("!x"), .negation, 1),
        (bytes("a[b"), .unclosedClass, 2),
        (bytes("[]"), .unclosedClass, 1),
        (bytes("[!]"), .unclosedClass, 1),
        (bytes("[a\\"), .unclosedClass, 1),
        (bytes("é[x"), .unclosedClass, 2),
        (Path(bytes: [0xFF, 0x5B]), .unclosedClass, 2),
        (bytes("a[x/y]"), .slashInClass, 4),
        (bytes("[[:alpha:]]"), .posixClass, 2),
        (bytes("x[[.a.]]"), .posixClass, 3),
        (bytes("[a[=b=]]"), .posixClass, 3),
        (bytes("[z-a]"), .badRange, 2),
        (Path(bytes: [0x5B, 0x61, 0x2D, 0xFF, 0x5D]), .badRange, 2),
        (bytes("x\\"), .badEscape, 2),
        (bytes("a\\/b"), .badEscape, 2),
        (bytes("a**"), .misplacedRecursion, 2),
        (bytes("***"), .misplacedRecursion, 1),
        (bytes("**a/b"), .misplacedRecursion, 1),
        (bytes("x/a**/b"), .misplacedRecursion, 4),
        (bytes("a//b"), .emptyComponent, 3),
        (bytes("//a"), .emptyComponent, 2),
        (bytes("a//"), .emptyComponent, 3),
        (bytes("./a"), .dotComponent, 1),
        (bytes("a/../b"), .dotComponent, 3),
        (bytes(".."), .dotComponent, 1),
    ]

    @Test(arguments: problems)
    func aMalformedPatternSaysWhere(glob: Path, code: IgnorePattern.Problem.Code, position: Int) {
        let problem = #expect(throws: IgnorePattern.Problem.self) { try IgnorePattern(bytes: glob.bytes) }
        #expect(problem?.code == code)
        #expect(problem?.position == position, "\(problem.map(\.description) ?? "")")
    }

    @Test func aProblemNamesTheGlobAndThePlace() {
        do throws(IgnorePattern.Problem) {
            _ = try IgnorePattern("src/[a-")
            Issue.record("src/[a- was read")
        } catch {
            #expect(error.glob == "src/[a-")
            #expect(error.description.hasPrefix("src/[a-: at character 5: \"[\" opens a class"), "\(error)")
        }
    }

    /// What the defaults leave out, and documents they must not.
    @Test func theDefaultsLeaveOutTemporariesAndNoDocument() {
        #expect(
            IgnorePattern.defaults.map(\.description) == [
                "*.swp", "*.swo", "*.swx", "4913", "*~", "#*#", ".#*", "*.kate-swp", ".goutputstream-*",
                ".~lock.*#", "*.part", "*.crdownload", ".git/", ".hg/", ".svn/",
            ])
        func ignored(_ path: String, folder: Bool = false) -> Bool {
            IgnorePattern.any(of: IgnorePattern.defaults, matches: Array(path.utf8), isFolder: folder)
        }
        for path in [
            ".notes.txt.swp", "src/.main.c.swo", ".x.swx", "4913", "notes.txt~", "#notes.org#", ".#notes.org",
            ".notes.txt.kate-swp", ".goutputstream-3XK9QZ", ".~lock.report.odt#", "film.mkv.part",
            "Unconfirmed 123.crdownload",
        ] {
            #expect(ignored(path), "\(path)")
        }
        for folder in [".git", "sub/.hg", ".svn"] { #expect(ignored(folder, folder: true), "\(folder)") }
        for path in [
            "report.pdf", "notes.txt", "data.tmp", ".DS_Store", "archive.part1.rar", "part", "4913.txt", ".gitignore",
            "#include", "swap.swf", "~$report.docx",
        ] {
            #expect(!ignored(path), "\(path)")
        }
        // A .git file (a worktree's link to its repository) is not the folder.
        #expect(!ignored(".git"))
    }

    /// docs/guide-inbox.md lists the defaults, each once, in their order.
    @Test func theGuideListsTheDefaults() throws {
        let guide = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/guide-inbox.md")
        let text = try String(contentsOf: guide, encoding: .utf8)
        let start = try #require(text.range(of: "**Left out by default.**"))
        let end = try #require(
            text.range(of: "Left out of the defaults on purpose", range: start.upperBound..<text.endIndex))
        var listed: [String] = []
        for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") {
            let cells = line.trimmingCharacters(in: .whitespaces).split(separator: "|")
            guard line.contains("| `"), let first = cells.first else { continue }
            listed += first.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        }
        #expect(listed == IgnorePattern.defaults.map(\.description))
    }

    /// A path 2,000 folders deep is matched without trying every split.
    @Test func deepPathsAreMatchedInLinearTime() throws {
        let deep = Array(repeating: "d", count: 2000).joined(separator: "/")
        let pattern = try IgnorePattern("**/d/**/d/**/x")
        #expect(!pattern.matches(Array((deep + "/y").utf8), isFolder: false))
        #expect(pattern.matches(Array((deep + "/x").utf8), isFolder: false))
    }
}
