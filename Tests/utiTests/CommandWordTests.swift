import Foundation
import TestSupport
import Testing

@testable import uti

/// The options of each command as the parser describes them
/// (`--experimental-dump-help`): spellings, and whether each takes a value.
private struct ParserOptions {
    var byCommand: [String: [(names: [String], takesValue: Bool)]] = [:]

    init() throws {
        let dump = try #require(try Run("--experimental-dump-help").json() as? [String: Any])
        let root = try #require(dump["command"] as? [String: Any])
        for command in try #require(root["subcommands"] as? [[String: Any]]) {
            let name = try #require(command["commandName"] as? String)
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                let kind = argument["kind"] as? String
                guard kind == "option" || kind == "flag" else { continue }
                let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { spelling -> String? in
                    guard let word = spelling["name"] as? String else { return nil }
                    return (spelling["kind"] as? String == "long" ? "--" : "-") + word
                }
                byCommand[name, default: []].append((names, kind == "option"))
            }
        }
    }
}

/// Options before the command mean what they mean after it; a command word
/// after options is never a query.
@Suite struct CommandWordTests {
    /// The command words are the parser's own, its names and aliases.
    @Test func commandWordsAreTheParsers() {
        let parser = UTI.configuration.subcommands.flatMap { [$0._commandName] + $0.configuration.aliases }
        #expect(CommandNames.ordered == parser + ["help"])
        #expect(Set(CommandNames.ordered).count == CommandNames.ordered.count, "a word names one command")
    }

    @Test(arguments: [
        (["--no-system", "conforms", "jpg", "public.text"], ["conforms", "--no-system", "jpg", "public.text"]),
        (["--no-system", "equal", "jpg", "png"], ["equal", "--no-system", "jpg", "png"]),
        (["--json", "file", "x.png"], ["file", "--json", "x.png"]),
        (["-b", "file", "x.png"], ["file", "-b", "x.png"]),
        (
            ["--declarations", "/nonexistent/d.plist", "conforms", "jpg", "public.image"],
            ["conforms", "--declarations", "/nonexistent/d.plist", "jpg", "public.image"]
        ),
        (["--no-system", "--json", "tags", "jpg"], ["tags", "--no-system", "--json", "jpg"]),
    ])
    func theCommandWordIsNeverAQuery(before: [String], after: [String]) throws {
        let a = try Run(before), b = try Run(after)
        #expect(a.status == b.status && a.stdout == b.stdout && a.stderr == b.stderr, "\(before): \(a.stderr)")
        #expect(!a.stdout.contains("\"query\": \"\(before.first { !$0.hasPrefix("-") }!)\""))
    }

    @Test func everyOptionOfEveryQueryCommandMeansTheSameBeforeIt() throws {
        let parser = try ParserOptions()
        let samples: [String: [String]] = [
            "lookup": ["jpg"], "file": ["/nonexistent/x.png"], "tags": ["jpg"], "conforms": ["jpg", "public.image"],
            "equal": ["jpg", "jpeg"], "supertypes": ["jpg"], "descendants": ["public.image"],
            "decode": ["dyn.ah62d4rv4ge81g6pq"], "graph": ["public.jpeg"], "validate": [fixture("cookbook-Info.plist")],
            "batch": [], "filter": ["public.image", "/nonexistent/x.png"],
        ]
        let values = [
            "--declarations": fixture("cookbook-Info.plist"), "--apps": "/nonexistent", "--language": "de",
            "--conforming-to": "public.data", "--tag-class": "extension", "--class": "extension",
        ]
        var tried = 0
        for (command, arguments) in samples {
            for option in parser.byCommand[command] ?? [] {
                for name in option.names where !["--help", "-h", "-help", "--version"].contains(name) {
                    var words = [name]
                    if option.takesValue {
                        guard let value = values[name] else { continue }
                        words.append(value)
                    }
                    // Only batch reads standard input; the others may exit before it is written.
                    let input = command == "batch" ? "jpg\n" : nil
                    let before = try Run(words + [command] + arguments, stdin: input)
                    let after = try Run([command] + words + arguments, stdin: input)
                    tried += 1
                    #expect(
                        before.status == after.status && before.stdout == after.stdout && before.stderr == after.stderr,
                        "uti \(name) \(command) differs from uti \(command) \(name): \(before.stderr) / \(after.stderr)"
                    )
                }
            }
        }
        #expect(tried > 60)
    }

    /// An option of the default command that takes a value, before another
    /// command's word: the command reads it (and refuses it, when it does
    /// not take it), as it would after its word. The value never makes the
    /// command word a query.
    @Test func aDefaultCommandOptionWithAValueBeforeACommandIsTheCommands() throws {
        let parser = try ParserOptions()
        let values = ["--language": "de", "--conforming-to": "public.data", "--tag-class": "extension"]
        let samples: [String: [String]] = [
            "file": ["/nonexistent/x.png"], "tags": ["jpg"], "conforms": ["jpg", "public.text"],
            "equal": ["jpg", "jpeg"], "supertypes": ["jpg"], "decode": ["dyn.ah62d4rv4ge81g6pq"],
            "graph": ["public.jpeg"], "filter": ["public.image", "/nonexistent/x.png"],
        ]
        var tried = 0
        for option in parser.byCommand["lookup"] ?? [] where option.takesValue {
            for name in option.names {
                guard let value = values[name] else { continue }
                for (command, arguments) in samples {
                    let before = try Run([name, value, command] + arguments)
                    let after = try Run([command, name, value] + arguments)
                    tried += 1
                    #expect(
                        before.status == after.status && before.stdout == after.stdout,
                        "uti \(name) \(value) \(command): \(before.status) \(before.stderr) / \(after.status)")
                    #expect(
                        before.status != 0 || parser.byCommand[command]?.contains { $0.names.contains(name) } == true)
                }
            }
        }
        #expect(tried >= 3 * samples.count)
    }

    /// `--NAME=` with nothing after `=` would make the parser take the next
    /// argument as the value: refused (exit 2) before anything is done, so
    /// `uti inbox --inbox= sub` never empties `sub`.
    @Test(arguments: [
        ["--language=", "file", "a.png", "b.txt"], ["file", "--language=", "a.png"], ["--conforming-to=", "jpg"],
        ["inbox", "--inbox=", "sub"],
    ])
    func anEmptyValueAfterAnEqualsSignIsRefused(arguments: [String]) throws {
        let folder = TemporaryFolder("uti-empty-value")
        try FileManager.default.createDirectory(atPath: folder.path + "/sub", withIntermediateDirectories: false)
        try Data("kept".utf8).write(to: URL(fileURLWithPath: folder.path + "/sub/keep.txt"))
        let run = try Run(arguments, directory: folder.path)
        let option = try #require(arguments.first { $0.hasSuffix("=") })
        #expect(run.status == 2 && run.stdout.isEmpty, "\(run.stdout)")
        #expect(run.stderr.contains("\(option) has nothing after \"=\""), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/sub") == ["keep.txt"])
        // An empty value given as an argument of its own, and `--` before it, are words as before.
        #expect(try Run(["--", "--x="]).status != 2)
    }

    @Test(arguments: [
        (["--language", "de", "help", "conforms"], "Unknown option '--language'"),
        (["--tag-class", "extension", "help"], "Unknown option '--tag-class'"),
        (["--language", "de", "conforms", "jpg", "public.text"], "Unknown option '--language'"),
        (["--tag-class", "extension", "file", "x.png"], "Unknown option '--tag-class'"),
        (["--conforming-to", "public.data", "file", "jpg", "-b"], "Unknown option '--conforming-to'"),
        (["--bogus"], "Unknown option '--bogus'"),
        (["--verison"], "Unknown option '--verison'. Did you mean '--version'?"),
        (["jpg", "--verison"], "Unknown option '--verison'. Did you mean '--version'?"),
        (["file", "--mmie", "x.png"], "Unknown option '--mmie'. Did you mean '--mime'?"),
        (["inbox", "--settle", "-1", "/nonexistent"], "--settle -1.0: give seconds from 0 to 86400"),
        (["inbox", "--settle", "soon", "/nonexistent"], "The value 'soon' is invalid for '--settle <seconds>'"),
        (["--unfiltered", "file", "x.png"], "Unknown option '--unfiltered'"),
    ])
    func aBadArgumentIsNamed(arguments: [String], message: String) throws {
        let run = try Run(arguments)
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stderr.contains("Usage: uti"))
    }
}
