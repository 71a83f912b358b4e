import ArgumentParser
import SystemBase
import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Answer queries read from standard input, one a line, in order.",
        discussion: """
            Prints one line per input line: the identifier (with --json, one JSON object
            per line). With --file each line is a file name typed by name alone; the file
            system is not consulted (in JSON, "exists" is null), and a name that gives no
            type (as uti file --no-sniff says) is not answered. A line that cannot be
            answered (or longer than 1 MiB) prints an empty line (or an object with
            "error"), is reported on standard error, and makes the exit status 1.
            With --file, the options that say how to read a query (--extension,
            --mime, --identifier, --tag-class, --conforming-to, --unfiltered) are
            refused: exit 2.
            """)

    @OptionGroup var registryOptions: RegistryOptions
    @OptionGroup var queryOptions: QueryOptions
    @OptionGroup var output: OutputOptions
    @Flag(name: .customLong("file"), help: "Lines are file names, not queries.")
    var fileNames = false

    func validate() throws {
        // File names are typed as `uti file` types them; how to read a query has no meaning there.
        let q = queryOptions
        let given = [
            ("--extension", q.asExtension), ("--mime", q.asMIME), ("--identifier", q.asIdentifier),
            ("--tag-class", q.tagClass != nil), ("--conforming-to", q.conformingTo != nil),
            ("--unfiltered", q.unfiltered),
        ].filter(\.1).map(\.0)
        if fileNames, let first = given.first {
            throw ValidationError("\(first) reads queries; --file lines are file names, typed as uti file types them")
        }
    }

    func run() throws {
        let registry = try registryOptions.load()
        let resolver = try queryOptions.resolver(registry)
        let typing = FileTyping(registry: registry)
        var failed = false
        var lineNumber = 0
        var out = BufferedOutput()
        // Lines as readLine gives them: CR LF ends a line too, and bad UTF-8 is repaired.
        var input = RecordReader(fd: 0, stripsCarriageReturn: true)
        // Read once: each read of an option runs the parser's generic accessors.
        let fileNames = fileNames, json = output.json
        while let next = input.nextBytes() {
            lineNumber += 1
            guard case .bytes(let record) = next else {
                failed = true
                out.flush()
                let problem = "longer than \(input.maximumLength) bytes; not read"
                Console.error("uti: standard input line \(lineNumber): \(problem)")
                out.line(json ? JSON.object([("error", .string(problem))]).serialized(indent: nil) : "")
                continue
            }
            // Kept as bytes (see PathText): a file name need not be UTF-8, and a
            // query that is not UTF-8 is refused rather than repaired.
            let line = PathText.text(record)
            if fileNames {
                if line.isEmpty {
                    failed = true
                    out.flush()
                    Console.error("uti: standard input line \(lineNumber): empty file name")
                    out.line(
                        json
                            ? JSON.object([("path", .string("")), ("error", .string("empty file name"))]).serialized(
                                indent: nil) : "")
                    continue
                }
                let name = FileTyping.fileName(of: Array(record))
                // What `uti file` gets from the kernel for such a path: no
                // file can have the name, and typing a huge one takes long.
                // Counted in the name's own bytes: a byte that is not UTF-8 is one byte there.
                let lastComponent = record.split(separator: UInt8(ascii: "/")).last?.count ?? 0
                if lastComponent > Int(NAME_MAX) || record.count >= Int(PATH_MAX) {
                    failed = true
                    out.flush()
                    let problem = SystemError(ENAMETOOLONG).reason
                    Console.error("uti: standard input line \(lineNumber): \(Escaping.name(line)): \(problem)")
                    out.line(
                        json
                            ? JSON.object(JSON.path("path", bytes: Array(record)) + [("error", .string(problem))])
                                .serialized(indent: nil) : "")
                    continue
                }
                if !json, case let type = typing.preferredType(forName: name), type.identifier != "public.data" {
                    type.withIdentifierUTF8 { out.line(utf8: $0) }
                    continue
                }
                // Plain data from the fast route, or JSON: the whole answer says
                // whether the name gives a type at all, as `uti file --no-sniff`.
                let result = typing.type(forName: name)
                if result.givesNoType {
                    failed = true
                    out.flush()
                    Console.error(
                        "uti: standard input line \(lineNumber): \(Escaping.name(line)): the name gives no type")
                    out.line(
                        json
                            ? JSON.object(
                                JSON.path("path", bytes: Array(record)) + [("error", .string("the name gives no type"))]
                            )
                            .serialized(indent: nil) : "")
                } else if json {
                    // Names alone: whether anything is at the path is not known.
                    out.line(FileCommand.json(path: line, result, nameOnly: true).serialized(indent: nil))
                } else {
                    result.type.withIdentifierUTF8 { out.line(utf8: $0) }
                }
                continue
            }
            do {
                let resolution = try resolver.resolve(line)
                if json {
                    out.line(TypeFormatting.json(resolution).serialized(indent: nil))
                } else {
                    resolution.type.withIdentifierUTF8 { out.line(utf8: $0) }
                }
            } catch {
                failed = true
                out.flush()
                Console.error("uti: standard input line \(lineNumber): \(Escaping.name(line)): \(error)")
                out.line(
                    json
                        ? JSON.object(
                            JSON.path("query", bytes: Array(record)) + [("error", .string(error.description))]
                        )
                        .serialized(indent: nil) : "")
            }
        }
        out.flush()
        if let error = input.error {
            throw Console.fail("standard input: \(SystemError(error, call: "read").description)")
        }
        if failed { throw ExitCode(Status.no) }
    }
}
