import Foundation
import TestSupport
import Testing

private let systemData = ["XDG_DATA_DIRS": "/usr/share"]

/// `uti file` as `file(1)` users expect it: `-` for standard input, `-L`,
/// `-i` with a charset, and paths where nothing is.
@Suite struct FileCommandConventionTests {
    private func tree(_ body: (String) throws -> Void) throws {
        let folder = TemporaryFolder("uti-file")
        let dir = folder.path
        let files: [String: [UInt8]] = [
            "ascii.txt": Array("hello\n".utf8),
            "utf8.txt": Array("h\u{e9}llo\n".utf8),
            "latin1.txt": [0x68, 0xE9, 0x6C, 0x6C, 0x6F, 0x0A],
            "utf16.txt": [0xFF, 0xFE, 0x68, 0x00, 0x69, 0x00],
            "pic.dat": [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52],
            "blank": [],
        ]
        for (name, bytes) in files {
            _ = FileManager.default.createFile(atPath: dir + "/" + name, contents: Data(bytes))
        }
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.dat", withDestinationPath: "pic.dat")
        try body(dir)
    }

    @Test func dashReadsStandardInput() throws {
        let run = try Run(["file", "-"], stdin: "#!/bin/sh\necho hi\n", environment: systemData)
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("/dev/stdin: public.shell-script (application/x-shellscript"))
        #expect(run.stdout.hasSuffix(" by content\n"))
        let empty = try Run(["file", "-", "--mime"], stdin: "", environment: systemData)
        #expect(empty.stdout == "application/x-zerosize\n")
        let twice = try Run(["file", "-", "-"], stdin: "", environment: systemData)
        #expect(twice.status == 2 && twice.stderr.contains("standard input"))
        // By name alone, standard input has nothing to go by: refused, never read.
        for arguments in [["file", "--no-sniff", "-"], ["file", "-", "--no-sniff", "-b"]] {
            let byName = try Run(arguments, stdin: "#!/bin/sh\n", environment: systemData)
            #expect(byName.status == 2 && byName.stdout.isEmpty, "\(arguments)")
            #expect(byName.stderr.contains("--no-sniff reads nothing"), "\(byName.stderr)")
        }
    }

    @Test func dashIPrintsTheCharsetAsFileDoes() throws {
        try tree { dir in
            let run = try Run(
                ["file", "-i", "ascii.txt", "utf8.txt", "latin1.txt", "utf16.txt", "pic.dat", "blank", "."],
                environment: systemData, directory: dir)
            #expect(run.status == 0)
            #expect(
                run.lines == [
                    "ascii.txt: text/plain; charset=us-ascii",
                    "utf8.txt: text/plain; charset=utf-8",
                    "latin1.txt: text/plain; charset=iso-8859-1",
                    "utf16.txt: text/plain; charset=utf-16le",
                    "pic.dat: image/png; charset=binary",
                    "blank: application/x-zerosize; charset=binary",
                    ".: inode/directory; charset=binary",
                ])
            let stdin = try Run(["file", "-i", "-"], stdin: "caf\u{e9}\n", environment: systemData)
            #expect(stdin.stdout == "/dev/stdin: text/plain; charset=utf-8\n")
            #expect(try Run(["file", "-i", "--json", "x"]).status == 2)
        }
    }

    @Test func dashLFollowsLinks() throws {
        try tree { dir in
            let plain = try Run(["file", "-b", "link.dat"], environment: systemData, directory: dir)
            #expect(plain.stdout == "public.symlink\n")
            let followed = try Run(["file", "-b", "-L", "link.dat"], environment: systemData, directory: dir)
            #expect(followed.stdout == "public.png\n")
        }
    }

    @Test func aPathWhereNothingIsSaysSo() throws {
        try tree { dir in
            let named = try Run(["file", "report.pdf"], environment: systemData, directory: dir)
            #expect(named.status == 1)
            #expect(named.stdout == "report.pdf: com.adobe.pdf (application/pdf, PDF document) by name; no such file\n")
            let json = try Run(["file", "--json", "report.pdf", "ascii.txt"], environment: systemData, directory: dir)
            let objects = try #require(try json.json() as? [[String: Any]])
            #expect(objects.map { $0["exists"] as? Bool } == [false, true])
            // A name that gives nothing, where nothing is, is not an answer.
            let nothing = try Run(["file", "no-such-thing", "ascii.txt"], environment: systemData, directory: dir)
            #expect(nothing.status == 1)
            #expect(nothing.stderr == "uti: no-such-thing: no such file, and the name gives no type\n")
            #expect(nothing.stdout == "ascii.txt: public.plain-text (text/plain, plain text document) by name\n")
            // The forms that leave out the path keep one line per path: an empty one for a path not typed.
            for (form, line) in [("-b", "public.plain-text"), ("--mime", "text/plain")] {
                let short = try Run(
                    ["file", form, "no-such-thing", "ascii.txt"], environment: systemData, directory: dir)
                #expect(short.status == 1)
                #expect(short.stdout == "\n\(line)\n")
            }
        }
    }
}

/// A path where nothing is never gets a confident answer: every form says
/// so, and the status is 1 unless --no-sniff asked about names alone.
@Suite struct MissingPathTests {
    @Test(arguments: [
        (["--mime"], "application/pdf"), (["-b"], "com.adobe.pdf"), (["-i"], "/nonexistent/x.pdf: application/pdf"),
    ])
    func shortFormsSayItOnStandardError(form: [String], printed: String) throws {
        let run = try Run(["file"] + form + ["/nonexistent/x.pdf"], environment: systemData)
        #expect(run.status == 1)
        #expect(run.stdout == printed + "\n")
        #expect(run.stderr == "uti: /nonexistent/x.pdf: no such file; typed by its name\n")
        let names = try Run(["file", "--no-sniff"] + form + ["/nonexistent/x.pdf"], environment: systemData)
        #expect(names.status == 0 && names.stdout == printed + "\n")
        #expect(names.stderr.contains("no such file"))
    }

    @Test func longFormsAndOpenIn() throws {
        let summary = try Run(["file", "/nonexistent/x.pdf"], environment: systemData)
        #expect(summary.status == 1 && summary.stdout.hasSuffix("; no such file\n"))
        let json = try Run(["file", "--json", "/nonexistent/x.pdf"], environment: systemData)
        #expect(json.status == 1 && json.stdout.contains("\"exists\": false"))
        #expect(try Run(["file", "--no-sniff", "/nonexistent/x.pdf"], environment: systemData).status == 0)
        // An existing file beside a missing one is still answered.
        let both = try Run(["file", "-b", "/nonexistent/x.pdf", "/"], environment: systemData)
        #expect(both.status == 1 && both.lines == ["com.adobe.pdf", "public.folder"])
        // The machine's MIME database without its applications: which are installed decides nothing here.
        let systemData = ["XDG_DATA_DIRS": TestWorld.systemMIMEOnly]
        let open = try Run(["open-in", "/nonexistent/notes.txt"], environment: systemData)
        #expect(open.status == 1 && open.lines.first?.hasSuffix("; no such file") == true, "\(open.stdout)")
        let openJSON = try Run(["open-in", "--json", "/nonexistent/notes.txt"], environment: systemData)
        #expect(openJSON.status == 1 && openJSON.stdout.contains("\"exists\": false"))
        // With --no-sniff, a missing file answers as an existing one of that name would.
        let folder = TemporaryFolder("uti-open-in")
        try "words\n".write(toFile: folder.path + "/notes.txt", atomically: false, encoding: .utf8)
        let existing = try Run(["open-in", "--no-sniff", folder.path + "/notes.txt"], environment: systemData)
        let named = try Run(["open-in", "--no-sniff", "/nonexistent/notes.txt"], environment: systemData)
        #expect(named.status == existing.status && named.lines.first?.hasSuffix("; no such file") == true)
    }
}

/// A name-only answer the content could confirm and does not is no answer;
/// the content's (or plain data's) stands.
@Suite struct ContentConfirmsTheNameTests {
    /// A MacBinary II header for a 10-byte data fork, with its CRC.
    static func macBinary() -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 128)
        header[1] = 5
        header.replaceSubrange(2..<7, with: Array("hello".utf8))
        header.replaceSubrange(65..<73, with: Array("TEXTttxt".utf8))
        header[86] = 10
        header[122] = 129
        header[123] = 129
        var crc: UInt16 = 0
        for byte in header[0..<124] {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        }
        header[124] = UInt8(crc >> 8)
        header[125] = UInt8(crc & 0xFF)
        return header + Array("0123456789".utf8) + [UInt8](repeating: 0, count: 118)
    }

    @Test func firmwareIsNoMacBinaryArchive() throws {
        let folder = TemporaryFolder("uti-confirm")
        // 4,096 bytes no format claims, without NUL, the same on every run: from a fixed seed, since
        // random ones matched a magic rule now and then (a first byte "%" is text/x-matlab's, one run in
        // 255). These begin 55 ce bf 5f; with /usr/share/mime, `file`, `gio info` and `uti file` all call
        // them data.
        var generator = SplitMix64(seed: 0xF1A3_0000_0000_0001)
        var firmware: [UInt8] = []
        while firmware.count < 4096 {
            let word = generator.next()
            for shift in stride(from: 0, to: 64, by: 8) where firmware.count < 4096 {
                let byte = UInt8(truncatingIfNeeded: word >> UInt64(shift))
                if byte != 0 { firmware.append(byte) }
            }
        }
        #expect(firmware.prefix(4) == [0x55, 0xCE, 0xBF, 0x5F])
        try Data(firmware).write(to: URL(fileURLWithPath: folder.path + "/firmware.bin"))
        try Data(Self.macBinary()).write(to: URL(fileURLWithPath: folder.path + "/real.bin"))
        let run = try Run(["file", "firmware.bin", "real.bin"], environment: systemData, directory: folder.path)
        #expect(
            run.lines == [
                "firmware.bin: public.data (application/octet-stream, data) by unknown, uncertain",
                "real.bin: com.apple.macbinary-archive (application/x-macbinary, MacBinary archive) by name+content",
            ], "\(run.stdout)")
        let filter = try Run(
            ["filter", "public.archive", "firmware.bin", "real.bin"], environment: systemData,
            directory: folder.path)
        #expect(filter.stdout == "real.bin\n")
        // Without system data the built-in signatures read the content: the same answer.
        #expect(
            try Run(["file", "--no-system", "-b", "firmware.bin", "real.bin"], directory: folder.path).stdout
                == "public.data\ncom.apple.macbinary-archive\n")
    }

    @Test func identifierAndMIMETypeNameOneType() throws {
        let folder = TemporaryFolder("uti-cache-name")
        try "chemical/x-cache cache\n".write(toFile: folder.path + "/mime.types", atomically: false, encoding: .utf8)
        try Data([0, 1, 2, 3, 0xFE, 0xFF, 0, 7]).write(to: URL(fileURLWithPath: folder.path + "/ld.so.cache"))
        let environment = ["XDG_DATA_DIRS": "/usr/share", "UTI_MIME_TYPES": folder.path + "/mime.types"]
        #expect(try Run(["cache", "-b"], environment: environment).stdout == "org.freedesktop.mime.chemical.x-cache\n")
        let run = try Run(["file", folder.path + "/ld.so.cache"], environment: environment)
        #expect(
            run.stdout.hasSuffix(": public.data (application/octet-stream, data) by unknown, uncertain\n"),
            "\(run.stdout)")
    }
}

/// Without shared-mime-info (the tests' environment names no data folder),
/// `uti file` reads the content against the built-in signatures.
@Suite struct BuiltInSignatureCommandTests {
    @Test func theContentDecidesAgainstAMisleadingName() throws {
        let folder = TemporaryFolder("uti-builtin")
        try folder.write(
            "fake.pdf", bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 24))
        try folder.write("real.pdf", "%PDF-1.4\n")
        try folder.write("notes", "plain words\n")
        let run = try Run(["file", folder.path("fake.pdf"), folder.path("real.pdf"), folder.path("notes")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.lines == [
                "\(folder.path("fake.pdf")): public.png (image/png, PNG image) by content",
                "\(folder.path("real.pdf")): com.adobe.pdf (application/pdf, PDF document) by name+content",
                "\(folder.path("notes")): public.plain-text (text/plain, plain text document) by content, uncertain",
            ])
        // --no-sniff: names alone.
        let names = try Run(["file", "--no-sniff", "-b", folder.path("fake.pdf")])
        #expect(names.stdout == "com.adobe.pdf\n")
    }
}
