import ArgumentParser
import Foundation
import TestSupport
import Testing

@testable import uti

/// The forms `FastPath` answers without the argument parser must say
/// exactly what the parser says, whichever door they come in by: every
/// subset of each form's flags, before the command word, after it and after
/// the words, against the same arguments behind `--`, which the fast path
/// never takes.
@Suite struct FastPathTests {
    /// Files to type, in a folder of their own (removed when released):
    /// names and contents that agree, disagree and say nothing, a folder,
    /// links, and paths where nothing is.
    static func makeFiles() -> TemporaryFolder {
        let folder = TemporaryFolder("uti-fast")
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 24)
        for (name, bytes) in [
            ("x.png", png), ("picture.dat", png), ("notes.md", Array("# Notes\ncafé\n".utf8)), ("empty.jpg", []),
        ] {
            try! folder.write(name, bytes: bytes)
        }
        try! folder.makeFolder("photos")
        symlink("picture.dat", folder.path + "/link.png")
        symlink("nowhere.txt", folder.path + "/dangling.md")
        return folder
    }

    /// Every subset of `Flag`'s cases, written with the first spelling of
    /// each flag for even subsets and the last for odd ones.
    static func subsets<Flag: FastFlag>(of _: Flag.Type) -> [[String]] {
        let cases = Array(Flag.allCases)
        return (0..<(1 << cases.count)).map { mask in
            cases.indices.filter { mask & (1 << $0) != 0 }.map {
                let spellings = cases[$0].declaration.spellings
                return mask % 2 == 0 ? spellings.first! : spellings.last!
            }
        }
    }

    /// Runs each door and the parser's reading of the same arguments
    /// (`reference`), and expects the same output and status; the doors the
    /// fast path declines are ones the parser refuses.
    func expectSameAnswers(doors: [[String]], reference: [String]) throws {
        #expect(FastPath.invocation(["uti"] + reference) == nil, "\(reference) must go to the parser")
        let files = Self.makeFiles()
        let parsed = try Run(reference, directory: files.path)
        #expect(!parsed.stdout.isEmpty || !parsed.stderr.isEmpty || parsed.status != 2, "\(reference)")
        for door in doors {
            let fast = try Run(door, directory: files.path)
            #expect(fast.status == parsed.status, "uti \(door): \(fast.stderr) / \(parsed.stderr)")
            #expect(fast.stdout == parsed.stdout, "uti \(door)")
            #expect(fast.stderr == parsed.stderr, "uti \(door)")
            if FastPath.invocation(["uti"] + door) == nil {
                #expect(parsed.status == 2, "the fast path declined uti \(door), which the parser answers")
            }
        }
    }

    static let queries = [
        ["jpg", "image/png", "public.jpeg", "dyn.ah62d4rv4ge81g6pq", "tar.gz"],
        ["sql", "public.imgae", ".TXT", "x\u{1B}y", "image/"],
    ]

    @Test(arguments: subsets(of: Lookup.LookupFlag.self), queries)
    func lookup(flags: [String], queries: [String]) throws {
        try expectSameAnswers(
            doors: [flags + queries, queries + flags, ["lookup"] + flags + queries, flags + ["lookup"] + queries],
            reference: ["lookup"] + flags + ["--"] + queries)
    }

    static let paths = [
        "x.png", "picture.dat", "notes.md", "empty.jpg", "photos", "link.png", "dangling.md", "missing.pdf",
        "nothing-here", "odd\u{1B}name.txt", "tags",
    ]

    @Test(arguments: subsets(of: FileCommand.FileFlag.self))
    func file(flags: [String]) throws {
        try expectSameAnswers(
            doors: [["file"] + flags + Self.paths, flags + ["file"] + Self.paths, ["file"] + Self.paths + flags],
            reference: ["file"] + flags + ["--"] + Self.paths)
    }

    static let typePairs = [
        ["jpg", "public.image"], ["jpg", "public.text"], ["link.png", "public.image"], ["notes.md", "public.text"],
        ["missing.pdf", "public.data"], ["jpg", "public.imgae"], ["image/png", "image"], ["file", "public.data"],
    ]

    @Test(arguments: subsets(of: Conforms.ConformsFlag.self), typePairs)
    func conforms(flags: [String], pair: [String]) throws {
        try expectSameAnswers(
            doors: [
                ["conforms"] + flags + pair, flags + ["conforms"] + pair, ["conforms"] + pair + flags,
                ["conforms", pair[0]] + flags + [pair[1]],
            ],
            reference: ["conforms"] + flags + ["--"] + pair)
    }

    /// What the fast path takes, and what it leaves to the parser.
    @Test func takesItsFormsAndLeavesTheRest() {
        let taken: [([String], ParsableCommand.Type, [String], [String])] = [
            (["-b", "jpg"], Lookup.self, ["-b"], ["jpg"]),
            (["jpg", "png", "--brief"], Lookup.self, ["--brief"], ["jpg", "png"]),
            (["lookup", "-b", "jpg"], Lookup.self, ["-b"], ["jpg"]),
            // After the command word every word is an argument, a command's name too.
            (["lookup", "file"], Lookup.self, [], ["file"]),
            (["file", "x.png", "help"], FileCommand.self, [], ["x.png", "help"]),
            (["file", "--mime", "x.png"], FileCommand.self, ["--mime"], ["x.png"]),
            (["-L", "-i", "file", "x.png", "--tree"], FileCommand.self, ["-L", "-i", "--tree"], ["x.png"]),
            (
                ["conforms", "--file", "-v", "a.jpg", "public.image"], Conforms.self, ["--file", "-v"],
                ["a.jpg", "public.image"]
            ),
        ]
        for (arguments, command, flags, words) in taken {
            let invocation = FastPath.invocation(["uti"] + arguments)
            #expect(invocation.map { $0.command == command } == true, "\(arguments)")
            #expect(invocation?.flags == flags && invocation?.words == words, "\(arguments)")
        }
        #expect(FastPath.invocation(["uti", "jpg"])?.firstQuery == "jpg")
        #expect(FastPath.invocation(["uti", "file", "x.png"])?.firstQuery == nil)
        let declined: [[String]] = [
            ["--json", "jpg"], ["-b", "--", "jpg"], ["jpg", "file"], ["-b", "jpg", "tags"], ["help", "file"],
            ["tags", "jpg"],
            ["file", "-"], ["file", ""], ["file", "-b", "--mime", "x.png"], ["file"], ["conforms", "jpg"],
            ["conforms", "-v", "jpg", "public.image", "png"], ["-b"], ["file", "-bL", "x.png"],
            ["--brief=true", "jpg"],
            ["--version"], ["-h", "jpg"], ["--no-system", "jpg"],
        ]
        for arguments in declined { #expect(FastPath.invocation(["uti"] + arguments) == nil, "\(arguments)") }
    }
}
