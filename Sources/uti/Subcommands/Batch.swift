import ArgumentParser
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
        while let line = readLine(strippingNewline: true) {
            lineNumber += 1
            if fileNames {
                if line.isEmpty {
                    failed = true
                    out.flush()
                    Console.error("uti: standard input line \(lineNumber): empty file name")
                    out.line(output.json ? JSON.object([("path", .string("")), ("error", .string("empty file name"))]).serialized(indent: nil) : "")
                    continue
                }
                let name = FileTyping.fileName(of: line)
                if output.json {
                    out.line(FileCommand.json(path: line, typing.type(forName: name)).serialized(indent: nil))
                } else {
                    out.line(typing.preferredType(forName: name).identifier)
                }
                continue
            }
            do {
                let resolution = try resolver.resolve(line)
                out.line(output.json ? TypeFormatting.json(resolution).serialized(indent: nil) : resolution.type.identifier)
            } catch {
                failed = true
                out.flush()
                Console.error("uti: standard input line \(lineNumber): \(line): \(error)")
                out.line(output.json ? JSON.object([("query", .string(line)), ("error", .string(error.description))]).serialized(indent: nil) : "")
            }
        }
        out.flush()
        if failed { throw ExitCode(Status.no) }
    }
}
