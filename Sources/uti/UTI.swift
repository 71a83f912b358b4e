import ArgumentParser
import SystemBase

#if canImport(Glibc)
    import Glibc
#endif

@main
struct UTI: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "uti",
        abstract: "Uniform Type Identifiers on Linux: extensions, MIME types, identifiers and conformance.",
        discussion: """
            A query with a "/" is a MIME type, a declared identifier (or dyn.a...) is an
            identifier, anything else is a filename extension.

            Examples:
              uti jpg                          describe the type of the extension jpg
              uti image/png --json             the same for a MIME type, as JSON
              uti file report.pdf notes.md     the type of paths, by name
              uti conforms jpg public.image    exit 0 when jpg is an image
              uti conforms --file a.dat public.image   the same for a file
              find . -type f | uti filter public.image   the paths of images
              uti tags public.image --class extension --descendants
              uti graph public.image > image.dot
              uti validate MyApp.app           check an app's types, document and URL types
              printf 'a.jpg\\nb.txt\\n' | uti batch --file
              uti inbox ~/Documents            move Documents/Inbox into Documents
              uti watch -r ~/Downloads         print each settled change, typed
              uti open-in notes.md             which applications open it, best first
              uti open-in https://example.org  which applications open a URL
              uti set-default md vim.desktop   make vim open Markdown files

            Exit status: 0 success (or "yes"), 1 "no" or not found, 2 error.
            """,
        version: version,
        subcommands: CommandName.allCases.map { $0.command },
        defaultSubcommand: CommandName.defaultCommand.command
    )

    /// Maps argument errors to exit status 2, as documented. Simple lookups
    /// skip the argument parser (see `FastPath`).
    static func main() {
        // As the kernel passed them: a path need not be UTF-8 (see PathText).
        var arguments = PathText.commandLineArguments()
        // A folder the environment names in bytes that are not UTF-8 would be read as another one.
        if let variable = EnvironmentVariable.undecodablePaths.first {
            Console.error(
                "uti: \(variable.name) is not UTF-8 text, so uti cannot name the folder it means; "
                    + "set it to a UTF-8 path (or unset it)")
            Glibc.exit(Status.error)
        }
        if let name = arguments.first, XDGOpen.isRunAs(name) {
            Glibc.exit(RegistryOptions.checkedAnswers(XDGOpen.main(arguments)))
        }
        if let status = FastPath.run(arguments) { Glibc.exit(RegistryOptions.checkedAnswers(status)) }
        arguments = CommandWord.normalized(arguments)
        // uti open keeps xdg-open's exit codes: 1 for an error in the command line.
        let syntaxStatus =
            arguments.dropFirst().first == Open.configuration.commandName ? Open.Code.syntax : Status.error
        if let option = CommandWord.emptyAttachedValue(arguments) {
            Console.error(
                "uti: \(Escaping.name(option)) has nothing after \"=\": write the value after it, "
                    + "or an empty value as an argument of its own (\(Escaping.name(String(option.dropLast()))) '')")
            Glibc.exit(syntaxStatus)
        }
        if let status = CommandSpelling.check(arguments) { Glibc.exit(RegistryOptions.checkedAnswers(status)) }
        // The parser answers `help WORD` with the general help when WORD is no command: a typo would read as success.
        // The word it names is the first that is no option's value (`help --language de conforms`).
        if arguments.count > 2, arguments[1] == "help",
            let index = CommandWord.firstWord(
                Array(arguments.dropFirst()),
                optionsTakingValues: ParserModel.optionsTakingValues(of: CommandName.defaultCommand.command)),
            case let word = arguments[index + 1], !CommandNames.contains(word)
        {
            Console.error("uti: help: \"\(Escaping.name(word))\" is not a command; uti --help lists them")
            Glibc.exit(Status.error)
        }
        do {
            var command = try parseAsRoot(Array(arguments.dropFirst()))
            try command.run()
        } catch {
            let code = exitCode(for: error)
            let message = CommandWord.withRootSuggestion(fullMessage(for: error))
            if code == .success {
                if !message.isEmpty { print(message) }
                Glibc.exit(RegistryOptions.checkedAnswers(0))
            }
            if !message.isEmpty { Console.errorLines(message) }
            if code == .validationFailure { Glibc.exit(RegistryOptions.checkedAnswers(syntaxStatus)) }
            Glibc.exit(RegistryOptions.checkedAnswers(code.rawValue))
        }
        Glibc.exit(RegistryOptions.checkedAnswers(Status.success))
    }
}

/// Exit statuses `uti` documents.
enum Status {
    static let success: Int32 = 0
    /// A "no": not conforming, not equal, not found, problems found.
    static let no: Int32 = 1
    /// Bad arguments or unusable input.
    static let error: Int32 = 2
}

/// Standard output without `print`, whose dynamic casts make the runtime
/// scan every protocol conformance of the binary on first use.
enum StandardOutput {
    static func line(_ text: String) { write(text + "\n") }

    static func write(_ text: String) { Console.write(1, text) }
}

/// Lines collected and written to standard output in large blocks.
struct BufferedOutput {
    private var bytes: [UInt8] = []

    mutating func line(_ text: String) { record(text, terminator: 10) }

    /// `text` followed by `terminator` (a line feed, or NUL for -0 output).
    mutating func record(_ text: String, terminator: UInt8) {
        record(bytes: text.utf8, terminator: terminator)
    }

    /// `record` followed by `terminator`: a path printed as its bytes.
    mutating func record<Bytes: Sequence>(bytes record: Bytes, terminator: UInt8) where Bytes.Element == UInt8 {
        bytes.append(contentsOf: record)
        bytes.append(terminator)
        if bytes.count >= 1 << 16 { flush() }
    }

    /// A line of UTF-8 bytes.
    mutating func line(utf8 text: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: text)
        bytes.append(10)
        if bytes.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !bytes.isEmpty else { return }
        bytes.withUnsafeBufferPointer { Console.write(1, $0) }
        bytes.removeAll(keepingCapacity: true)
    }
}

enum Console {
    /// Writes `message` as one line to standard error, its control
    /// characters escaped (it may quote names, paths and arguments, whose
    /// line feeds must not start a line of their own).
    static func error(_ message: String) {
        raw(Escaping.line(message.hasSuffix("\n") ? String(message.dropLast()) : message) + "\n")
    }

    /// Writes `text`, a message of several lines (the argument parser's
    /// usage), to standard error, each line's control characters escaped.
    static func errorLines(_ text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { Escaping.line(String($0)) }
        raw(lines.joined(separator: "\n") + (text.hasSuffix("\n") ? "" : "\n"))
    }

    /// Writes `text` to standard error as it is.
    static func raw(_ text: String) { write(2, text) }

    /// Writes all of `text` to `fd`, stopping quietly when the reader is gone.
    static func write(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { write(fd, $0) }
    }

    /// Asked before anything reaches standard output: false when the answers
    /// may not be the ones the data gave (the mapped registry's file was
    /// asked for writing or cut short), and then nothing more is written.
    nonisolated(unsafe) static var answersAreIntact: (() -> Bool)?
    /// Set once output was held back by `answersAreIntact`.
    nonisolated(unsafe) private(set) static var withheld = false

    /// Writes all of `bytes` to `fd`, stopping quietly when the reader is gone.
    static func write(_ fd: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        if fd == 1, withheld || answersAreIntact?() == false {
            withheld = true
            return
        }
        try? writeAll(fd, UnsafeRawBufferPointer(bytes))
    }

    /// Reports a failure and returns the exit code to throw.
    static func fail(_ message: String) -> ExitCode {
        error("uti: \(message)")
        return ExitCode(Status.error)
    }
}
