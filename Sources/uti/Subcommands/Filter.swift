import ArgumentParser
import SystemBase
import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

struct Filter: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: CommandName.filter.rawValue,
        abstract: "Print the paths whose type conforms to TYPE, as grep -l prints matching files.",
        discussion: """
            Paths come from the arguments or, when there are none, from standard input,
            one a line (with -0, separated by NUL bytes, as find -print0 writes them).
            Each is typed as `uti file` types it, by name and content. With -0 the paths
            are also printed NUL-separated. A path goes to a pipe or file as its bytes,
            and to a terminal escaped (\\x1b, \\n), as uti file prints it. Exit 0 when
            a path was printed, 1 when none was, 2 when a path could not be typed
            (missing or unreadable: named on standard error; a name need not be UTF-8;
            a record over 1 MiB is not read), when, without -0, a conforming path holds
            a line feed (it would read as two paths: named on standard error, not
            printed), or TYPE names no declared type. --content types each file by its
            content alone, as file does; --strict also reads the content and leaves
            out a file whose content contradicts its type and is itself no kind of
            TYPE (a text file named x.jpg is no public.image).
              find ~/Pictures -print0 | uti filter -0 --strict public.image | xargs -0 ls
            """)

    @OptionGroup var registryOptions: RegistryOptions
    @Flag(name: .customShort("0"), help: "Paths on standard input and output are separated by NUL bytes.")
    var nulSeparated = false
    @Flag(name: .customLong("invert"), help: "Print the paths whose type does not conform.")
    var invert = false
    @Flag(name: .customLong("no-sniff"), help: "Use names alone; never read a file.")
    var noSniff = false
    @Flag(name: [.customShort("L"), .customLong("follow")], help: "Type what symbolic links point to.")
    var follow = false
    @Flag(name: .customLong("content"), help: "Type files by their content alone, as file does.")
    var content = false
    @Flag(name: .customLong("strict"), help: "Leave out a file whose content contradicts its type.")
    var strict = false

    func validate() throws {
        if noSniff && (content || strict) {
            throw ValidationError(
                "--no-sniff reads nothing, and --\(content ? "content" : "strict") reads the content; choose one")
        }
    }
    @Argument(help: "The type to keep (a declared type: public.image, jpg, image/png).", completion: .typeNames)
    var type: String
    @Argument(help: "Paths; when none are given, they are read from standard input.", completion: .file())
    var paths: [String] = []

    func run() throws {
        let registry = try registryOptions.load()
        let target = try QueryResolver(registry: registry).declaredArgument(type, "TYPE")
        let typing = FileTyping(registry: registry)
        var options = FileTyping.Options(sniff: !noSniff, followSymbolicLinks: follow)
        options.contentAlone = content
        options.checkContent = strict && !content
        let separator: UInt8 = nulSeparated ? 0 : 10
        // A path goes to a terminal escaped, as `file` writes it: its control
        // characters never reach one. A pipe gets its bytes as they are.
        let toTerminal = isatty(1) == 1
        var out = BufferedOutput()
        var printed = false, failed = false

        // Read once: each read of an option runs the parser's generic accessors.
        let invert = invert
        // Paths are bytes, typed and printed as they came (see PathText).
        func consider(_ path: [UInt8]) {
            do {
                let conforms = typing.strictlyConforms(
                    try typing.type(ofExistingPath: path, options: options), to: target)
                guard conforms != invert else { return }
                // A line feed would end the record early, and the rest would read as another path.
                if separator == 10 && path.contains(10) {
                    failed = true
                    out.flush()
                    Console.error(
                        "uti: \(PathText.text(path)): not printed: its name holds a line feed, which would split its line; use -0"
                            as TerminalText)
                    return
                }
                out.record(
                    bytes: toTerminal ? Array(Escaping.name(PathText.text(path)).utf8) : path, terminator: separator)
                printed = true
            } catch {
                failed = true
                out.flush()
                Console.error("uti: \(Escaping.name(PathText.text(path))): \(error.reason)")
            }
        }

        if !paths.isEmpty {
            for path in paths { consider(PathText.bytes(path)) }
        } else {
            let readError = Self.readPaths(separator: separator, consider) { problem in
                failed = true
                out.flush()
                Console.error(problem)
            }
            if let readError {
                failed = true
                Console.error("uti: standard input: \(SystemError(readError, call: "read").description)")
            }
        }
        out.flush()
        if failed { throw ExitCode(Status.error) }
        if !printed { throw ExitCode(Status.no) }
    }

    /// Passes each path of standard input to `consider`, in order; a record
    /// that is empty or too long goes to `problem` as a message instead.
    /// Returns the error that stopped reading, if any.
    private static func readPaths(
        separator: UInt8, _ consider: ([UInt8]) -> Void, problem: (String) -> Void
    ) -> Int32? {
        var reader = RecordReader(fd: 0, separator: separator)
        var count = 0
        while let record = reader.nextBytes() {
            count += 1
            switch record {
            case .bytes(let path) where !path.isEmpty: consider(Array(path))
            case .bytes: problem("uti: standard input \(separator == 0 ? "record" : "line") \(count): empty path")
            case .tooLong(let length):
                problem(
                    "uti: standard input \(separator == 0 ? "record" : "line") \(count): "
                        + "\(length) bytes, longer than \(reader.maximumLength); not typed")
            }
        }
        return reader.error
    }
}
