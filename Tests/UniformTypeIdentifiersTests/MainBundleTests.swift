import Foundation
import TestSupport
import Testing
import UniformTypeIdentifiers

/// A program's own `Info.plist`, found where `ProcessTypeDeclarations`
/// says it looks, gives `UTType(exportedAs:)` its declaration.
@Suite struct MainBundleTests {
    static let infoPlist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
            <key>CFBundleIdentifier</key><string>com.example.notes-app</string>
            <key>UTExportedTypeDeclarations</key>
            <array>
                <dict>
                    <key>UTTypeIdentifier</key><string>com.example.notes</string>
                    <key>UTTypeDescription</key><string>Example notes</string>
                    <key>UTTypeConformsTo</key><array><string>public.plain-text</string></array>
                    <key>UTTypeTagSpecification</key>
                    <dict>
                        <key>public.filename-extension</key><array><string>exnotes</string></array>
                        <key>public.mime-type</key><string>application/x-example-notes</string>
                    </dict>
                </dict>
            </array>
        </dict>
        </plist>
        """

    /// Copies the example program to `program` (relative to a new folder),
    /// writes `plist` to `plistPath` there, runs it and returns its output.
    func run(
        program: String, plistPath: String?, plist: String = infoPlist, arguments: [String] = [],
        environment: [String: String] = [:]
    ) throws -> ProgramRun {
        let folder = TemporaryFolder("uti-app")
        let executable = folder.path(program)
        try folder.makeFolder((program as NSString).deletingLastPathComponent)
        try folder.copyProgram(BuiltProducts.url("uti-example-app").path, to: program)
        if let plistPath { try folder.write(plistPath, plist) }
        var env = ProcessInfo.processInfo.environment
        env["UTI_DECLARATIONS"] = nil
        env["XDG_DATA_HOME"] = folder.path("none")
        for (key, value) in environment { env[key] = value }
        return try ProgramRun(URL(fileURLWithPath: executable), arguments, environment: env)
    }

    @Test(arguments: [
        ("bin/notes", "bin/Info.plist"),  // beside the executable
        ("Notes.app/Contents/MacOS/notes", "Notes.app/Contents/Info.plist"),  // a Mac bundle's layout
        ("usr/bin/notes", "usr/share/notes/Info.plist"),  // an installed program
    ])
    func theProgramsInfoPlistDeclaresItsTypes(program: String, plistPath: String) throws {
        let result = try run(program: program, plistPath: plistPath)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(
            Array(lines.prefix(7)) == [
                "identifier: com.example.notes",
                "declared: true",
                "extension: exnotes",
                "mime: application/x-example-notes",
                "description: Example notes",
                "conforms to text: true",
                "by extension: com.example.notes",
            ])
        #expect(lines.last?.hasSuffix("/" + plistPath) == true)
    }

    @Test func withoutADeclarationTheProgramIsWarned() throws {
        let result = try run(program: "bin/notes", plistPath: nil)
        #expect(result.status == 0)
        #expect(result.stdout.contains("declared: false\n"))
        #expect(result.stderr.contains("\"com.example.notes\" was expected to be declared and exported"))
        // Without a handler the library writes nothing; the warning is still kept.
        let quiet = try run(program: "bin/notes", plistPath: nil, arguments: ["--quiet"])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty)
        #expect(quiet.stdout.contains("warnings: 1\n"))
    }

    @Test func UTI_DECLARATIONSServesAProgramWithoutAnInfoPlist() throws {
        let folder = TemporaryFolder("uti-decl")
        try folder.write("notes.plist", Self.infoPlist)
        let result = try run(
            program: "bin/notes", plistPath: nil, environment: ["UTI_DECLARATIONS": folder.path("notes.plist")])
        #expect(result.stdout.contains("extension: exnotes\n"))
        #expect(result.stderr == "")
    }

    @Test func aBrokenInfoPlistIsReportedNotHidden() throws {
        let broken =
            "<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<dict>\n<key>UTExportedTypeDeclarations</key>\n<array>\n"
        let quiet = try run(program: "bin/notes", plistPath: "bin/Info.plist", plist: broken)
        #expect(quiet.status == 0)
        #expect(quiet.stderr.contains("Info.plist:"))
        #expect(quiet.stderr.contains("left out"))
        let strict = try run(
            program: "bin/notes", plistPath: "bin/Info.plist", plist: broken, arguments: ["--activate"])
        #expect(strict.status == 3)
        #expect(strict.stdout.contains("problems: ") && strict.stdout.contains("Info.plist"))
    }

    @Test func declarationsAddedInCodeAfterFirstUseAreRefused() throws {
        _ = UTType.jpeg
        #expect(throws: ProcessTypeDeclarations.Failure.self) {
            try ProcessTypeDeclarations.add(propertyList: Data(Self.infoPlist.utf8), name: "late.plist")
        }
        #expect(throws: ProcessTypeDeclarations.Failure.self) {
            try ProcessTypeDeclarations.add(contentsOf: URL(fileURLWithPath: "/nonexistent/Info.plist"))
        }
    }

    @Test func candidatesAreTheDocumentedPlaces() {
        let candidates = ProcessTypeDeclarations.infoPlistCandidates(
            executable: URL(fileURLWithPath: "/opt/notes/bin/notes"))
        #expect(
            candidates.map(\.path) == [
                "/opt/notes/bin/Info.plist", "/opt/notes/Info.plist", "/opt/notes/share/notes/Info.plist",
            ])
    }
}
