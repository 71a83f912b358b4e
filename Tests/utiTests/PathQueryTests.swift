import Foundation
import TestSupport
import Testing

/// A path given where a type is expected: told apart from a MIME type, an
/// error (exit 2) rather than a "no", and answered with a command that
/// asks about the file, quoted so that a shell reads the same path back.
@Suite struct PathQueryTests {
    private static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46, 0x49, 0x46, 0, 1]

    /// A folder holding `rel.jpg`, `dir/file.jpg`, `My Photo.JPG`, `it's.jpg`
    /// and `jpeg-file`, all JPEG data, and a `sub` folder to run from.
    private func tree(_ body: (String) throws -> Void) throws {
        let folder = TemporaryFolder("uti-pathq")
        let dir = folder.path
        try FileManager.default.createDirectory(atPath: dir + "/dir", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: true)
        for name in ["rel.jpg", "dir/file.jpg", "My Photo.JPG", "it's.jpg", "jpeg-file", "sub/up.jpg"] {
            _ = FileManager.default.createFile(atPath: dir + "/" + name, contents: Data(Self.jpeg))
        }
        try body(dir)
    }

    /// The command a message suggests, from `start` (`uti file`) to the end
    /// of the line or an unquoted `;` or `)`, as the words a shell reads.
    private func suggestedWords(_ message: String, _ start: String) throws -> [String]? {
        guard let range = message.range(of: start) else { return nil }
        var command = ""
        var quoted = false
        for c in message[range.lowerBound...] {
            if c == "'" { quoted.toggle() }
            if !quoted && (c == ";" || c == ")" || c == "\n") { break }
            command.append(c)
        }
        let words = try Run(["-c", "printf '%s\\n' " + command.dropFirst("uti ".count)], executable: "/bin/sh")
        #expect(words.status == 0, "\(command): \(words.stderr)")
        return words.lines
    }

    @Test(arguments: ["/nonexistent-uti-test/missing.jpg", "./rel.jpg", "../up.jpg", "~/x.jpg", "dir/sub/file.jpg"])
    func missingPathIsAnError(query: String) throws {
        let empty = TemporaryFolder("uti-pathq-empty")
        let lookup = try Run([query], directory: empty.path)
        #expect(lookup.status == 2 && lookup.stdout.isEmpty, "\(lookup.stderr)")
        #expect(lookup.stderr.contains("looks like a path, and no file is there"), "\(lookup.stderr)")
        #expect(!lookup.stderr.contains("MIME type (TYPE/SUBTYPE)"))
        #expect(try suggestedWords(lookup.stderr, "uti file") == ["file", query])
        let conforms = try Run(["conforms", query, "public.image"], directory: empty.path)
        #expect(conforms.status == 2 && conforms.stderr.contains("looks like a path"), "\(conforms.stderr)")
        #expect(
            try suggestedWords(conforms.stderr, "uti conforms --file") == ["conforms", "--file", query, "public.image"])
        let tags = try Run(["tags", query], directory: empty.path)
        #expect(tags.status == 2 && tags.stderr.contains("looks like a path"), "\(tags.stderr)")
        let equal = try Run(["equal", query, "jpg"], directory: empty.path)
        #expect(equal.status == 2 && equal.stderr.contains("looks like a path"), "\(equal.stderr)")
    }

    @Test func existingPathIsNoType() throws {
        try tree { dir in
            for query in ["./rel.jpg", "dir/file.jpg", dir + "/rel.jpg", "../rel.jpg", "./My Photo.JPG", "./it's.jpg"] {
                let from = query.hasPrefix("../") ? dir + "/dir" : dir
                let lookup = try Run([query], directory: from)
                #expect(lookup.status == 2 && lookup.stdout.isEmpty, "\(query): \(lookup.stderr)")
                #expect(lookup.stderr.contains("is a path, not a type"), "\(query): \(lookup.stderr)")
                #expect(try suggestedWords(lookup.stderr, "uti file") == ["file", query])
                let conforms = try Run(["conforms", query, "public.image"], directory: from)
                #expect(conforms.status == 0, "\(query): the file is typed: \(conforms.stderr)")
                let tags = try Run(["tags", query], directory: from)
                #expect(tags.status == 2 && tags.stderr.contains("is a path"), "\(query): \(tags.stderr)")
                let equal = try Run(["equal", query, "jpg"], directory: from)
                #expect(equal.status == 2 && equal.stderr.contains("is a path"), "\(query): \(equal.stderr)")
            }
        }
    }

    @Test func suggestionRunsOnTheSameFile() throws {
        try tree { dir in
            let lookup = try Run(["./it's.jpg"], directory: dir)
            #expect(lookup.stderr.contains("uti file './it'\\''s.jpg'"), "\(lookup.stderr)")
            guard let range = lookup.stderr.range(of: "uti file ") else { return }
            let command = Run.binary.path + " file " + lookup.stderr[range.upperBound...].prefix(while: { $0 != "\n" })
            let file = try Run(["-c", command], executable: "/bin/sh", directory: dir)
            #expect(file.status == 0 && file.stdout.contains("it's.jpg") && file.stdout.contains("public.jpeg"))
        }
    }

    @Test func fileNamesInSuggestionsAreQuoted() throws {
        let dotted = try Run(["My Photo.JPG"])
        #expect(dotted.status == 1 && dotted.stderr.contains("uti file 'My Photo.JPG'"), "\(dotted.stderr)")
        #expect(try suggestedWords(dotted.stderr, "uti file") == ["file", "My Photo.JPG"])
        let spaced = try Run(["conforms", "My Photo", "public.image"])
        #expect(spaced.status == 2 && spaced.stderr.contains("has a space"), "\(spaced.stderr)")
        #expect(spaced.stderr.contains("uti conforms --file 'My Photo' public.image"))
        let quote = try Run(["/no/such/it's.jpg"])
        #expect(quote.status == 2 && quote.stderr.contains("uti file '/no/such/it'\\''s.jpg'"), "\(quote.stderr)")
        #expect(try suggestedWords(quote.stderr, "uti file") == ["file", "/no/such/it's.jpg"])
    }

    @Test func controlCharactersStayEscaped() throws {
        let run = try Run(["/no/such/a\u{1B}[31mb.jpg"])
        #expect(run.status == 2 && !run.stderr.contains("\u{1B}"), "\(run.stderr)")
        #expect(run.stderr.contains("uti file $'/no/such/a\\x1b[31mb.jpg'"), "\(run.stderr)")
    }

    @Test func plainWords() throws {
        try tree { dir in
            // A word no type claims is an extension with a dynamic type,
            // conforming to nothing: Apple's answer, a "no".
            let unknown = try Run(["conforms", "jpeg-nofile", "public.image"], directory: dir)
            #expect(unknown.status == 1 && unknown.stderr.isEmpty)
            // The same word naming a file here is typed as that file.
            let file = try Run(["conforms", "jpeg-file", "public.image"], directory: dir)
            #expect(file.status == 0, "\(file.stderr)")
            let forced = try Run(["conforms", "--file", "jpeg-file", "public.image"], directory: dir)
            #expect(forced.status == 0, "\(forced.stderr)")
            // A claimed extension stays one, even where a file has the name.
            _ = FileManager.default.createFile(atPath: dir + "/txt", contents: Data(Self.jpeg))
            let claimed = try Run(["conforms", "txt", "public.image"], directory: dir)
            #expect(claimed.status == 1)
        }
    }

    @Test func unclaimedMIMETypeStaysDynamicUnlessAFileIsThere() throws {
        let empty = TemporaryFolder("uti-pathq-empty")
        let lookup = try Run(["dir/file.jpg", "-b"], directory: empty.path)
        #expect(lookup.status == 0 && lookup.stdout.hasPrefix("dyn."), "\(lookup.stderr)")
        #expect(try Run(["conforms", "dir/file.jpg", "public.image"], directory: empty.path).status == 1)
    }

    @Test func mimeTypesStayMIMETypes() throws {
        #expect(try Run(["image/png", "-b"]).stdout == "public.png\n")
        #expect(try Run(["text/html; charset=utf-8", "-b"]).stdout == "public.html\n")
        #expect(try Run(["conforms", "image/png", "public.image"]).status == 0)
        #expect(try Run(["equal", "image/jpeg", "jpg"]).status == 0)
        let malformed = try Run(["text/html(", "-b"])
        #expect(malformed.status == 1 && malformed.stderr.contains("is not a MIME type"))
        #expect(malformed.stderr.contains("uti file 'text/html('"), "\(malformed.stderr)")
    }
}
