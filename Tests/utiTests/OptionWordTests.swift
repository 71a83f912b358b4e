import Foundation
import TestSupport
import Testing

/// `--mime` prints a MIME type wherever it is taken, as in `file`; the
/// flags that say how to read a query say so (`--as-mime`); the spellings
/// they replaced are refused with what to write instead.
@Suite struct OptionWordTests {
    /// Every door to a lookup's MIME type prints the same line.
    @Test(arguments: [
        (["md", "--mime"], "text/markdown"),
        (["--mime", "md"], "text/markdown"),
        (["lookup", "--mime", "md"], "text/markdown"),
        (["lookup", "md", "--mime"], "text/markdown"),
        (["--mime", "image/png"], "image/png"),
        (["--mime", "public.jpeg"], "image/jpeg"),
        (["--mime", "--as-identifier", "public.jpeg"], "image/jpeg"),
        // An extension no type gives a MIME type is unknown data, as GIO names it.
        (["--mime", "xlv"], "application/octet-stream"),
        // A type without one: the MIME type of a file it names, when that is the type or narrower.
        (["--mime", "f"], "text/x-fortran"),
        (["--mime", "pkpass"], "application/vnd.apple.pkpass"),
    ])
    func mimePrintsTheMIMEType(arguments: [String], expected: String) throws {
        let run = try Run(arguments, environment: ["XDG_DATA_DIRS": "/usr/share"])
        #expect(run.status == 0 && run.lines == [expected] && run.stderr.isEmpty, "\(arguments): \(run.stderr)")
    }

    @Test func theSameAnswerAsFileAndBatch() throws {
        let folder = TemporaryFolder("option-words")
        try folder.write("notes.md", "# Notes\n")
        let file = try Run(["file", "--mime", "notes.md"], directory: folder.path)
        let lookup = try Run(["--mime", "md"])
        let batch = try Run(["batch", "--mime"], stdin: "md\n")
        let batchFile = try Run(["batch", "--file", "--mime"], stdin: "notes.md\n")
        #expect(file.lines == ["text/markdown"])
        #expect(lookup.lines == file.lines && batch.lines == file.lines && batchFile.lines == file.lines)
    }

    /// A declared type without a MIME type is "not found": a script cannot
    /// take a made-up name for an answer.
    @Test func aTypeWithoutAMIMETypeIsNotFound() throws {
        let run = try Run(["--mime", "public.image", "md"])
        #expect(run.status == 1 && run.lines == ["", "text/markdown"])
        #expect(run.stderr == "uti: public.image: has no MIME type\n", "\(run.stderr)")
        let batch = try Run(["batch", "--mime"], stdin: "public.image\nmd\n")
        #expect(batch.status == 1 && batch.lines == ["", "text/markdown"])
        #expect(batch.stderr.contains("standard input line 1: public.image: has no MIME type"), "\(batch.stderr)")
    }

    @Test(arguments: [["--mime", "-b", "jpg"], ["--mime", "--json", "jpg"], ["batch", "--mime", "--json"]])
    func mimeExcludesTheOtherForms(arguments: [String]) throws {
        let run = try Run(arguments, stdin: "jpg\n")
        #expect(run.status == 2 && run.stdout.isEmpty && run.stderr.contains("choose one of"), "\(run.stderr)")
    }

    /// The query-kind flags read the query as they say.
    @Test func asFlagsReadTheQuery() throws {
        #expect(try Run(["--as-mime", "md", "-b"]).status == 1)
        #expect(try Run(["--as-extension", "md", "-b"]).lines == ["net.daringfireball.markdown"])
        #expect(try Run(["conforms", "--as-mime", "image/png", "public.image"]).status == 0)
        #expect(try Run(["tags", "--as-identifier", "public.png", "--class", "mime"]).lines == ["image/png"])
    }

    /// Each spelling that changed meaning, in each command that took it,
    /// is refused (exit 2) with the spelling to write instead.
    @Test(arguments: [
        (["--extension", "jpg"], "--extension is now --as-extension"),
        (["lookup", "--identifier", "public.jpeg"], "--identifier is now --as-identifier"),
        (["tags", "--extension", "jpg"], "--extension is now --as-extension"),
        (["tags", "--mime", "image/png"], "--as-mime reads queries as MIME types"),
        (["conforms", "--mime", "image/png", "public.image"], "--as-mime reads queries as MIME types"),
        (["conforms", "--identifier", "public.png", "public.image"], "--identifier is now --as-identifier"),
        (["supertypes", "--mime", "image/png"], "--as-mime reads queries as MIME types"),
        (["descendants", "--mime", "image/png"], "--as-mime reads queries as MIME types"),
        (["graph", "--mime", "image/png"], "--as-mime reads queries as MIME types"),
        (["batch", "--extension"], "--extension is now --as-extension"),
    ])
    func oldSpellingsSayWhatToWrite(arguments: [String], message: String) throws {
        let run = try Run(arguments, stdin: "jpg\n")
        #expect(run.status == 2 && run.stdout.isEmpty, "\(arguments): \(run.status) \(run.stdout)")
        #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
    }

    /// The old spellings are not offered: help lists the new ones only.
    @Test func helpListsTheNewSpellings() throws {
        for command in ["lookup", "tags", "conforms", "supertypes", "descendants", "graph", "batch"] {
            let help = try Run([command, "--help"]).stdout
            #expect(help.contains("--as-extension") && help.contains("--as-mime"), "\(command)")
            #expect(!help.contains("  --extension") && !help.contains("  --identifier"), "\(command)")
        }
    }
}
