import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What one run printed: each JSON document, validated against a definition.
struct CheckedOutput: Sendable {
    var command: String
    var definition: String
    var status: Int32 = 0
    var documents: [JSONValue] = []
    /// Parse failures and violations, each naming the command and the document.
    var problems: [String] = []
    /// The definitions the valid documents matched.
    var definitions: Set<String> = []

    /// Every element of the documents that are arrays, and the documents that are objects.
    var objects: [JSONValue] { documents.flatMap { $0.arrayValue ?? [$0] } }

    init(command: String, definition: String) {
        self.command = command
        self.definition = definition
    }

    /// `stdout` as one document or, with `lines`, one per line.
    init(command: String, definition: String, run: Run, lines: Bool) {
        self.init(command: command, definition: definition)
        status = run.status
        let texts = lines ? run.lines : [run.stdout]
        if texts.isEmpty || texts == [""] {
            problems.append("\(command): printed nothing; standard error: \(run.stderr)")
        }
        let schema: JSONSchema
        do { schema = try SchemaFile.schema() } catch {
            problems.append("\(SchemaFile.url.path): \(error)")
            return
        }
        for (index, text) in texts.enumerated() where !(texts.count == 1 && text.isEmpty) {
            let label = lines ? "\(command), line \(index + 1)" : command
            let document: JSONValue
            do { document = try JSONValue.parse(text) } catch {
                problems.append("\(label): not JSON: \(error)")
                continue
            }
            documents.append(document)
            let result = schema.validate(document, definition: definition)
            problems += result.violations.map { "\(label): \($0)" }
            if result.isValid { definitions.formUnion(result.definitions) }
        }
    }
}

/// A folder with everything the runs need, so that no answer comes from
/// what is installed: a MIME package (a glob, magic, a tree rule), desktop
/// entries, an app bundle that declares a type, a user declaration with a
/// version, a mimeapps.list, and files.
final class SchemaFixture {
    let folder = TemporaryFolder("uti-json-schema")
    var root: String { folder.path }
    /// A name longer than a file system allows: typing it fails.
    let longName = String(repeating: "n", count: 300) + ".txt"

    var environment: [String: String] { folder.privateXDGEnvironment }

    func path(_ relative: String) -> String { folder.path(relative) }

    init() throws {
        try folder.write(
            "share/mime/packages/uti-schema-test.xml",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
              <mime-type type="application/x-schema-test">
                <comment>Schema test document</comment>
                <sub-class-of type="text/plain"/>
                <glob pattern="*.sct"/>
                <magic priority="60"><match type="string" offset="0" value="SCHEMATEST"/></magic>
              </mime-type>
              <mime-type type="x-content/x-schema-test">
                <treemagic><treematch type="file" path="SCHEMA.MARK"/></treemagic>
              </mime-type>
            </mime-info>
            """)
        try folder.write(
            "share/applications/viewer.desktop",
            """
            [Desktop Entry]
            Type=Application
            Name=Viewer
            Exec=\(root)/show %F
            MimeType=text/plain;application/x-schema-test;x-scheme-handler/web+note;
            """)
        try folder.write(
            "share/applications/other.desktop",
            """
            [Desktop Entry]
            Type=Application
            Name=Other
            Exec=\(root)/show %u
            MimeType=text/plain;
            """)
        // Never run: the commands are only printed.
        try folder.write("show", "#!/bin/sh\nexit 0\n")
        chmod(path("show"), 0o755)
        try folder.write(
            "share/uti/apps/Notes.app/Contents/Info.plist", notesAppInfoPlist)
        try folder.write(
            "share/uti/types/versioned.plist",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
              <key>UTExportedTypeDeclarations</key><array><dict>
                <key>UTTypeIdentifier</key><string>com.example.versioned</string>
                <key>UTTypeDescription</key><string>Versioned sample</string>
                <key>UTTypeConformsTo</key><array><string>public.data</string></array>
                <key>UTTypeReferenceURL</key><string>https://example.com/versioned</string>
                <key>UTTypeVersion</key><string>2.1</string>
                <key>UTTypeTagSpecification</key><dict>
                  <key>public.filename-extension</key><array><string>vsn</string></array>
                  <key>public.mime-type</key><string>application/x-versioned</string>
                </dict>
              </dict></array>
            </dict></plist>
            """)
        try folder.write(
            "config/mimeapps.list",
            """
            [Default Applications]
            text/plain=gone.desktop;other.desktop
            image/*=viewer.desktop
            x-scheme-handler/web+note=viewer.desktop

            [Removed Associations]
            text/plain=viewer.desktop

            [X-UTI Default Editor]
            com.example.note=com.example.notes

            """)
        try folder.write("files/notes.txt", "hello\n")
        try folder.write("files/blob", "SCHEMATEST\n")
        try folder.write("files/a.sct", "SCHEMATEST\n")
        try folder.write("files/today.note", "milk\n")
        try folder.write("files/volume/SCHEMA.MARK", "")
        try folder.write("files/bad-xml.plist", "<plist><dict><key>x</dict>\n")
        try folder.write("files/bad-binary.plist", bytes: Array("bplist00".utf8) + [0xD1, 0x01, 0x02])
    }

    /// Runs `uti ARGUMENTS` in the fixture's environment, from its folder,
    /// and validates what it printed against `definition`.
    func check(
        _ arguments: [String], as definition: String, stdin: String? = nil, lines: Bool = false
    ) throws
        -> CheckedOutput
    {
        let run = try Run(arguments, stdin: stdin, environment: environment, directory: root)
        return CheckedOutput(
            command: "uti " + arguments.joined(separator: " "), definition: definition, run: run, lines: lines)
    }

    /// Runs `script` in `sh` in the fixture's folder, with `$0` the built
    /// `uti` and `$NAME` a name that is not UTF-8 (`bad\xffname.png`).
    func checkShell(_ script: String, as definition: String, lines: Bool = false) throws -> CheckedOutput {
        let run = try Run(
            ["-c", "NAME=$(printf 'bad\\377name.png'); " + script, Run.binary.path], environment: environment,
            executable: "/bin/sh", directory: root)
        return CheckedOutput(command: "sh -c '\(script)'", definition: definition, run: run, lines: lines)
    }
}

/// A program whose standard output is read line by line as it runs.
final class LineStream: @unchecked Sendable {
    let process = Process()
    private let lock = NSLock()
    private var out = ""
    private var err = ""
    private let readers = DispatchGroup()

    init(_ arguments: [String], environment: [String: String]) throws {
        process.executableURL = Run.binary
        process.arguments = arguments
        process.environment = Run.environment(environment)
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        try process.run()
        for (pipe, isError) in [(outPipe, false), (errPipe, true)] {
            let handle = pipe.fileHandleForReading
            readers.enter()
            Thread.detachNewThread { [self] in
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    let text = String(decoding: data, as: UTF8.self)
                    lock.withLock { if isError { err += text } else { out += text } }
                }
                readers.leave()
            }
        }
    }

    /// The complete lines printed so far.
    var lines: [String] {
        let text = lock.withLock { out }
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    var errors: String { lock.withLock { err } }

    /// Waits until a line satisfies `condition`; nil once the program has
    /// ended without one, or past `hangLimit` (it only stops a hung test).
    func waitForLine(where condition: (String) -> Bool) -> String? {
        let end = Date().addingTimeInterval(hangLimit)
        while Date() < end {
            if let line = lines.first(where: condition) { return line }
            if !process.isRunning {
                readers.wait()
                return lines.first(where: condition)
            }
            usleep(20_000)
        }
        return nil
    }

    /// Stops it with SIGTERM and waits for it and for all it printed.
    func stop() {
        if process.isRunning { process.terminate() }
        let end = Date().addingTimeInterval(hangLimit)
        while process.isRunning && Date() < end { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        _ = readers.wait(timeout: .now() + hangLimit)
    }
}

/// The outputs the tests validate, each made once per test process (a
/// static `let` is made on first use, once): the test of a command reads
/// its own, and the coverage test reads them all, whatever the order.
enum SchemaSamples {
    /// The checked outputs `body` makes in a new fixture; a run that could
    /// not be made at all is a problem of its own.
    static func make(_ name: String, _ body: (SchemaFixture) throws -> [CheckedOutput]) -> [CheckedOutput] {
        do { return try body(try SchemaFixture()) } catch {
            var failed = CheckedOutput(command: name, definition: "")
            failed.problems = ["\(name): \(error)"]
            return [failed]
        }
    }

    static let lookup = make("lookup") { tree in
        [
            try tree.check(
                [
                    "--json", "png", "dyn.age81e62", "nosuch.thing", "application/x-schema-test", "note",
                    "com.example.versioned",
                ], as: "lookup"),
            try tree.check(["lookup", "--json", "--tag-class", "extension", "sct"], as: "lookup"),
        ]
    }

    static let file = make("file") { tree in
        let files = ["notes.txt", "blob", "a.sct", "volume", "missing.md", "nothere", tree.longName]
        return [
            try tree.check(["file", "--json", "--tree"] + files.map { tree.path("files/" + $0) }, as: "file"),
            try tree.check(["file", "--json", "-"], as: "file", stdin: "SCHEMATEST\n"),
            try tree.checkShell(#"printf x > "files/$NAME"; "$0" file --json "files/$NAME""#, as: "file"),
        ]
    }

    static let openIn = make("openIn") { tree in
        [
            try tree.check(
                [
                    "open-in", "--json", tree.path("files/notes.txt"), tree.path("files/today.note"), "web+note:hello",
                    tree.path("files/missing.zzz"), tree.path("files/" + tree.longName), "--type", "png", "--type",
                    "x-scheme-handler/web+note",
                ], as: "openIn")
        ]
    }

    static let openInAppList = make("openInAppList") { tree in
        try ["viewer.desktop", "com.example.notes", "gone.desktop"].map { id in
            try tree.check(["open-in", "--app", id, "--list", "--json"], as: "openInAppList")
        }
    }

    static let tags = make("tags") { tree in
        [
            try tree.check(["tags", "png", "--json"], as: "tags"),
            try tree.check(["tags", "public.image", "--class", "extension", "--descendants", "--json"], as: "tags"),
            try tree.check(["tags", "vsn", "--class", "mime", "--preferred", "--json"], as: "tags"),
            try tree.check(["tags", "com.example.versioned", "--class", "ostype", "--json"], as: "tags"),
        ]
    }

    static let relations = make("relations") { tree in
        [
            try tree.check(["supertypes", "application/x-schema-test", "--json"], as: "supertypes"),
            try tree.check(["supertypes", "dyn.age81e62", "--json"], as: "supertypes"),
            try tree.check(["descendants", "public.image", "--json"], as: "descendants"),
            try tree.check(["descendants", "com.example.versioned", "--json"], as: "descendants"),
        ]
    }

    static let decode = make("decode") { tree in
        [
            try tree.check(["decode", "dyn.ah62d4rv4ge81y8x4", "dyn.age81e62", "--json"], as: "decode"),
            try tree.check(["decode", "dyn.bad", "dyn.ah62d4rv4ge81y8x4", "--json"], as: "decode"),
        ]
    }

    static let validate = make("validate") { tree in
        [
            try tree.check(
                [
                    "validate", "--json", tree.path("share/uti/types/versioned.plist"),
                    tree.path("files/bad-xml.plist"),
                    tree.path("files/bad-binary.plist"), fixture("bad-declarations.plist"),
                ], as: "validate"),
            try tree.check(["validate", "--json", tree.path("share/uti/types/versioned.plist")], as: "validate"),
        ]
    }

    static let batch = make("batch") { tree in
        let tooLong = String(repeating: "x", count: (1 << 20) + 16)
        return [
            try tree.check(
                ["batch", "--json"], as: "batch",
                stdin: "png\nnosuch.thing\n\n\(tooLong)\napplication/x-schema-test\n", lines: true),
            try tree.check(
                ["batch", "--file", "--json"], as: "batch", stdin: "a.sct\n\nnothere\n\(tree.longName)\nx.vsn\n",
                lines: true),
            try tree.checkShell(#"printf 'x\377.pdf\n' | "$0" batch --json"#, as: "batch", lines: true),
            try tree.checkShell(#"printf '%s\n' "$NAME" | "$0" batch --file --json"#, as: "batch", lines: true),
        ]
    }

    static let defaults = make("defaults") { tree in
        [
            try tree.check(["defaults", "--json"], as: "defaults"),
            try tree.check(["defaults", "--json", "--all"], as: "defaults"),
        ]
    }

    /// One Inbox taken through a dry run, a run that leaves everything for
    /// later, a real one, and the runs after it.
    static let inbox = make("inbox") { tree in
        try tree.folder.makeFolder("Documents/Inbox/folder")
        try tree.folder.write("Documents/Inbox/notes.txt", "hello\n")
        try tree.folder.write("Documents/notes.txt", "taken\n")
        let fifo = tree.path("Documents/Inbox/pipe")
        guard mkfifo(fifo, 0o644) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let documents = tree.path("Documents")
        var outputs = [
            try tree.check(["inbox", documents, "--json", "--dry-run", "--settle", "0"], as: "inbox"),
            try tree.check(
                ["inbox", documents, "--json", "--dry-run", "--settle", "0", "--route", "public.folder=F"], as: "inbox"),
            try tree.check(["inbox", documents, "--json", "--settle", "86400"], as: "inbox"),
            try tree.check(["inbox", documents, "--json", "--settle", "0"], as: "inbox"),
        ]
        unlink(fifo)
        outputs.append(try tree.check(["inbox", documents, "--json", "--settle", "0"], as: "inbox"))
        outputs.append(try tree.check(["inbox", documents, "--json", "--settle", "0"], as: "inbox"))
        return outputs
    }

    /// `inbox --watch --json` until the item put in the Inbox first has its line.
    static let inboxWatch = make("inboxWatch") { tree in
        try tree.folder.write("Documents/Inbox/arrived.txt", "hello\n")
        let stream = try LineStream(
            ["inbox", tree.path("Documents"), "--watch", "--json", "--settle", "0"], environment: tree.environment)
        let line = stream.waitForLine { $0.contains("arrived.txt") }
        stream.stop()
        var checked = CheckedOutput(
            command: "uti inbox --watch --json", definition: "inboxWatch",
            run: Run(lines: stream.lines, stderr: stream.errors), lines: true)
        if line == nil { checked.problems.append("no line for arrived.txt; standard error: \(stream.errors)") }
        return [checked]
    }

    /// `watch --json --initial` through an item listed, renamed and
    /// removed, and the watched folder removed.
    static let watch = make("watch") { tree in
        try tree.folder.write("box/first.txt", "hello\n")
        let box = tree.path("box")
        let stream = try LineStream(
            ["watch", "--json", "--initial", "--settle", "0.2", box], environment: tree.environment)
        var missing: [String] = []
        func expectLine(_ what: String, _ condition: (String) -> Bool) {
            if stream.waitForLine(where: condition) == nil { missing.append(what) }
        }
        expectLine("the initial item") { $0.contains(#""initial":true"#) }
        if rename(box + "/first.txt", box + "/second.md") != 0 { missing.append("rename: \(errno)") }
        expectLine("the rename") { $0.contains(#""event":"renamed""#) }
        unlink(box + "/second.md")
        expectLine("the removal") { $0.contains(#""event":"removed""#) }
        TemporaryFolder.removeTree(box)
        expectLine("the rescan") { $0.contains(#""event":"rescan""#) }
        stream.stop()
        var checked = CheckedOutput(
            command: "uti watch --json --initial", definition: "watch",
            run: Run(lines: stream.lines, stderr: stream.errors), lines: true)
        checked.problems += missing.map { "never saw \($0); standard error: \(stream.errors)" }
        return [checked]
    }

    static var all: [[CheckedOutput]] {
        [
            lookup, file, openIn, openInAppList, tags, relations, decode, validate, batch, defaults, inbox, inboxWatch,
            watch,
        ]
    }
}

extension Run {
    /// What a streamed program printed, as `CheckedOutput` reads a run.
    init(lines: [String], stderr: String) {
        status = 0
        stdout = lines.map { $0 + "\n" }.joined()
        self.stderr = stderr
    }
}

/// Every command with --json, run on the fixture and validated against
/// docs/json-schema.json; each test also checks that its inputs reached
/// the branches they are there for.
@Suite struct JSONSchemaTests {
    func expectValid(_ outputs: [CheckedOutput], sourceLocation: SourceLocation = #_sourceLocation) {
        for output in outputs {
            #expect(
                output.problems.isEmpty, "\(output.problems.joined(separator: "\n"))", sourceLocation: sourceLocation)
            #expect(!output.documents.isEmpty, "\(output.command): no document", sourceLocation: sourceLocation)
        }
    }

    @Test func lookup() throws {
        let outputs = SchemaSamples.lookup
        expectValid(outputs)
        // A query that names no type: exit 1, its error object in its place.
        #expect(outputs.map(\.status) == [1, 0])
        let items = outputs.flatMap(\.objects)
        #expect(items.contains { $0["error"] != nil })
        #expect(
            Set(items.compactMap { $0["queryKind"]?.stringValue }) == ["extension", "mime-type", "identifier", "tag"])
        #expect(items.contains { $0["type"]?["dynamic"]?.boolValue == true && $0["type"]?["origin"] == .null })
        let sources = Set(items.compactMap { $0["type"]?["origin"]?["source"]?.stringValue })
        #expect(sources == ["bundled", "shared-mime-info", "app bundle", "user"])
        #expect(items.contains { $0["type"]?["version"]?.stringValue == "2.1" })
    }

    @Test func file() throws {
        let outputs = SchemaSamples.file
        expectValid(outputs)
        let items = outputs.flatMap(\.objects)
        #expect(items.filter { $0["error"] != nil }.count == 2)
        let bases = Set(items.compactMap { $0["basis"]?.stringValue })
        #expect(bases.isSuperset(of: ["name", "content", "file-system"]))
        #expect(items.contains { $0["contentTypes"] == .array([.string("x-content/x-schema-test")]) })
        #expect(items.contains { $0["sniffPriority"] == .integer(60) })
        #expect(items.contains { $0["exists"] == .bool(false) })
        #expect(items.contains { $0["path"]?.stringValue == "/dev/stdin" })
        #expect(items.contains { $0["pathHex"] != nil })
    }

    @Test func openIn() throws {
        let outputs = SchemaSamples.openIn
        expectValid(outputs)
        let items = outputs.flatMap(\.objects)
        #expect(items.first?["error"] != nil)
        let keys = Set(items.flatMap(\.keys))
        #expect(keys.isSuperset(of: ["path", "url", "query"]))
        let candidates = items.flatMap { $0["candidates"]?.arrayValue ?? [] }
        #expect(Set(candidates.compactMap { $0["kind"]?.stringValue }) == ["desktop-entry", "bundle"])
        #expect(candidates.contains { $0["role"]?.stringValue == "Editor" })
        #expect(items.contains { !($0["excluded"]?.arrayValue ?? []).isEmpty })
        #expect(items.contains { $0["command"]?.arrayValue != nil } && items.contains { $0["command"] == .null })
        #expect(items.contains { $0["exists"] == .bool(false) })
    }

    @Test func openInAppList() throws {
        let outputs = SchemaSamples.openInAppList
        expectValid(outputs)
        let lists = outputs.flatMap(\.documents)
        #expect(lists.contains { $0["name"] == .null })
        #expect(lists.contains { !($0["claims"]?.arrayValue ?? []).isEmpty })
    }

    @Test func tags() throws {
        let outputs = SchemaSamples.tags
        expectValid(outputs)
        let documents = outputs.flatMap(\.documents)
        #expect(documents.contains { $0["includesDescendants"] == .bool(true) })
        #expect(documents.contains { $0["tags"]?["com.apple.ostype"] == .array([]) })
    }

    @Test func supertypesAndDescendants() throws {
        let outputs = SchemaSamples.relations
        expectValid(outputs)
        #expect(outputs.map(\.definition) == ["supertypes", "supertypes", "descendants", "descendants"])
    }

    @Test func decode() throws {
        let outputs = SchemaSamples.decode
        expectValid(outputs)
        let items = outputs.flatMap(\.objects)
        #expect(items.contains { !($0["conformsTo"]?.arrayValue ?? []).isEmpty })
        #expect(items.contains { $0["conformsTo"] == .array([]) })
        // A bad identifier has an error in its place; the others are still decoded.
        #expect(outputs.map(\.status) == [0, 2])
        #expect(outputs[1].objects.map { $0["error"] != nil } == [true, false])
    }

    @Test func validate() throws {
        let outputs = SchemaSamples.validate
        expectValid(outputs)
        #expect(outputs.map(\.status) == [1, 0])
        let diagnostics = outputs.flatMap { $0.documents.flatMap { $0["diagnostics"]?.arrayValue ?? [] } }
        #expect(diagnostics.contains { $0["line"] != nil } && diagnostics.contains { $0["offset"] != nil })
        #expect(outputs.last?.documents.first?["diagnostics"] == .array([]))
    }

    @Test func batch() throws {
        let outputs = SchemaSamples.batch
        expectValid(outputs)
        // One object a line, for every line read.
        #expect(outputs.map(\.documents.count) == [5, 5, 1, 1])
        let items = outputs.flatMap(\.objects)
        #expect(items.contains { $0.keys == ["error"] })
        #expect(items.contains { $0["queryKind"] != nil } && items.contains { $0["basis"] != nil })
        #expect(items.contains { $0["exists"] == .null })
        #expect(items.contains { $0["query"] != nil && $0["error"] != nil })
        #expect(items.contains { $0["path"] != nil && $0["error"] != nil })
        #expect(items.contains { $0["queryHex"] != nil } && items.contains { $0["pathHex"] != nil })
    }

    @Test func defaults() throws {
        let outputs = SchemaSamples.defaults
        expectValid(outputs)
        let settings = outputs.flatMap(\.objects)
        #expect(settings.contains { $0["candidates"] != nil } && settings.contains { $0["candidates"] == nil })
        #expect(
            settings.contains { $0["wildcard"] == .bool(true) }
                && settings.contains { $0["scheme"]?.stringValue != nil })
        #expect(settings.contains { $0["role"]?.stringValue == "Editor" })
        #expect(settings.contains { !($0["passed"]?.arrayValue ?? []).isEmpty })
    }

    @Test func inbox() throws {
        let outputs = SchemaSamples.inbox
        expectValid(outputs)
        let statuses = Set(
            outputs.flatMap { $0.documents.flatMap { $0["items"]?.arrayValue ?? [] } }.compactMap {
                $0["status"]?.stringValue
            })
        #expect(statuses == ["would-move", "waiting", "moved", "left-in-place"])
        let states = Set(outputs.flatMap(\.documents).compactMap { $0["summary"]?["inbox"]?.stringValue })
        #expect(states == ["kept", "removed", "absent"])
    }

    @Test func inboxWatch() throws {
        let outputs = SchemaSamples.inboxWatch
        expectValid(outputs)
        #expect(outputs.flatMap(\.documents).contains { $0["status"]?.stringValue == "moved" })
    }

    @Test func watch() throws {
        let outputs = SchemaSamples.watch
        expectValid(outputs)
        let events = Set(outputs.flatMap(\.documents).compactMap { $0["event"]?.stringValue })
        #expect(events.isSuperset(of: ["added", "renamed", "removed", "rescan"]))
    }

    /// The schema says something: every definition was matched by some
    /// output the tests above validate.
    @Test func everyDefinitionIsMatchedByAnOutput() throws {
        let schema = try SchemaFile.schema()
        let outputs = SchemaSamples.all.flatMap { $0 }
        var used = Set<String>()
        for output in outputs { used.formUnion(output.definitions) }
        #expect(schema.definitionNames.filter { !used.contains($0) } == [])
        let checkedAgainst = Set(outputs.map(\.definition))
        #expect(checkedAgainst.isSubset(of: Set(schema.definitionNames)))
    }
}
