import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import UniformTypes

struct Filter: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the paths whose type conforms to TYPE, as grep -l prints matching files.",
        discussion: """
        Paths come from the arguments or, when there are none, from standard input,
        one a line (with -0, separated by NUL bytes, as find -print0 writes them).
        Each is typed as `uti file` types it, by name and content. With -0 the paths
        are also printed NUL-separated. Exit 0 when a path was printed, 1 when none
        was, 2 when a path could not be typed (missing, unreadable, not UTF-8: named
        on standard error) or TYPE names no declared type.
          find ~/Pictures -type f -print0 | uti filter -0 public.image | xargs -0 ls -l
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
    @Argument(help: "The type to keep (a declared type: public.image, jpg, image/png).") var type: String
    @Argument(help: "Paths; when none are given, they are read from standard input.") var paths: [String] = []

    func run() throws {
        let registry = try registryOptions.load()
        let target = try QueryResolver(registry: registry).declaredArgument(type, "TYPE")
        let typing = FileTyping(registry: registry)
        let options = FileTyping.Options(sniff: !noSniff, followSymbolicLinks: follow)
        let separator: UInt8 = nulSeparated ? 0 : 10
        var out = BufferedOutput()
        var printed = false, failed = false

        func consider(_ path: String) {
            do {
                let conforms = try typing.type(ofExistingPath: path, options: options).type.conforms(to: target)
                guard conforms != invert else { return }
                out.record(path, terminator: separator)
                printed = true
            } catch {
                failed = true
                out.flush()
                Console.error("uti: \(error)")
            }
        }

        if !paths.isEmpty {
            for path in paths { consider(path) }
        } else {
            var reader = RecordReader(fd: 0, separator: separator)
            while let record = reader.next() {
                switch record {
                case .path(let path): consider(path)
                case .problem(let message):
                    failed = true
                    out.flush()
                    Console.error("uti: standard input \(nulSeparated ? "record" : "line") \(reader.count): \(message)")
                }
            }
        }
        out.flush()
        if failed { throw ExitCode(Status.error) }
        if !printed { throw ExitCode(Status.no) }
    }
}

/// Paths read from a file descriptor in large blocks, split at a separator
/// byte (line feed or NUL). A record that is not UTF-8 or is empty is a
/// problem, never a path with replaced bytes.
struct RecordReader {
    enum Record { case path(String), problem(String) }

    let fd: Int32
    let separator: UInt8
    /// How many records have been read.
    private(set) var count = 0
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false

    init(fd: Int32, separator: UInt8) {
        self.fd = fd
        self.separator = separator
    }

    mutating func next() -> Record? {
        while true {
            if let end = buffer[start...].firstIndex(of: separator) {
                let bytes = buffer[start..<end]
                start = end + 1
                return record(bytes)
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let bytes = buffer[start...]
                start = buffer.count
                return record(bytes)
            }
            buffer.removeFirst(start)
            start = 0
            let old = buffer.count
            buffer.append(contentsOf: repeatElement(0, count: 1 << 16))
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + old, 1 << 16) }
            if n < 0 && errno == EINTR { buffer.removeLast(1 << 16); continue }
            buffer.removeLast((1 << 16) - max(n, 0))
            if n <= 0 { atEnd = true }
        }
    }

    private mutating func record(_ bytes: ArraySlice<UInt8>) -> Record {
        count += 1
        if bytes.isEmpty { return .problem("empty path") }
        guard let path = String(validating: bytes, as: UTF8.self) else {
            return .problem("path is not UTF-8 (\(bytes.count) bytes); not typed")
        }
        return .path(path)
    }
}
