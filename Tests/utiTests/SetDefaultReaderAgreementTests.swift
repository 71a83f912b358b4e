import Foundation
import TestSupport
import Testing

/// `uti` reads a hand-made `mimeapps.list` as GIO reads it, and
/// `set-default` answers truthfully about what it wrote: a removal through
/// a wildcard is judged by the MIME types written, a list GLib cannot load
/// is read by neither, a repeated key takes its last value, a CR LF list
/// stays CR LF, and a URL scheme's default must take URLs. GIO and
/// xdg-mime are asked only when installed (`.ci/run` installs both).
@Suite struct SetDefaultReaderAgreementTests {
    typealias Tree = SetDefaultAgreementTests.Tree
    static let gio = SetDefaultAgreementTests.gio
    static let xdgMIME = SetDefaultAgreementTests.xdgMIME

    /// A tree whose `other.desktop` declares image/png, image/webp and
    /// image/*, `viewer.desktop` image/png, image/jpeg and image/gif, and
    /// `extra.desktop` text/html; with the `mimeinfo.cache` GIO reads
    /// their declarations from.
    static func makeTree(list: [UInt8]? = nil) throws -> Tree {
        let tree = try Tree()
        func entry(_ name: String, _ exec: String, _ types: String) -> String {
            "[Desktop Entry]\nType=Application\nName=\(name)\nExec=\(exec)\nMimeType=\(types)\n"
        }
        try tree.folder.write(
            "data/applications/other.desktop", entry("Other", "/bin/true %f", "image/png;image/webp;image/*;"))
        try tree.folder.write(
            "data/applications/viewer.desktop", entry("Viewer", "/bin/true %f", "image/png;image/jpeg;image/gif;"))
        try tree.folder.write("data/applications/extra.desktop", entry("Extra", "/bin/true %f", "text/html;"))
        try tree.folder.write(
            "data/applications/mimeinfo.cache",
            "[MIME Cache]\nimage/gif=viewer.desktop;\nimage/jpeg=viewer.desktop;\n"
                + "image/png=other.desktop;viewer.desktop;\nimage/webp=other.desktop;\ntext/html=extra.desktop;\n")
        if let list { try tree.folder.write("config/mimeapps.list", bytes: list) }
        return tree
    }

    static func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// The applications `uti open-in --type mime` offers.
    static func utiApplications(_ mime: String, in tree: Tree) throws -> Set<String> {
        try SetDefaultAssociationAgreementTests.utiApplications([mime], in: tree).first ?? []
    }

    // MARK: A removal through a wildcard

    @Test func removingThroughAWildcardIsJudgedByTheKeysWritten() throws {
        let tree = try Self.makeTree()
        let run = try Run(["set-default", "--remove", "other.desktop", "image/*"], environment: tree.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("still offered"), "\(run.stderr)")
        #expect(run.stdout.hasPrefix("every image/ type: other.desktop is removed ("))
        for mime in ["image/png", "image/webp", "image/tiff"] {
            #expect(try !Self.utiApplications(mime, in: tree).contains("other.desktop"), "open-in --type \(mime)")
            if Self.gio != nil {
                let registered = try SetDefaultAssociationAgreementTests.gioApplications(mime, in: tree)
                #expect(!registered.contains("other.desktop"), "gio mime \(mime)")
            }
        }
        // Again: nothing to change, and it says so.
        let before = try Self.bytes(tree.list)
        let again = try Run(["set-default", "--remove", "other.desktop", "image/*"], environment: tree.environment)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.isEmpty, "\(again.stderr)")
        #expect(again.stdout.hasPrefix("every image/ type: other.desktop was already removed ("))
        #expect(again.stdout.hasSuffix("; nothing was written\n"))
        #expect(try Self.bytes(tree.list) == before)
    }

    /// A default in a system list still keeps a removed application
    /// offered for a key written: exit 1, naming that default.
    @Test func aSystemDefaultForAKeyWrittenStillExitsOne() throws {
        let tree = try Self.makeTree()
        try tree.folder.write("etc-xdg/mimeapps.list", "[Default Applications]\nimage/webp=other.desktop;\n")
        let run = try Run(["set-default", "--remove", "other.desktop", "image/*"], environment: tree.environment)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("other.desktop is still offered"), "\(run.stderr)")
        #expect(run.stderr.contains("etc-xdg/mimeapps.list"), "\(run.stderr)")
    }

    // MARK: Lists GLib cannot load

    struct BadLine: Sendable, CustomTestStringConvertible {
        var name: String
        /// The list's bytes; its bad line is line `line`.
        var list: [UInt8]
        var line: Int
        var testDescription: String { name }
    }

    static let added = Array("[Added Associations]\nimage/gif=extra.desktop;\n".utf8)

    static let badLines = [
        BadLine(
            name: "a ; comment", list: Array("[Added Associations]\n; comment\nimage/gif=extra.desktop;\n".utf8),
            line: 2),
        BadLine(name: "a byte-order mark", list: [0xEF, 0xBB, 0xBF] + added, line: 1),
        BadLine(name: "a key before any group", list: Array("image/png=extra.desktop;\n".utf8) + added, line: 1),
        BadLine(name: "an unclosed group", list: added + Array("[Other\n".utf8), line: 3),
        BadLine(name: "a ] in a key", list: added + Array("image]x=extra.desktop;\n".utf8), line: 3),
        BadLine(name: "a vertical tab", list: added + Array("\u{0B}\n".utf8), line: 3),
        BadLine(name: "an empty key", list: added + Array("=extra.desktop;\n".utf8), line: 3),
    ]

    @Test(arguments: badLines)
    func aListGLibCannotLoadIsNotRead(_ given: BadLine) throws {
        let tree = try Self.makeTree(list: given.list)
        let run = try Run(["open-in", "--type", "image/gif"], environment: tree.environment)
        #expect(!run.stdout.contains("extra.desktop"), "\(run.stdout)")
        #expect(run.stderr.contains("\(tree.list):\(given.line): error: "), "\(run.stderr)")
        #expect(run.stderr.contains("the whole file is ignored"), "\(run.stderr)")
        let listing = try Run(["defaults"], environment: tree.environment)
        #expect(listing.stderr.contains("\(tree.list):\(given.line): error: "), "\(listing.stderr)")
        if Self.gio != nil {
            #expect(
                try !SetDefaultAssociationAgreementTests.gioApplications("image/gif", in: tree).contains(
                    "extra.desktop"), "gio mime image/gif")
        }
        // set-default does not rewrite it.
        let set = try Run(["set-default", "gif", "viewer.desktop"], environment: tree.environment)
        #expect(set.status == 2)
        #expect(set.stderr.contains("not rewritten, so nothing in it is lost"), "\(set.stderr)")
        #expect(try Self.bytes(tree.list) == given.list)
    }

    /// Lines GLib loads (an odd key, a control character in a value) do
    /// not hide the rest of the file from either reader.
    @Test(arguments: ["im~age=extra.desktop;\n", "image/jpeg=extra.desktop;\u{01};\n", "\u{0C}\n", "  # note\n"])
    func aLineGLibLoadsKeepsTheRestRead(_ line: String) throws {
        let tree = try Self.makeTree(list: Self.added + Array(line.utf8))
        #expect(try Self.utiApplications("image/gif", in: tree).contains("extra.desktop"))
        if Self.gio != nil {
            #expect(
                try SetDefaultAssociationAgreementTests.gioApplications("image/gif", in: tree).contains(
                    "extra.desktop"), "gio mime image/gif")
        }
    }

    /// A list item is taken as GLib takes it, spaces kept (only those after
    /// `=` go): `viewer.desktop `, ` viewer.desktop` and `\sviewer.desktop`
    /// name no application, so image/webp keeps the one application
    /// declaring it, other.desktop, in uti as in GIO.
    @Test(arguments: [
        "image/webp=viewer.desktop \n", "image/webp=viewer.desktop\t\n", "image/webp=nosuch.desktop; viewer.desktop;\n",
        "image/webp=\\sviewer.desktop;\n",
    ])
    func listItemsKeepTheirSpaces(_ line: String) throws {
        let tree = try Self.makeTree(list: Array(("[Default Applications]\n" + line).utf8))
        #expect(try tree.utiDefault("image/webp") == "other.desktop", "\(line)")
        if Self.gio != nil { #expect(try tree.gioDefault("image/webp") == "other.desktop", "gio: \(line)") }
        // The same item written plainly is the default.
        let plain = try Self.makeTree(list: Array("[Default Applications]\nimage/webp=viewer.desktop;\n".utf8))
        #expect(try plain.utiDefault("image/webp") == "viewer.desktop")
    }

    /// A rewrite keeps every other item as GLib reads it: an escaped
    /// leading space stays escaped, so an edit that names one application
    /// adds or drops no other for GIO.
    @Test func aRewriteKeepsOtherItemsAsGLibReadsThem() throws {
        let tree = try Self.makeTree(
            list: Array("[Removed Associations]\nimage/webp=\\sother.desktop;viewer.desktop;\n".utf8))
        #expect(try Self.utiApplications("image/webp", in: tree) == ["other.desktop"])
        let run = try Run(["set-default", "--remove", "other.desktop", "image/webp"], environment: tree.environment)
        #expect(run.status == 0, "\(run.stderr)")
        let text = try String(contentsOfFile: tree.list, encoding: .utf8)
        #expect(text.contains("\\sother.desktop;") && text.contains("viewer.desktop;"), "\(text)")
        let offered = try Self.utiApplications("image/webp", in: tree)
        #expect(!offered.contains("other.desktop") && !offered.contains("viewer.desktop"), "\(offered)")
        if Self.gio != nil {
            #expect(try SetDefaultAssociationAgreementTests.gioApplications("image/webp", in: tree) == offered)
        }
    }

    /// Bytes that are not UTF-8 spoil only their line, as in GLib: the rest
    /// of the list is read; `set-default` leaves such a file as it is.
    @Test func aLineThatIsNotUTF8SpoilsOnlyItself() throws {
        let list: [UInt8] =
            Array("# caf".utf8) + [0xE9] + Array("\n[Default Applications]\nimage/webp=viewer.desktop;\nimage/x".utf8)
            + [0xE9] + Array("=other.desktop;\n".utf8)
        let tree = try Self.makeTree(list: list)
        #expect(try tree.utiDefault("image/webp") == "viewer.desktop")
        if Self.gio != nil { #expect(try tree.gioDefault("image/webp") == "viewer.desktop") }
        let run = try Run(["set-default", "image/webp", "other.desktop"], environment: tree.environment)
        #expect(run.status == 2 && run.stderr.contains(":1: not UTF-8; not rewritten"), "\(run.stderr)")
        #expect(try Self.bytes(tree.list) == list)
    }

    /// A key given twice in `[Default Applications]` (here in a repeated
    /// group): GLib and uti take the last value; xdg-mime takes the first.
    @Test func aRepeatedKeyTakesItsLastValue() throws {
        let list =
            "[Default Applications]\nimage/gif=extra.desktop;\n[Added Associations]\n"
            + "[Default Applications]\nimage/gif=viewer.desktop;\n"
        let tree = try Self.makeTree(list: Array(list.utf8))
        #expect(try tree.utiDefault("image/gif") == "viewer.desktop")
        if Self.gio != nil { #expect(try tree.gioDefault("image/gif") == "viewer.desktop") }
        if Self.xdgMIME != nil { #expect(try tree.xdgMIMEDefault("image/gif") == "extra.desktop") }
        // Added and removed applications too: the last value is the one edited.
        let added = try Self.makeTree(
            list: Array("[Added Associations]\nimage/gif=extra.desktop;\nimage/gif=other.desktop;\n".utf8))
        let offered = try Self.utiApplications("image/gif", in: added)
        #expect(offered.contains("other.desktop") && !offered.contains("extra.desktop"), "\(offered)")
        if Self.gio != nil {
            let registered = try SetDefaultAssociationAgreementTests.gioApplications("image/gif", in: added)
            #expect(
                registered.contains("other.desktop") && !registered.contains("extra.desktop"), "gio mime image/gif")
        }
    }

    // MARK: CR LF

    @Test func aCRLFListWithoutAFinalLineFeedStaysCRLF() throws {
        let list =
            "[Default Applications]\r\nimage/png=other.desktop;\r\ntext/markdown=extra.desktop;\r\n"
            + "[Added Associations]\r\ntext/plain=viewer.desktop;"
        let tree = try Self.makeTree(list: Array(list.utf8))
        let run = try Run(["set-default", "md", "viewer.desktop"], environment: tree.environment)
        #expect(run.status == 0, "\(run.stderr)")
        let expected =
            "[Default Applications]\r\nimage/png=other.desktop;\r\ntext/markdown=viewer.desktop;\r\n"
            + "text/x-markdown=viewer.desktop;\r\n[Added Associations]\r\ntext/plain=viewer.desktop;\r\n"
        #expect(try String(decoding: Self.bytes(tree.list), as: UTF8.self) == expected)
        // A group added at the end too.
        let removal = try Run(["set-default", "--remove", "viewer.desktop", "gif"], environment: tree.environment)
        #expect(removal.status == 0, "\(removal.stderr)")
        let text = String(decoding: try Self.bytes(tree.list), as: UTF8.self)
        #expect(text == expected + "\r\n[Removed Associations]\r\nimage/gif=viewer.desktop;\r\n")
    }

    // MARK: URL schemes

    @Test func aURLSchemesDefaultMustTakeURLs() throws {
        let tree = try Self.makeTree()
        try tree.folder.write(
            "data/applications/textedit.desktop",
            "[Desktop Entry]\nType=Application\nName=Text\nExec=/bin/true %F\nMimeType=text/plain;\n")
        try tree.folder.write(
            "data/applications/browser.desktop",
            "[Desktop Entry]\nType=Application\nName=Browser\nExec=/bin/true %u\nMimeType=x-scheme-handler/https;\n")
        for subject in ["https:", "x-scheme-handler/https", "https://example.org/"] {
            let run = try Run(["set-default", subject, "textedit.desktop"], environment: tree.environment)
            #expect(run.status == 2, "\(subject)")
            #expect(
                run.stderr
                    == "uti: textedit.desktop cannot be the default for https URLs: its Exec takes local files only "
                    + "(%f or %F, no %u or %U), so uti open and open-in could not give it a URL\n")
            #expect(!FileManager.default.fileExists(atPath: tree.list))
        }
        // In a settings file too: every line checked, nothing written.
        let settings = try Run(
            ["set-default", "--file", "-"], stdin: "md viewer.desktop\nhttps: textedit.desktop\n",
            environment: tree.environment)
        #expect(settings.status == 2)
        #expect(settings.stderr.contains("uti: standard input:2: error: textedit.desktop cannot be the default"))
        #expect(!FileManager.default.fileExists(atPath: tree.list))
        // An application that takes URLs; a file's type for the %F one.
        #expect(try Run(["set-default", "https:", "browser.desktop"], environment: tree.environment).status == 0)
        #expect(try Run(["set-default", "txt", "textedit.desktop"], environment: tree.environment).status == 0)
        if Self.gio != nil { #expect(try tree.gioDefault("x-scheme-handler/https") == "browser.desktop") }
    }
}
