import ArgumentParser
import SystemBase
import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: CommandName.batch.rawValue,
        abstract: "Answer queries read from standard input, one a line (with -0, NUL-separated), in order.",
        discussion: """
            Prints one line per input line: the identifier (with --mime, the MIME type as
            uti lookup --mime and uti file --no-sniff --mime print it; with --json, one
            JSON object per line). With --file each line is a file name typed by name
            alone; the file system is not consulted (in JSON, "exists" is null), and a name
            that gives no type (as uti file --no-sniff says) is not answered. A line that
            cannot be answered (or longer than 1 MiB) prints an empty line (or an object
            with "error"), is reported on standard error, and makes the exit status 1. With
            --file, the options that say how to read a query (--as-extension, --as-mime,
            --as-identifier, --tag-class, --conforming-to, --unfiltered) are refused
            (exit 2).

            With -0 the input is records ended by NUL bytes (as find -print0 writes
            and xargs -0 reads them), taken as they are (a carriage return is part of
            the record), and each answer (or the empty answer of a record that could
            not be answered) ends with a NUL instead of a line feed; errors name the
            record by its number. A name may then hold a line feed.
              find . -type f -print0 | uti batch --file -0 | tr '\\0' '\\n'
            """)

    @OptionGroup var registryOptions: RegistryOptions
    @OptionGroup var queryOptions: QueryOptions
    @OptionGroup var output: OutputOptions
    @Flag(name: .customLong("file"), help: "Lines are file names, not queries.")
    var fileNames = false
    @Flag(name: .customShort("0"), help: "Input records and answers are ended by NUL bytes, not line feeds.")
    var nulSeparated = false
    @Flag(name: .customLong("mime"), help: "Print the MIME type of each line, not its identifier.")
    var mime = false

    func validate() throws {
        // File names are typed as `uti file` types them; how to read a query has no meaning there.
        let q = queryOptions
        let given = [
            ("--as-extension", q.asExtension), ("--as-mime", q.asMIME), ("--as-identifier", q.asIdentifier),
            ("--tag-class", q.tagClass != nil), ("--conforming-to", q.conformingTo != nil),
            ("--unfiltered", q.unfiltered),
        ].filter(\.1).map(\.0)
        if fileNames, let first = given.first {
            throw ValidationError("\(first) reads queries; --file lines are file names, typed as uti file types them")
        }
        if mime && output.json { throw ValidationError("choose one of --mime and --json") }
    }

    func run() throws {
        let registry = try registryOptions.load()
        // Options read once: each read of one runs the parser's generic accessors.
        let answerer = LineAnswerer(
            resolver: try queryOptions.resolver(registry), typing: FileTyping(registry: registry),
            fileNames: fileNames, json: output.json, mime: mime, terminator: nulSeparated ? 0 : 10)
        var failed = false
        var lineNumber = 0
        var out = BufferedOutput()
        // Lines as readLine gives them: CR LF ends a line too. NUL records as
        // xargs -0 reads them: every byte up to the NUL is the record's.
        var input = RecordReader(fd: 0, separator: answerer.terminator, stripsCarriageReturn: !nulSeparated)
        let unit = nulSeparated ? "record" : "line"
        while let next = input.nextBytes() {
            lineNumber += 1
            let unanswered: LineAnswerer.Unanswered?
            switch next {
            case .bytes(let record): unanswered = answerer.answer(record, into: &out)
            case .tooLong: unanswered = answerer.tooLong(limit: input.maximumLength)
            }
            guard let unanswered else { continue }
            failed = true
            // What was answered before comes first, then the problem, then the line standing for it.
            out.flush()
            Console.error("uti: standard input \(unit) \(lineNumber): \(unanswered.problem)")
            out.record(unanswered.placeholder, terminator: answerer.terminator)
        }
        out.flush()
        if let error = input.error {
            throw Console.fail("standard input: \(SystemError(error, call: "read").description)")
        }
        if failed { throw ExitCode(Status.no) }
    }
}

/// Answers one line of `uti batch`'s input: a query, or with `--file` a
/// file name typed by name alone.
private struct LineAnswerer {
    let resolver: QueryResolver
    let typing: FileTyping
    let fileNames: Bool
    let json: Bool
    /// Answers are MIME types, not identifiers.
    let mime: Bool
    /// What ends each answer: a line feed, or NUL with -0.
    let terminator: UInt8

    /// A line that could not be answered: why, for standard error, and the
    /// line that stands for it in the output (empty, or JSON with "error").
    struct Unanswered {
        var problem: String
        var placeholder: String
    }

    /// A line longer than `limit` bytes, which was not read.
    func tooLong(limit: Int) -> Unanswered {
        let problem = "longer than \(limit) bytes; not read"
        return Unanswered(
            problem: problem,
            placeholder: json ? JSON.object([("error", .string(problem))]).serialized(indent: nil) : "")
    }

    /// Writes the answer to `record` to `out`; what stands for it instead
    /// when it cannot be answered.
    func answer(_ record: ArraySlice<UInt8>, into out: inout BufferedOutput) -> Unanswered? {
        // Kept as bytes (see PathText): a file name need not be UTF-8, and a
        // query that is not UTF-8 is refused rather than repaired.
        let line = PathText.text(record)
        return fileNames ? answer(fileName: record, line, into: &out) : answer(query: record, line, into: &out)
    }

    /// The line as a query.
    private func answer(query record: ArraySlice<UInt8>, _ line: String, into out: inout BufferedOutput) -> Unanswered?
    {
        do {
            let resolution = try resolver.resolve(line)
            if json {
                out.record(TypeFormatting.json(resolution).serialized(indent: nil), terminator: terminator)
            } else if mime {
                guard let mimeType = TypeFormatting.mimeType(resolution, registry: resolver.registry) else {
                    let problem = "has no MIME type"
                    return failure("\(Escaping.name(line)): \(problem)", problem, key: "query", bytes: Array(record))
                }
                out.record(mimeType, terminator: terminator)
            } else {
                resolution.type.withIdentifierUTF8 { out.record(bytes: $0, terminator: terminator) }
            }
            return nil
        } catch {
            return failure("\(Escaping.name(line)): \(error)", error.description, key: "query", bytes: Array(record))
        }
    }

    /// The line as a file name, typed as `uti file --no-sniff` types it.
    private func answer(
        fileName record: ArraySlice<UInt8>, _ line: String, into out: inout BufferedOutput
    ) -> Unanswered? {
        if line.isEmpty { return failure("empty file name", "empty file name", key: "path", bytes: []) }
        let name = FileTyping.fileName(of: Array(record))
        // What `uti file` gets from the kernel for such a path: no
        // file can have the name, and typing a huge one takes long.
        // Counted in the name's own bytes: a byte that is not UTF-8 is one byte there.
        let lastComponent = record.split(separator: UInt8(ascii: "/")).last?.count ?? 0
        if lastComponent > Int(NAME_MAX) || record.count >= Int(PATH_MAX) {
            let problem = SystemError(ENAMETOOLONG).reason
            return failure("\(Escaping.name(line)): \(problem)", problem, key: "path", bytes: Array(record))
        }
        if !json, !mime, case let type = typing.preferredType(forName: name), type.identifier != "public.data" {
            type.withIdentifierUTF8 { out.record(bytes: $0, terminator: terminator) }
            return nil
        }
        // Plain data from the fast route, or JSON: the whole answer says
        // whether the name gives a type at all, as `uti file --no-sniff`.
        let result = typing.type(forName: name)
        if result.givesNoType {
            let problem = "the name gives no type"
            return failure("\(Escaping.name(line)): \(problem)", problem, key: "path", bytes: Array(record))
        }
        if json {
            // Names alone: whether anything is at the path is not known.
            out.record(
                FileCommand.json(path: line, result, nameOnly: true).serialized(indent: nil), terminator: terminator)
        } else if mime {
            out.record(FileCommand.mimeType(result), terminator: terminator)
        } else {
            result.type.withIdentifierUTF8 { out.record(bytes: $0, terminator: terminator) }
        }
        return nil
    }

    /// An unanswered line: `message` on standard error, and in JSON the
    /// line (as `key`) with `error`.
    private func failure(_ message: String, _ error: String, key: String, bytes: [UInt8]) -> Unanswered {
        Unanswered(
            problem: message,
            placeholder: json
                ? JSON.object(JSON.path(key, bytes: bytes) + [("error", .string(error))]).serialized(indent: nil) : "")
    }
}
