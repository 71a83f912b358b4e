import Foundation
import TestSupport
import Testing

/// The machine's shared-mime-info, for the commands that type files by content.
private let systemData = ["XDG_DATA_DIRS": "/usr/share"]

/// Mistakes in a script's command line never read as success.
@Suite struct TypoTests {
    @Test(arguments: [
        (["confroms", "a.jpg", "public.image"], "conforms"),
        (["desendants", "public.image"], "descendants"),
        (["grpah", "public.image"], "graph"),
        (["tgas", "jpg"], "tags"),
    ])
    func aMistypedCommandIsAnError(arguments: [String], meant: String) throws {
        let run = try Run(arguments)
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("\"\(arguments[0])\" is not a command; did you mean \"\(meant)\"?"))
    }

    @Test func aWordNearACommandThatATypeClaimsIsALookup() throws {
        // "tag" is one edit from "tags", and mime.types gives it to text/prs.lines.tag.
        let folder = TemporaryFolder("uti-typo")
        let dir = folder.path
        try "text/prs.lines.tag tag\n".write(toFile: dir + "/mime.types", atomically: false, encoding: .utf8)
        let claimed = try Run(["tag", "-b"], environment: ["UTI_MIME_TYPES": dir + "/mime.types"])
        #expect(claimed.status == 0 && claimed.stdout == "org.freedesktop.mime.text.prs.lines.tag\n")
        let unclaimed = try Run("tag", "-b")
        #expect(unclaimed.status == 2 && unclaimed.stderr.contains("did you mean \"tags\"?"))
        // Far from every command: an ordinary dynamic lookup.
        #expect(try Run("sql", "-b").stdout == "dyn.ah62d4rv4ge81g6pq\n")
    }

    @Test func anUndeclaredDottedNameIsNotAnExtension() throws {
        let run = try Run("public.imgae")
        #expect(run.status == 1 && run.stdout.isEmpty)
        #expect(
            run.stderr.contains(
                "no type is declared with this identifier and none claims it as an extension (did you mean public.image?)"
            ))
        let file = try Run("report.pdf")
        #expect(file.status == 1 && file.stderr.contains("for a file name: uti file report.pdf"))
        // Asked for as an extension, it is one.
        let forced = try Run("--as-extension", "public.imgae", "-b")
        #expect(forced.status == 0 && forced.stdout.hasPrefix("dyn.a"))
        // A claimed extension the filter leaves out is its dynamic type, as before.
        let filtered = try Run(["--conforming-to", "public.image", "tar.gz", "-b"], environment: systemData)
        #expect(filtered.status == 0 && filtered.stdout.hasPrefix("dyn.a"))
        // A compound extension a type claims is still a lookup.
        #expect(try Run(["tar.gz", "-b"], environment: systemData).stdout == "org.gnu.gnu-zip-tar-archive\n")
    }

    @Test(arguments: [
        (["conforms", "jpg", "image"], "SUPERTYPE \"image\": names no declared type"),
        (["descendants", "image"], "TYPE \"image\": names no declared type"),
        (["graph", "image"], "TYPE \"image\": names no declared type"),
        (["tags", "image", "--descendants"], "TYPE \"image\": names no declared type"),
    ])
    func aTypeThatMustBeDeclaredIsRefusedWithASuggestion(arguments: [String], message: String) throws {
        let run = try Run(arguments)
        #expect(run.status == 2 && run.stdout.isEmpty)
        #expect(run.stderr.contains(message) && run.stderr.contains("did you mean public.image"))
    }

    @Test func dynamicTypesStillWorkWhereTheyMakeSense() throws {
        #expect(try Run("conforms", "sql", "public.data").status == 0)
        #expect(try Run("tags", "sql").stdout == "public.filename-extension: sql\n")
        #expect(try Run("supertypes", "sql").stdout == "public.data\npublic.item\n")
    }

    @Test(arguments: [
        ["tags", "jpg", "--class", "extention"],
        ["--tag-class", "extention", "jpg"],
        ["tags", "jpg", "--class", "com.example.no-such-class"],
    ])
    func anUnknownTagClassIsRefusedWithTheAcceptedOnes(arguments: [String]) throws {
        let run = try Run(arguments)
        #expect(run.status == 2 && run.stdout.isEmpty)
        #expect(run.stderr.contains("is not a tag class") && run.stderr.contains("use extension, mime, ostype"))
    }

    @Test func knownTagClassesAreAccepted() throws {
        #expect(try Run("tags", "jpg", "--class", "ostype").stdout == "JPEG\n")
        #expect(try Run("tags", "jpg", "--class", "public.mime-type", "--preferred").stdout == "image/jpeg\n")
    }

    @Test func anUnknownRoleIsRefused() throws {
        let run = try Run("open-in", "--type", "public.jpeg", "--role", "edit")
        #expect(run.status == 2 && run.stderr.contains("use any, viewer, editor or shell"))
    }

    @Test(arguments: ["/nonexistent-uti/pic.dat", "./nonexistent-uti/b", "a//b", "text/", "/text/plain"])
    func aSlashThatIsNotMIMESyntaxIsNeverADynamicMIMEType(query: String) throws {
        // Each is shaped like a path, and reported as one (exit 2).
        let lookup = try Run(query, "-b")
        // -b gives the query its line, empty.
        #expect(lookup.status == 2 && lookup.stdout == "\n" && lookup.stderr.contains("looks like a path"))
        let conforms = try Run("conforms", query, "public.data")
        #expect(conforms.status == 2)
    }
}

/// Linux media types answer a script's "is this an image?".
@Suite struct SystemTypesInAppleTreeTests {
    @Test func gimpImagesAreImages() throws {
        #expect(try Run(["conforms", "xcf", "public.image"], environment: systemData).status == 0)
        // A name, not a file.
        #expect(try Run(["conforms", "x.xcf", "public.image"], environment: systemData).status == 2)
        let graph = try Run(["graph", "public.image"], environment: systemData)
        #expect(graph.stdout.contains("\"org.freedesktop.mime.image.x-xcf\" -> \"public.image\";"))
        // Apple's answers stay: m4a is Apple's M4A, though shared-mime-info gives it to audio/mp4.
        #expect(try Run(["m4a", "-b"], environment: systemData).stdout == "com.apple.m4a-audio\n")
        let tags = try Run(["tags", "public.mpeg-4-audio", "--class", "extension"], environment: systemData)
        #expect(tags.lines.contains("m4a"))
    }
}

/// The cookbook's identifiers with no conformance, as Apple's C API gives
/// them for a NULL conforming type (Swift: `conformingTo: nil`).
@Suite struct UnfilteredLookupTests {
    @Test func theCookbookVectors() throws {
        let run = try Run("--unfiltered", "xlv", "xm", "zoo", "-b")
        #expect(run.status == 0)
        #expect(run.lines == ["dyn.age81u5d0", "dyn.age81u5k", "dyn.age81y55t"])
        let decoded = try Run("decode", "dyn.age81u5d0")
        #expect(decoded.stdout == "dyn.age81u5d0\n  public.filename-extension: xlv\n")
        // The default filter (public.data) gives the form with conformance.
        #expect(try Run("xlv", "-b").stdout == "dyn.ah62d4rv4ge81u5d0\n")
        // A claimed tag is its type either way.
        #expect(try Run("--unfiltered", "jpg", "-b").stdout == "public.jpeg\n")
        #expect(try Run("--unfiltered", "--conforming-to", "public.data", "jpg").status == 2)
    }
}

/// "Is this file an image?" in a script.
@Suite struct FileConformanceTests {
    private func tree(_ body: (String) throws -> Void) throws {
        let folder = TemporaryFolder("uti-conforms")
        let dir = folder.path
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        FileManager.default.createFile(atPath: dir + "/pic.dat", contents: Data(png))
        FileManager.default.createFile(atPath: dir + "/notes.txt", contents: Data("hello\n".utf8))
        FileManager.default.createFile(atPath: dir + "/empty.jpg", contents: Data())
        FileManager.default.createFile(atPath: dir + "/blank", contents: Data())
        try body(dir)
    }

    @Test func conformsTypesAFileByNameAndContent() throws {
        try tree { dir in
            #expect(try Run(["conforms", dir + "/pic.dat", "public.image"], environment: systemData).status == 0)
            #expect(
                try Run(["conforms", "--file", dir + "/notes.txt", "public.image"], environment: systemData).status == 1
            )
            let verbose = try Run(
                ["conforms", "-v", "--file", dir + "/notes.txt", "public.text"], environment: systemData)
            #expect(verbose.status == 0 && verbose.stdout == "public.plain-text conforms to public.text\n")
            // A relative dotted name that exists is the file.
            let relative = try Run(["conforms", "pic.dat", "public.image"], environment: systemData, directory: dir)
            #expect(relative.status == 0)
            // A missing file is an error, never a yes or a no.
            let missing = try Run(
                ["conforms", "--file", dir + "/missing.jpg", "public.image"], environment: systemData)
            #expect(missing.status == 2 && missing.stderr.contains("No such file"))
            #expect(try Run(["conforms", dir + "/missing.dat", "public.image"], environment: systemData).status == 2)
            // A word that is a type as written stays the type, even if a file has its name.
            FileManager.default.createFile(atPath: dir + "/jpg", contents: Data("text\n".utf8))
            #expect(try Run(["conforms", "jpg", "public.image"], environment: systemData, directory: dir).status == 0)
        }
    }

    @Test func emptyFilesAreTypedByNameWhenItDecides() throws {
        try tree { dir in
            let run = try Run(["file", dir + "/empty.jpg", dir + "/blank"], environment: systemData)
            #expect(
                run.lines == [
                    "\(dir)/empty.jpg: public.jpeg (image/jpeg, JPEG image) by name",
                    "\(dir)/blank: org.freedesktop.mime.application.x-zerosize (application/x-zerosize, empty document) by file-system",
                ])
            #expect(try Run("help", "file").stdout.contains("application/x-zerosize"))
        }
    }

    @Test func filterPrintsTheConformingPaths() throws {
        try tree { dir in
            let paths = ["pic.dat", "notes.txt", "empty.jpg", "blank"].map { dir + "/" + $0 }
            let run = try Run(
                ["filter", "public.image"], stdin: paths.joined(separator: "\n") + "\n", environment: systemData)
            #expect(run.status == 0 && run.lines == [paths[0], paths[2]])
            let nul = try Run(
                ["filter", "-0", "public.text"], stdin: paths.joined(separator: "\0") + "\0", environment: systemData)
            #expect(nul.status == 0 && nul.stdout == paths[1] + "\0")
            let inverted = try Run(["filter", "--invert", "public.data"] + paths, environment: systemData)
            #expect(inverted.status == 1 && inverted.stdout.isEmpty)
            // A missing path is named and makes the status 2; the others are still answered.
            let missing = try Run(["filter", "public.image", dir + "/gone.png", paths[0]], environment: systemData)
            #expect(missing.status == 2 && missing.stdout == paths[0] + "\n" && missing.stderr.contains("gone.png"))
            // An empty line is an error, not a path (a name that is not UTF-8 is a path: ByteNameTests).
            let bad = try Run(["filter", "public.image"], stdin: "\n" + paths[0] + "\n", environment: systemData)
            #expect(bad.status == 2 && bad.stdout == paths[0] + "\n" && bad.stderr.contains("line 1: empty path"))
            #expect(try Run(["filter", "image"], stdin: paths[0] + "\n").status == 2)
        }
    }
}

/// Names and arguments never reach the terminal with their control characters.
@Suite struct TerminalEscapingTests {
    @Test func fileLookupsDecodeAndMessagesEscapeControls() throws {
        let folder = TemporaryFolder("uti-escape")
        let dir = folder.path
        let name = dir + "/evil\u{1B}]0;pwned\u{07}.txt"
        FileManager.default.createFile(atPath: name, contents: Data("text\n".utf8))
        let file = try Run("file", name, dir + "/back\\slash\nline.jpg")
        #expect(file.stdout.contains("evil\\x1b]0;pwned\\x07.txt: "))
        #expect(file.stdout.contains("back\\\\slash\\nline.jpg: public.jpeg"))
        let lookup = try Run("x\u{1B}[31m")
        #expect(lookup.stdout.contains("query:            extension \"x\\x1b[31m\""))
        let message = try Run("conforms", "jpg", "public.\u{1B}[2J")
        #expect(message.status == 2 && message.stderr.contains("public.\\x1b[2J"))
        let dyn = try Run("--unfiltered", "--as-extension", "-b", "a\u{1B}b").stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(try Run("decode", dyn).stdout == "\(dyn)\n  public.filename-extension: a\\x1bb\n")
        #expect(try Run("tags", dyn).stdout == "public.filename-extension: a\\x1bb\n")
        for run in [file, lookup, message] {
            #expect(!(run.stdout + run.stderr).unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        }
    }
}

/// Inputs built to make the work explode, through the command line, with
/// the expansion limit and a memory bound.
@Suite struct AmplificationBoundsTests {
    @Test func aMillionReferencesAndATwentyThousandTypeChainStayBounded() throws {
        let folder = TemporaryFolder("uti-amplify")
        let dir = folder.path
        try FileManager.default.createDirectory(atPath: dir + "/uti/types", withIntermediateDirectories: true)
        // A 1 MB binary plist whose array names one 100 KB string a million times.
        var plist = Array("bplist00".utf8)
        plist +=
            [0xAF, 0x12] + withUnsafeBytes(of: UInt32(1_000_000).bigEndian, Array.init)
            + [UInt8](repeating: 1, count: 1_000_000)
        let stringAt = plist.count
        plist +=
            [0x5F, 0x12] + withUnsafeBytes(of: UInt32(100_000).bigEndian, Array.init)
            + [UInt8](repeating: 0x78, count: 100_000)
        let tableAt = plist.count
        plist +=
            withUnsafeBytes(of: UInt32(8).bigEndian, Array.init)
            + withUnsafeBytes(of: UInt32(stringAt).bigEndian, Array.init)
        plist += [0, 0, 0, 0, 0, 0, 4, 1] + withUnsafeBytes(of: UInt64(2).bigEndian, Array.init)
        plist +=
            withUnsafeBytes(of: UInt64(0).bigEndian, Array.init)
            + withUnsafeBytes(of: UInt64(tableAt).bigEndian, Array.init)
        FileManager.default.createFile(atPath: dir + "/uti/types/amplified.plist", contents: Data(plist))
        // 20,000 declarations, each conforming to the one before.
        var xml =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict><key>UTExportedTypeDeclarations</key><array>"
        for i in 0..<20_000 {
            let parent = i == 0 ? "public.data" : "com.example.chain.t\(i - 1)"
            xml +=
                "<dict><key>UTTypeIdentifier</key><string>com.example.chain.t\(i)</string><key>UTTypeConformsTo</key><string>\(parent)</string><key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><string>ch\(i)</string></dict></dict>"
        }
        xml += "</array></dict></plist>\n"
        try xml.write(toFile: dir + "/chain.plist", atomically: false, encoding: .utf8)

        // What bounds the work is proven by what the runs say and hold: the
        // expansion stops at its limit (validate names it), and no run held
        // 512 MB; none of it is judged by the time taken.
        // Found in a uti/types folder: skipped with its error; the lookup answers.
        let skipped = try Run(["jpg", "-b"], environment: ["XDG_DATA_HOME": dir, "UTI_CACHE_DIR": dir + "/cache"])
        let validate = try Run("validate", dir + "/uti/types/amplified.plist")
        let conforms = try Run(
            ["conforms", "--declarations", dir + "/chain.plist", "ch19999", "com.example.chain.t0"],
            environment: ["UTI_CACHE_DIR": dir + "/cache"])
        #expect(validate.status == 1 && validate.stdout.contains("expand past 67108864 bytes"))
        #expect(skipped.stdout == "public.jpeg\n" && skipped.stderr.contains("the file is skipped"))
        #expect(conforms.status == 0, "\(conforms.stderr)")
        // No child of this test process (these among them) held 512 MB.
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        #expect(usage.ru_maxrss < 512 * 1024, "a child reached \(usage.ru_maxrss) KB")
    }
}

/// A dotted query is answered in memory in proportion to its length: a
/// query of 60,000 dots (120 KB, near the kernel's limit for one argument)
/// once took 3.5 GB. Run under a 512 MB address-space limit (`ulimit -v`,
/// which binds that process alone, unlike its peak size as a child, which
/// counts the size of the test process it was spawned from), it answers.
@Suite struct DottedQueryTests {
    @Test func aQueryOfManyDotsAnswersWithinAFixedAddressSpace() throws {
        let query = String(repeating: "a.", count: 60_000) + "b"
        let run = try Run(
            ["-c", "ulimit -v 524288 && exec \"$0\" -b \"$1\"", Run.binary.path, query], executable: "/bin/sh")
        #expect(run.status == 1, "status \(run.status)")
        #expect(run.stderr.contains("no type is declared with this identifier"))
    }
}

/// A query with a `/` is a MIME type only when RFC 9110's token rule says it
/// is one, at every door that takes one.
@Suite struct MIMEQuerySyntaxTests {
    @Test(arguments: ["</>", "(/)", "text/html(", "x/@", "x/é", "x/\n", "{/}", "x/{", "}/x"])
    func refusedEverywhere(query: String) throws {
        let lookup = try Run([query, "-b"])
        #expect(lookup.status == 1 && lookup.stdout == "\n" && lookup.stderr.contains("is not a MIME type"))
        #expect(!lookup.stderr.dropLast().contains("\n"), "the query is escaped: \(lookup.stderr)")
        let forced = try Run(["--as-mime", query, "-b"])
        #expect(forced.status == 1 && forced.stderr.contains("is not a MIME type"))
        let tagClass = try Run(["--tag-class", "mime", query, "-b"])
        #expect(tagClass.status == 1 && tagClass.stderr.contains("is not a MIME type"))
        let conforms = try Run(["conforms", query, "public.data"])
        #expect(conforms.status == 2 && conforms.stderr.contains("is not a MIME type"))
        let tags = try Run(["tags", query])
        #expect(tags.status == 2 && tags.stderr.contains("is not a MIME type"), "\(tags.stderr)")
        let batch = try Run(["batch"], stdin: query.replacingOccurrences(of: "\n", with: "") + "\ntext/html\n")
        if !query.contains("\n") {
            #expect(
                batch.status == 1 && batch.lines == ["", "public.html"] && batch.stderr.contains("is not a MIME type"),
                "\(batch.stdout) \(batch.stderr)")
        }
    }

    /// Shaped like a path (a trailing `/`, more than one): reported as one
    /// unless read as a MIME type on purpose.
    @Test(arguments: ["x/", "a/b/c"])
    func pathShapedIsAPath(query: String) throws {
        let lookup = try Run([query, "-b"])
        // -b gives the query its line, empty.
        #expect(lookup.status == 2 && lookup.stdout == "\n" && lookup.stderr.contains("looks like a path"))
        let forced = try Run(["--as-mime", query, "-b"])
        #expect(forced.status == 1 && forced.stderr.contains("is not a MIME type"))
        let tagClass = try Run(["--tag-class", "mime", query, "-b"])
        #expect(tagClass.status == 1 && tagClass.stderr.contains("is not a MIME type"))
        let conforms = try Run(["conforms", query, "public.data"])
        #expect(conforms.status == 2 && conforms.stderr.contains("looks like a path"))
        let tags = try Run(["tags", query])
        #expect(tags.status == 2 && tags.stderr.contains("looks like a path"), "\(tags.stderr)")
        let batch = try Run(["batch"], stdin: query + "\ntext/html\n")
        #expect(batch.status == 1 && batch.lines == ["", "public.html"] && batch.stderr.contains("looks like a path"))
    }

    @Test func parametersStayIgnored() throws {
        #expect(try Run(["text/html; charset=utf-8", "-b"]).stdout == "public.html\n")
        #expect(try Run(["text/html;q=(1)", "-b"]).stdout == "public.html\n")
    }
}

/// A record of standard input past 1 MiB is an error for that record, and
/// the records after it are still answered.
@Suite struct LongRecordTests {
    @Test func filterAndBatchSkipARecordPastTheLimit() throws {
        let long = String(repeating: "a", count: (1 << 20) + 1)
        let filter = try Run(["filter", "-0", "public.folder"], stdin: long + "\0/\0", environment: systemData)
        #expect(filter.status == 2 && filter.stdout == "/\0")
        #expect(filter.stderr == "uti: standard input record 1: 1048577 bytes, longer than 1048576; not typed\n")
        let batch = try Run(["batch"], stdin: long + "\njpg\n", environment: systemData)
        #expect(batch.status == 1 && batch.lines == ["", "public.jpeg"])
        #expect(batch.stderr.contains("line 1: longer than 1048576 bytes"))
    }
}

/// What `uti` prints is what the compiled registry gave intact.
@Suite struct IntactAnswerTests {
    /// The cache file is mapped under a read lease. A program that asks to
    /// write it while answers are being made (here while `uti` is stopped
    /// midway) is kept waiting, and `uti` prints none of them: an error and
    /// exit status 2 instead.
    @Test func noAnswerIsPrintedAfterTheCacheFileIsAskedForWriting() throws {
        let folder = TemporaryFolder("uti-intact")
        let cache = folder.path + "/cache"
        let photo = folder.path + "/x.jpg"
        FileManager.default.createFile(atPath: photo, contents: Data([0xFF, 0xD8, 0xFF, 0xE0]))
        let warm = try Run(["-b", "jpg"], environment: ["UTI_CACHE_DIR": cache])
        #expect(warm.stdout == "public.jpeg\n")
        let image = try #require(
            try FileManager.default.contentsOfDirectory(atPath: cache).first { $0.hasSuffix(".img") })
        let process = Process()
        process.executableURL = Run.binary
        process.arguments = ["file", "-b"] + Array(repeating: photo, count: 20_000)
        process.environment = Run.environment(["UTI_CACHE_DIR": cache])
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Stopped once it holds the cache file (mapped, under its lease): the file open, and the lease
        // in /proc/locks (it is taken just after the open, so the open alone is not enough).
        var holding = false
        // The deadline only stops a hung test; the loop ends when uti holds the file, or has ended.
        let deadline = Date().addingTimeInterval(hangLimit)
        let pid = process.processIdentifier
        while !holding && process.isRunning && Date() < deadline {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            let open = fds.contains { fd in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"))?
                    .hasSuffix(image) == true
            }
            let locks = (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? ""
            holding = open && locks.split(separator: "\n").contains { $0.contains("LEASE") && $0.contains(" \(pid) ") }
        }
        kill(process.processIdentifier, SIGSTOP)
        #expect(holding)
        let writer = open(cache + "/" + image, O_WRONLY | O_NONBLOCK)
        #expect(writer < 0 && errno == EWOULDBLOCK, "the open for writing was not held back")
        if writer >= 0 { close(writer) }
        kill(process.processIdentifier, SIGCONT)
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2)
        #expect(printed.isEmpty, "\(printed.count) bytes printed")
        #expect(message.contains("answers from then on were not printed"), "\(message)")
        // Once uti is done, the file can be opened for writing again.
        let later = open(cache + "/" + image, O_RDONLY | O_NONBLOCK)
        #expect(later >= 0)
        close(later)
    }
}
