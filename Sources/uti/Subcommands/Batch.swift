import ArgumentParser
import SystemBase
import UniformTypes

struct Batch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Answer queries read from standard input, one a line, in order.",
        discussion: """
        Prints one line per input line: the identifier (with --json, one JSON object
        per line). With --file each line is a file name typed by name alone; the file
        system is not consulted. A line that cannot be answered prints an empty line
        (or an object with "error"), is reported on standard error, and makes the exit
        status 1.
        """)

    @OptionGroup var registryOptions: RegistryOptions
    @OptionGroup var queryOptions: QueryOptions
    @OptionGroup var output: OutputOptions
    @Flag(name: .customLong("file"), help: "Lines are file names, not queries.")
    var fileNames = false

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
        while let record = input.nextBytes() {
            lineNumber += 1
            // A file name need not be UTF-8 (see PathText); a query is text.
            let line = fileNames ? PathText.text(record) : String(decoding: record, as: UTF8.self)
            if fileNames {
                if line.isEmpty {
                    failed = true
                    out.flush()
                    Console.error("uti: standard input line \(lineNumber): empty file name")
                    out.line(json ? JSON.object([("path", .string("")), ("error", .string("empty file name"))]).serialized(indent: nil) : "")
                    continue
                }
                let name = FileTyping.fileName(of: Array(record))
                if json {
                    out.line(FileCommand.json(path: line, typing.type(forName: name)).serialized(indent: nil))
                } else {
                    typing.preferredType(forName: name).withIdentifierUTF8 { out.line(utf8: $0) }
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
                Console.error("uti: standard input line \(lineNumber): \(line): \(error)")
                out.line(json ? JSON.object([("query", .string(line)), ("error", .string(error.description))]).serialized(indent: nil) : "")
            }
        }
        out.flush()
        if let error = input.error {
            throw Console.fail("standard input: \(SystemError(error, call: "read").description)")
        }
        if failed { throw ExitCode(Status.no) }
    }
}
