import Foundation
import TestSupport
import Testing

/// After `set-default`, `uti open-in`, GIO (`gio mime TYPE`) and xdg-utils
/// (`xdg-mime query default TYPE`) name the same application for every
/// MIME type it wrote: a wildcard or an abstract type is written as the
/// MIME types it stands for, an alias beside its canonical type, and
/// nothing only `uti` reads. GIO and xdg-mime are the judges; each is asked
/// only when it is installed (`.ci/run` installs both).
@Suite struct SetDefaultAgreementTests {
    static func tool(_ name: String) -> String? {
        ["/usr/bin/", "/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
    static let gio = tool("gio")
    static let xdgMIME = tool("xdg-mime")

    /// A home, XDG folders and two desktop entries in a temporary folder;
    /// the data folders hold the system's MIME database and nothing else.
    final class Tree {
        let folder = TemporaryFolder("uti-set-default")
        var root: String { folder.path }
        var list: String { root + "/config/mimeapps.list" }
        /// What every program here runs with: no desktop named, so that
        /// xdg-mime takes its generic path.
        var environment: [String: String] {
            [
                "HOME": root + "/home", "XDG_CONFIG_HOME": root + "/config", "XDG_CONFIG_DIRS": root + "/etc-xdg",
                "XDG_DATA_HOME": root + "/data", "XDG_DATA_DIRS": TestWorld.systemMIMEOnly,
                "XDG_CACHE_HOME": root + "/cache", "UTI_APPS": "", "LANG": "C.UTF-8",
            ]
        }

        init(list: String? = nil) throws {
            for name in ["home", "config", "etc-xdg", "cache"] { try folder.makeFolder(name) }
            try folder.write(
                "data/applications/myview.desktop",
                "[Desktop Entry]\nType=Application\nName=My view\nExec=/bin/true %f\n"
                    + "MimeType=image/png;image/jpeg;image/gif;\n")
            try folder.write(
                "data/applications/other.desktop",
                "[Desktop Entry]\nType=Application\nName=Other\nExec=/bin/true %f\nMimeType=text/html;\n")
            if let list { try folder.write("config/mimeapps.list", list) }
        }

        /// The keys of `[Default Applications]` in the user's list, in order.
        func defaultKeys() throws -> [String] {
            var keys: [String] = []
            var inDefaults = false
            for line in try String(contentsOfFile: list, encoding: .utf8).split(separator: "\n") {
                if line.hasPrefix("[") {
                    inDefaults = line == "[Default Applications]"
                } else if inDefaults, let equals = line.firstIndex(of: "=") {
                    keys.append(String(line[..<equals]))
                }
            }
            return keys
        }

        /// The application `uti open-in --type` opens `mime` with.
        func utiDefault(_ mime: String) throws -> String? {
            let run = try Run(["open-in", "--type", mime, "--json"], environment: environment)
            let items = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]]
            return (items?.first?["candidates"] as? [[String: Any]])?.first?["id"] as? String
        }

        /// The program `path` run with `arguments` here, its own PATH set.
        func run(_ path: String, _ arguments: [String]) throws -> ProgramRun {
            var environment = self.environment
            environment["PATH"] = "/usr/bin:/bin"
            return try ProgramRun(URL(fileURLWithPath: path), arguments, environment: environment)
        }

        /// The default `gio mime` names for `mime`.
        func gioDefault(_ mime: String) throws -> String? {
            let first = try run(SetDefaultAgreementTests.gio!, ["mime", mime]).stdout.split(separator: "\n").first
            guard let first, first.hasPrefix("Default application for") else { return nil }
            return first.components(separatedBy: ": ").last
        }

        /// The default `xdg-mime query default` names for `mime`.
        func xdgMIMEDefault(_ mime: String) throws -> String? {
            let answer = try run(SetDefaultAgreementTests.xdgMIME!, ["query", "default", mime]).stdout
            let line = answer.trimmingCharacters(in: .whitespacesAndNewlines)
            return line.isEmpty ? nil : line
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var subject: String
        var app: String
        /// Keys the list must have after the run (it may have more).
        var keys: [String]
        var testDescription: String { "set-default \(subject) \(app)" }
    }

    static let cases = [
        Case(subject: "image/*", app: "myview.desktop", keys: ["image/png", "image/jpeg", "image/pjpeg", "image/gif"]),
        Case(subject: "public.image", app: "myview.desktop", keys: ["image/png", "image/jpeg", "image/gif"]),
        Case(subject: "md", app: "other.desktop", keys: ["text/markdown", "text/x-markdown"]),
        Case(subject: "image/png", app: "other.desktop", keys: ["image/png"]),
        Case(subject: "application/x-pdf", app: "other.desktop", keys: ["application/pdf", "application/x-pdf"]),
    ]

    /// A list an earlier release wrote, with keys only uti reads.
    static let formerList = "[Default Applications]\nimage/*=other.desktop;\npublic.image=other.desktop;\n"

    @Test(arguments: cases)
    func everyWrittenMIMETypeOpensWithTheApplicationInEveryReader(_ given: Case) throws {
        let tree = try Tree(list: Self.formerList)
        let run = try Run(["set-default", given.subject, given.app], environment: tree.environment)
        #expect(run.status == 0, "\(run.stderr)")
        // The keys written, as the run names them: "SUBJECT: APP is the default (KEY, KEY) in FILE".
        let named = run.stdout.split(separator: "(", maxSplits: 1).last?.split(separator: ")").first ?? ""
        let written = named.components(separatedBy: ", ")
        let keys = try tree.defaultKeys()
        for key in given.keys { #expect(written.contains(key), "\(key) is not written: \(run.stdout)") }
        for key in written {
            #expect(keys.contains(key))
            // Every key is a MIME type GIO and xdg-mime read.
            #expect(key.contains("/") && !key.contains("*"), "\(key) is not a MIME type")
            #expect(try tree.utiDefault(key) == given.app, "uti open-in --type \(key)")
            if Self.gio != nil { #expect(try tree.gioDefault(key) == given.app, "gio mime \(key)") }
            if Self.xdgMIME != nil {
                #expect(try tree.xdgMIMEDefault(key) == given.app, "xdg-mime query default \(key)")
            }
        }
    }

    /// The judges themselves: GIO and xdg-mime agree with uti on each key,
    /// tested apart so that a missing tool is reported as skipped.
    @Test(.enabled(if: gio != nil, "gio is not installed"))
    func gioReadsTheWildcardAsItsMIMETypes() throws {
        let tree = try Tree()
        #expect(try Run(["set-default", "image/*", "myview.desktop"], environment: tree.environment).status == 0)
        for key in ["image/png", "image/jpeg", "image/pjpeg", "image/gif"] {
            #expect(try tree.gioDefault(key) == "myview.desktop", "gio mime \(key)")
        }
        // An alias is read as its canonical type.
        #expect(try Run(["set-default", "pdf", "other.desktop"], environment: tree.environment).status == 0)
        #expect(try tree.gioDefault("application/x-pdf") == "other.desktop")
        #expect(try tree.gioDefault("application/pdf") == "other.desktop")
    }

    @Test(.enabled(if: xdgMIME != nil, "xdg-mime is not installed"))
    func xdgMIMEReadsEveryAliasWritten() throws {
        let tree = try Tree()
        #expect(try Run(["set-default", "public.image", "myview.desktop"], environment: tree.environment).status == 0)
        for key in ["image/png", "image/jpeg", "image/pjpeg", "image/gif"] {
            #expect(try tree.xdgMIMEDefault(key) == "myview.desktop", "xdg-mime query default \(key)")
        }
        #expect(
            try Run(["set-default", "application/pdf", "other.desktop"], environment: tree.environment).status == 0)
        for key in ["application/pdf", "application/x-pdf", "image/pdf"] {
            #expect(try tree.xdgMIMEDefault(key) == "other.desktop", "xdg-mime query default \(key)")
        }
    }

    @Test func theKeysOnlyUTIReadIsReplaced() throws {
        let tree = try Tree(list: Self.formerList)
        let run = try Run(["set-default", "public.image", "myview.desktop"], environment: tree.environment)
        #expect(run.status == 0)
        #expect(run.stdout.hasSuffix("; public.image, a key only uti reads, is removed\n"))
        let keys = try tree.defaultKeys()
        #expect(!keys.contains("public.image"))
        // The wildcard key is another subject's: it stays until that is set.
        #expect(keys.contains("image/*"))
        let wildcard = try Run(["set-default", "image/*", "myview.desktop"], environment: tree.environment)
        #expect(wildcard.stdout.hasSuffix("; image/*, a key only uti reads, is removed\n"))
        #expect(try !tree.defaultKeys().contains("image/*"))
    }

    @Test func aTypeWithNoMIMETypeToWriteIsRefused() throws {
        let tree = try Tree(list: Self.formerList)
        let before = try String(contentsOfFile: tree.list, encoding: .utf8)
        let cases: [([String], String)] = [
            (
                ["set-default", ".zzqq", "other.desktop"],
                "has no MIME type, nor has any type under it; mimeapps.list keys are MIME types"
            ),
            (
                ["set-default", "public.image", "other.desktop"],
                "uti: public.image: other.desktop opens none of the MIME types of public.image"
            ),
            (
                ["set-default", "audio/*", "myview.desktop"],
                "uti: audio/*: myview.desktop opens none of the MIME types of every audio/ type"
            ),
        ]
        for (arguments, message) in cases {
            let run = try Run(arguments, environment: tree.environment)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.stderr.contains(message), "\(run.stderr)")
            #expect(try String(contentsOfFile: tree.list, encoding: .utf8) == before)
        }
    }

    /// In a SETTINGS file, a line naming a MIME type keeps it from another
    /// line's wildcard, whatever their order.
    @Test func aNamedTypeBeatsAWildcardInOneFile() throws {
        let tree = try Tree()
        let run = try Run(
            ["set-default", "--file", "-"], stdin: "image/png other.desktop\nimage/* myview.desktop\n",
            environment: tree.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try tree.utiDefault("image/png") == "other.desktop")
        #expect(try tree.utiDefault("image/gif") == "myview.desktop")
    }
}
