import Foundation
import Testing

@testable import DocumentHandlers

@Suite struct KeyFileTests {
    @Test func groupsEntriesLocalesAndLines() throws {
        let text = "# comment\n[Desktop Entry]\nName=Viewer\nName[de]=Betrachter\n  Exec = view %f \n\n[Other]\nKey=1\n"
        let file = KeyFile(bytes: Array(text.utf8), path: "a.desktop")
        #expect(file.diagnostics.isEmpty)
        let group = try #require(file.group("Desktop Entry"))
        #expect(group.entry("Name")?.rawValue == "Viewer")
        #expect(group.entry("Name", language: "de_AT.UTF-8")?.rawValue == "Betrachter")
        #expect(group.entry("Name", language: "fr")?.rawValue == "Viewer")
        #expect(group.entry("Exec")?.rawValue == "view %f ")
        #expect(group.entry("Exec")?.line == 5)
        #expect(file.group("Other")?.entry("Key")?.line == 8)
    }

    @Test func badLinesAreReportedWithTheirLineAndSkipped() {
        let text = "Orphan=1\n[Group\n[Good]\nno equals sign\nBad Key=2\nKey[]=3\nOk=4\n"
        let file = KeyFile(bytes: Array(text.utf8), path: "x.list")
        let lines = file.diagnostics.map(\.position.line)
        #expect(lines == [1, 2, 4, 5, 6])
        #expect(file.diagnostics[0].description.hasPrefix("x.list:1: error: entry before the first [Group]"))
        #expect(file.group("Good")?.entries.map(\.key) == ["Ok"])
    }

    @Test func invalidUTF8IsAnErrorNamingTheLine() {
        let file = KeyFile(bytes: Array("[A]\nK=1\nName=caf".utf8) + [0xE9, 0x0A], path: "bad.desktop")
        #expect(file.groups.isEmpty)
        #expect(file.diagnostics.first?.position.line == 3)
        #expect(file.diagnostics.first?.message.contains("not UTF-8 (byte 16)") == true)
    }

    /// CR LF line endings are read as GLib reads them: the CR is not part
    /// of the value, and a lone CR inside a line is still refused.
    @Test func crlfLineEndingsAreRead() throws {
        let text = "[Desktop Entry]\r\nName=Viewer\r\nExec=view %f\r\n\r\n[Other]\r\nKey=a\rb\r\n"
        let file = KeyFile(bytes: Array(text.utf8), path: "crlf.desktop")
        #expect(file.group("Desktop Entry")?.entry("Name")?.rawValue == "Viewer")
        #expect(file.group("Desktop Entry")?.entry("Exec")?.line == 3)
        #expect(file.group("Other")?.entry("Key") == nil)
        #expect(
            file.diagnostics.map(\.description) == [
                "crlf.desktop:6: error: control character U+000D at column 6; the line is skipped"
            ])
    }

    /// Lines are taken apart on Unicode scalars, as GLib takes them apart on
    /// bytes: a combining mark (U+0301) after `=`, `]` or `;` does not join
    /// with it and hide it.
    @Test func combiningMarksDoNotHideStructure() throws {
        let text = "[A\u{301}]\nKey=\u{301}v\nList=a;\u{301}b;\n[B]\u{301}\n"
        let file = KeyFile(bytes: Array(text.utf8), path: "marks.list")
        let group = try #require(file.group("A\u{301}"))
        #expect(group.entry("Key")?.rawValue == "\u{301}v")
        #expect(try KeyFileValue.strings(#require(group.entry("List")).rawValue) == ["a", "\u{301}b"])
        #expect(
            file.diagnostics.map(\.description) == [
                "marks.list:4: error: group header without a closing \"]\"; the line is skipped"
            ])
    }

    /// As GLib's GKeyFile loads a file: a line it cannot parse leaves no
    /// group read, named by its line; a key given again replaces the
    /// earlier, in a repeated group too; lines GLib loads stay as they are.
    @Test func gKeyFileParsing() throws {
        let bad = "[A]\nK=1\n; note\nL=2\n"
        let refused = KeyFile(bytes: Array(bad.utf8), path: "m.list", parsing: .asGKeyFile)
        #expect(refused.groups.isEmpty)
        #expect(
            refused.diagnostics.map(\.description) == [
                "m.list:3: error: expected \"Key=Value\", a [Group] or a # comment; GLib reads no line of a file "
                    + "with such a line, and the whole file is ignored"
            ])
        #expect(KeyFile(bytes: Array(bad.utf8), path: "m.list").group("A")?.entries.count == 2)
        let repeated = "[A]\nK=1\n[B]\n[A]\nK=2\nK[de]=3\n\u{0C}\nim~age=4\n"
        let file = KeyFile(bytes: Array(repeated.utf8), path: "m.list", parsing: .asGKeyFile)
        #expect(file.group("A")?.entries.map(\.rawValue) == ["2", "3"])
        #expect(file.diagnostics.allSatisfy { $0.severity != .error || $0.message.hasSuffix("the line is skipped") })
        for line in ["\u{FEFF}[A]", "[A", "[A]x", "=v", "a]=v", "k[a b]=v", "\u{0B}", "[A\u{7F}]"] {
            let text = line.hasPrefix("\u{FEFF}") ? line + "\n" : "[A]\n" + line + "\n"
            #expect(
                KeyFile(bytes: Array(text.utf8), path: "m.list", parsing: .asGKeyFile).groups.isEmpty,
                "\(line.debugDescription)")
        }
    }

    @Test func valueEscapesAndLists() throws {
        #expect(try KeyFileValue.string(#"a\sb\tc\\d\ne"#) == "a b\tc\\d\ne")
        #expect(try KeyFileValue.strings(#"text/plain;a\;b;;image/png;"#) == ["text/plain", "a;b", "image/png"])
        #expect(throws: KeyFileValue.Problem.self) { try KeyFileValue.string(#"bad\q"#) }
        #expect(throws: KeyFileValue.Problem.self) { try KeyFileValue.string("ends\\") }
        #expect(
            KeyFileValue.boolean("true") == true && KeyFileValue.boolean("0") == false
                && KeyFileValue.boolean("yes") == nil)
    }
}

@Suite struct ExecCommandTests {
    let details = ExecCommand.EntryDetails(icon: "viewer", name: "Viewer", location: "/apps/viewer.desktop")

    /// A combining mark after a blank, a quote or a `%` does not hide it.
    @Test func combiningMarksDoNotHideQuotingOrFieldCodes() throws {
        let command = try ExecCommand("view \u{301}x \"\u{301}y z\" %f\u{301}")
        #expect(command.commands(for: ["/a"]) == [["view", "\u{301}x", "\u{301}y z", "/a\u{301}"]])
    }

    @Test func fieldCodesExpandToSeparateArguments() throws {
        let single = try ExecCommand(#"view --name %c %i --from=%k "quoted \"arg\" \$x" %f"#)
        #expect(single.fileArgument == .single(uri: false))
        #expect(
            single.commands(for: ["/a b.txt", "/c.txt"], entry: details) == [
                [
                    "view", "--name", "Viewer", "--icon", "viewer", "--from=/apps/viewer.desktop", #"quoted "arg" $x"#,
                    "/a b.txt",
                ],
                [
                    "view", "--name", "Viewer", "--icon", "viewer", "--from=/apps/viewer.desktop", #"quoted "arg" $x"#,
                    "/c.txt",
                ],
            ])
        let list = try ExecCommand("edit %U --percent=100%% %d")
        #expect(
            list.commands(for: ["/a b.txt", "/é.txt"]) == [
                ["edit", "file:///a%20b.txt", "file:///%C3%A9.txt", "--percent=100%"]
            ])
        let none = try ExecCommand("settings")
        #expect(none.fileArgument == .none)
        #expect(none.commands(for: ["/x"]) == [["settings"]])
        #expect(try ExecCommand("v %f").commands(for: []) == [["v"]])
    }

    @Test(arguments: [
        ("view %x", "unknown field code \"%x\" at column 6"),
        (#"view "%f""#, "a field code inside a quoted argument"),
        (#"view "open"#, "the double quote at column 6 is never closed"),
        ("view a%F", "%F must be an argument on its own"),
        ("view %f %u", "more than one of %f, %F, %u, %U"),
        ("%f", "the program name holds a field code"),
        ("   ", "Exec is empty"),
        ("view %", "a \"%\" ends the command"),
    ])
    func brokenFieldCodesAndQuotesAreErrors(exec: String, message: String) {
        do {
            _ = try ExecCommand(exec)
            Issue.record("\(exec) was accepted")
        } catch {
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    @Test func shellQuotingRoundTripsThroughSh() throws {
        let argv = ["printf", "%s|", "it's", "a b", "$HOME", "`x`", "", "plain-1.txt"]
        let quoted = ExecCommand.shellQuoted(argv)
        #expect(quoted == #"printf '%s|' 'it'\''s' 'a b' '$HOME' '`x`' '' plain-1.txt"#)
        let output = String(decoding: try Self.output(of: "/bin/sh", running: quoted), as: UTF8.self)
        #expect(output == "it's|a b|$HOME|`x`||plain-1.txt|")
    }

    /// Control characters, C1 controls and bytes that are not text are
    /// printed in `$'…'`, which bash reads back to the very bytes: what is
    /// printed is what runs.
    @Test func controlsAndRawBytesRoundTripThroughBash() throws {
        let raw: Unicode.Scalar = "\u{10FFFF}"  // stands for the byte 0xFF here
        let argv = [
            "printf", "%s|", "esc\u{1B}[31mred", "tab\there", "line\nbreak", "it's \\ done", "c1\u{85}x",
            "bad" + String(Character(raw)) + ".txt", "é plain",
        ]
        let quoted = ExecCommand.shellQuoted(argv, rawByte: { $0 == raw ? 0xFF : nil })
        #expect(
            quoted
                == #"printf '%s|' $'esc\x1b[31mred' $'tab\there' $'line\nbreak' 'it'\''s \ done' $'c1\xc2\x85x' $'bad\xff.txt' 'é plain'"#
        )
        #expect(!quoted.unicodeScalars.contains { $0.value < 0x20 || $0 == raw })
        let output = try Self.output(of: "/bin/bash", running: quoted)
        let expected =
            Array("esc\u{1B}[31mred|tab\there|line\nbreak|it's \\ done|c1\u{85}x|bad".utf8) + [0xFF]
            + Array(".txt|é plain|".utf8)
        #expect(output == expected)
    }

    /// What `shell -c script` writes to standard output.
    static func output(of shell: String, running script: String) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = ["-c", script]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = [UInt8](pipe.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        return output
    }
}
