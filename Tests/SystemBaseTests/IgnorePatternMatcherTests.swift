import SystemBase
import Testing

/// `IgnorePattern.Matcher` answers what each pattern's own `matches` answers:
/// every default pattern and a set of user patterns, against names and
/// paths built from pieces that reach every part of the dialect.
@Suite struct IgnorePatternMatcherTests {
    /// Pieces of names: the defaults' own characters, classes' edges,
    /// characters of two to four bytes, bytes that are not UTF-8, `/`.
    static let pieces: [[UInt8]] = [
        [], Array("a".utf8), Array("Z".utf8), Array(".".utf8), Array("#".utf8), Array("~".utf8),
        Array("swp".utf8), Array(".swp".utf8), Array(".SWP".utf8), Array("4913".utf8), Array(".#".utf8),
        Array(".goutputstream-".utf8), Array(".~lock.".utf8), Array(".part".utf8), Array(".crdownload".utf8),
        Array(".git".utf8), Array(".hg".utf8), Array(".kate-swp".utf8), Array("-".utf8), Array("9".utf8),
        Array("é".utf8), Array("€".utf8), Array("𝄞".utf8), [0xFF], [0xC3], [0xE2, 0x82], Array("/".utf8),
        Array("*".utf8), Array("[".utf8), Array("]".utf8), Array("\\".utf8), Array("!".utf8),
    ]

    /// Names of one, two and three pieces, none empty.
    static let names: [[UInt8]] = {
        var out: Set<[UInt8]> = []
        for a in pieces {
            for b in pieces {
                out.insert(a + b)
                for c in pieces where c.count <= 4 { out.insert(a + b + c) }
            }
        }
        out.remove([])
        return out.sorted { $0.lexicographicallyPrecedes($1) }
    }()

    /// Globs a user may give, beside the defaults.
    static let userGlobs: [String] = [
        "*", "?", "??", "*.part", "*.PART", "a*", "*a", "a*a", "*.*", "*#*", "[a-z]*", "[!a-z]*", "[^.]*",
        "*[]]", "[-a]*", "*[a-]", "?é*", "*€", "[é-𝄞]*", "\\*", "\\[*", "*\\\\", "\\!*", "build/", "/build/",
        "/a*", "/*.swp", "**/a", "a/**", "a/**/b", "a/*", "**", "*.tar.gz", "4913", "#*#", "*~", ".#*",
    ]

    static let userPatterns: [IgnorePattern] =
        userGlobs.map { try! IgnorePattern($0) } + [
            try! IgnorePattern(bytes: [0x2A, 0xFF]), try! IgnorePattern(bytes: [0xFF, 0x2A]),
        ]

    /// The first of `patterns` that matches, one pattern at a time.
    static func reference(
        _ patterns: [IgnorePattern], _ path: [UInt8], isFolder: Bool, foldersOnly: Bool = false
    ) -> IgnorePattern? {
        patterns.first { (!foldersOnly || $0.matchesFoldersOnly) && $0.matches(path, isFolder: isFolder) }
    }

    @Test(arguments: [false, true])
    func defaultsAnswerAsEachPattern(isFolder: Bool) {
        let matcher = IgnorePattern.Matcher(IgnorePattern.defaults)
        var differences: [String] = []
        for name in Self.names {
            for foldersOnly in [false, true] {
                let expected = Self.reference(
                    IgnorePattern.defaults, name, isFolder: isFolder, foldersOnly: foldersOnly)
                let found = matcher.firstMatch(name, isFolder: isFolder, foldersOnly: foldersOnly)
                if found != expected { differences.append("\(FileName(name).escaped): \(String(describing: found))") }
            }
        }
        #expect(differences.isEmpty, "\(differences.count) differ: \(differences.prefix(8))")
    }

    @Test(arguments: [false, true])
    func userPatternsAnswerAsEachPattern(isFolder: Bool) {
        let all = IgnorePattern.defaults + Self.userPatterns
        let matcher = IgnorePattern.Matcher(all)
        var differences: [String] = []
        for name in Self.names {
            let expected = Self.reference(all, name, isFolder: isFolder)
            let found = matcher.firstMatch(name, isFolder: isFolder)
            if found != expected { differences.append("\(FileName(name).escaped): \(String(describing: found))") }
        }
        #expect(differences.isEmpty, "\(differences.count) differ: \(differences.prefix(8))")
    }

    /// Each pattern alone, so that a later one is not hidden by an earlier match.
    @Test(arguments: IgnorePattern.defaults + userPatterns)
    func eachPatternAlone(pattern: IgnorePattern) {
        let matcher = IgnorePattern.Matcher([pattern])
        var differences: [String] = []
        for name in Self.names {
            for isFolder in [false, true]
            where (matcher.firstMatch(name, isFolder: isFolder) != nil)
                != pattern.matches(name, isFolder: isFolder)
            {
                differences.append("\(FileName(name).escaped) (folder: \(isFolder))")
            }
        }
        #expect(differences.isEmpty, "\(pattern): \(differences.count) differ: \(differences.prefix(8))")
    }

    @Test func answersOfTheDefaults() {
        let matcher = IgnorePattern.Matcher(IgnorePattern.defaults)
        let table: [(String, Bool, String?)] = [
            (".notes.txt.swp", false, "*.swp"), ("doc-00001.pdf", false, nil), ("4913", false, "4913"),
            ("x4913", false, nil), ("notes.txt~", false, "*~"), ("#notes#", false, "#*#"), ("#", false, nil),
            (".#notes", false, ".#*"), (".~lock.report.odt#", false, ".~lock.*#"), ("a.part", false, "*.part"),
            (".git", false, nil), (".git", true, ".git/"), ("sub/.git", true, ".git/"), ("é.swp", false, "*.swp"),
        ]
        for (name, isFolder, expected) in table {
            #expect(matcher.firstMatch(Array(name.utf8), isFolder: isFolder)?.description == expected, "\(name)")
        }
        #expect(IgnorePattern.Matcher([]).firstMatch(Array("a".utf8), isFolder: false) == nil)
        #expect(matcher.firstMatch([], isFolder: true) == nil)
    }
}
