import Foundation
import TestSupport
import Testing

/// What another program's files hold is printed on its own line, escaped:
/// a desktop entry's `Name` or `Exec` with the key-file escapes `\n` and
/// `\t`, a type declaration's `UTTypeDescription` or tag with `&#10;`, a
/// mimeapps.list value with `\n`. No such file can forge a `command:` or
/// `conforms to:` line of any human form, or reorder one with a
/// bidirectional override.
@Suite struct ForgedLineTests {
    /// A private XDG tree (no desktop entry or declaration of the machine
    /// is read) holding one forged file of each kind.
    final class Tree {
        let folder = TemporaryFolder("uti-forged")
        var root: String { folder.path }
        var environment: [String: String] {
            folder.privateXDGEnvironment.merging(["UTI_DECLARATIONS": root + "/declarations"]) { $1 }
        }

        init() throws {
            try folder.write(
                "share/applications/viewer.desktop",
                """
                [Desktop Entry]
                Type=Application
                Name=Viewer\\ncommand: rm -rf ~\\tnow
                Exec=true --title "Viewer\\ncommand: rm -rf ~\\t\u{202E}" %f
                MimeType=application/x-forged;
                """)
            try folder.write(
                "declarations/forged.plist",
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict><key>UTExportedTypeDeclarations</key><array><dict>
                  <key>UTTypeIdentifier</key><string>com.example.forged</string>
                  <key>UTTypeDescription</key><string>Forged&#10;conforms to: public.image&#x202E;fdp</string>
                  <key>UTTypeConformsTo</key><array><string>public.data</string></array>
                  <key>UTTypeTagSpecification</key><dict>
                    <key>public.filename-extension</key>
                    <array><string>forged</string><string>.forged2&#10;conforms to: public.image</string></array>
                    <key>public.mime-type</key>
                    <array><string>application/x-forged</string><string>application/x-forged&#10;command: rm -rf ~</string></array>
                  </dict>
                </dict></array></dict></plist>
                """)
            try folder.write(
                "config/mimeapps.list",
                "[Default Applications]\napplication/x-forged=gone\\ncommand: rm -rf ~.desktop;viewer.desktop;\n")
            try folder.write("docs/today.forged", "forged\n")
        }
    }

    /// One command; `@` in an argument stands for the tree's folder.
    struct Case: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var status: Int32 = 0
        /// Escaped text that must be printed (on either stream).
        var shows: [String]
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let name = "Viewer\\ncommand: rm -rf ~\\tnow"
    static let description = "Forged\\nconforms to: public.image\\xe2\\x80\\xaefdp"

    static let cases: [Case] = [
        Case(
            arguments: ["open-in", "--no-system", "@/docs/today.forged"],
            shows: [
                "  * viewer.desktop  \(name)  set as the default",
                "  command: true --title $'Viewer\\ncommand: rm -rf ~\\t'$'\\xe2\\x80\\xae' @/docs/today.forged",
            ]),
        Case(arguments: ["open-in", "--no-system", "--type", "forged"], shows: ["  * viewer.desktop  \(name)  "]),
        Case(
            arguments: ["open-in", "--no-system", "--app", "viewer.desktop", "--list"],
            shows: ["viewer.desktop: \(name) (@/share/applications/viewer.desktop)"]),
        Case(
            arguments: ["--no-system", "forged"],
            shows: [
                "com.example.forged  \(description)\n",
                "  extensions:       forged, forged2\\nconforms to: public.image\n",
                "  MIME types:       application/x-forged, application/x-forged\\ncommand: rm -rf ~\n",
            ]),
        // Without an option, a lookup and `file` are answered without the argument parser (`FastPath`).
        Case(arguments: ["forged"], shows: ["com.example.forged  \(description)\n"]),
        Case(
            arguments: ["file", "--no-system", "@/docs/today.forged"],
            shows: ["@/docs/today.forged: com.example.forged (application/x-forged, \(description)) by name"]),
        Case(
            arguments: ["file", "@/docs/today.forged"],
            shows: ["@/docs/today.forged: com.example.forged (application/x-forged, \(description)) by name"]),
        Case(
            arguments: ["tags", "--no-system", "forged"],
            shows: ["public.mime-type: application/x-forged application/x-forged\\ncommand: rm -rf ~\n"]),
        Case(
            arguments: ["validate", "@/declarations/forged.plist"],
            shows: ["has a leading dot; read as \"forged2\\nconforms to: public.image\"\n"]),
        Case(
            arguments: ["defaults", "--no-system", "--all"],
            shows: ["    passed over: gone\\ncommand: rm -rf ~.desktop  @/config/mimeapps.list:2: "]),
        // Refused (no key of mimeapps.list holds a line feed); the message names the key escaped.
        Case(
            arguments: ["set-default", "--no-system", "forged", "viewer.desktop"], status: 2,
            shows: ["\"application/x-forged\\ncommand: rm -rf ~\" cannot be a key of mimeapps.list"]),
    ]

    @Test(arguments: cases)
    func noForgedLineInAnyHumanForm(_ command: Case) throws {
        let tree = try Tree()
        let run = try Run(
            command.arguments.map { $0.replacingOccurrences(of: "@", with: tree.root) }, environment: tree.environment)
        let output = run.stdout + run.stderr
        #expect(run.status == command.status, "\(output)")
        for shown in command.shows {
            #expect(output.contains(shown.replacingOccurrences(of: "@", with: tree.root)), "\(output)")
        }
        for line in output.split(separator: "\n") {
            let text = line.drop { $0 == " " }
            #expect(!text.hasPrefix("command: rm") && !text.hasPrefix("conforms to: public.image"), "\(line)")
        }
        #expect(
            !output.unicodeScalars.contains { $0 == "\t" || $0 == "\r" || (0x2028...0x202E).contains($0.value) },
            "\(output)")
    }

    /// JSON carries the text itself, escaped as JSON escapes it.
    @Test func jsonGivesTheTextItself() throws {
        let tree = try Tree()
        let run = try Run(["open-in", "--no-system", "--json", "--type", "forged"], environment: tree.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\"name\": \"Viewer\\ncommand: rm -rf ~\\tnow\""))
        let candidates = try #require((run.json() as? [[String: Any]])?.first?["candidates"] as? [[String: Any]])
        #expect(candidates.first?["name"] as? String == "Viewer\ncommand: rm -rf ~\tnow")
    }

    /// `uti filter` hands paths on as their bytes, one a line: a path with
    /// a line feed is not printed there (it would read as two), and is
    /// printed as it is with `-0`.
    @Test func aPathWithALineFeedNeverSplitsALineOfFilter() throws {
        let tree = try Tree()
        let plain = tree.root + "/docs/today.forged"
        let forged = tree.root + "/docs/a\ncommand: rm -rf ~.forged"
        try tree.folder.write("docs/a\ncommand: rm -rf ~.forged", "forged\n")
        let lines = try Run(["filter", "--no-system", "public.data", plain, forged], environment: tree.environment)
        #expect(lines.status == 2)
        #expect(lines.stdout == plain + "\n")
        #expect(lines.stderr.contains("a\\ncommand: rm -rf ~.forged: not printed"), "\(lines.stderr)")
        let records = try Run(
            ["filter", "-0", "--no-system", "public.data", plain, forged], environment: tree.environment)
        #expect(records.status == 0, "\(records.stderr)")
        #expect(records.stdout == plain + "\0" + forged + "\0")
    }
}
