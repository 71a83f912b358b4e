import ArgumentParser
import DocumentHandlers
import SystemBase
import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

struct Open: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: CommandName.open.rawValue,
        abstract: "Open files and URLs with their default applications, as xdg-open does.",
        discussion: """
            Each file or URL is opened with its default application: the first candidate
            uti open-in lists for it, from the same desktop entries, app bundles and
            mimeapps.list defaults. An argument that starts with a scheme and a colon
            (https://example.org, mailto:me@example.org) is a URL, opened by the
            application for its scheme (x-scheme-handler/SCHEME); a file: URL is its local
            file; a path is made absolute, its . and .. resolved by their text, as GIO
            does. Write ./-name (or put -- before it) for a file whose name starts with -.
            Nothing is printed unless something fails, and then only about the arguments:
            a problem in a desktop entry is told when that entry was considered for one.

            uti returns once each application has started, as gio open and xdg-open do;
            --wait waits for each to exit. An application started this way runs in a
            session of its own, with standard input from /dev/null, and its output and
            errors go where uti's go when they are a terminal (else to /dev/null). An entry
            with Terminal=true runs in the terminal uti runs in when its standard input
            and output are one, and uti waits for it; otherwise in xdg-terminal-exec,
            $TERMINAL -e or x-terminal-emulator -e (the first that is a program), and with
            none of them it is refused.

            Every argument is checked before anything is started: when a file does not
            exist, or something has no application, nothing is opened.

            Run as xdg-open (a link named xdg-open to uti), uti takes xdg-open's
            arguments: one file or URL, or --help, --manual or --version.

            Exit status, xdg-open's (not the 0, 1, 2 of the other commands): 0 success;
            1 an error in the command line; 2 a file on the command line does not exist
            (or a file: URL names no local file, or a source cannot be read); 3 no
            application opens one (or an entry that runs in a terminal found none); 4 an
            application could not be started, or one waited for exited non-zero.
            """)

    @OptionGroup var registryOptions: RegistryOptions
    @Flag(help: "Wait for each application to exit.")
    var wait = false
    /// The files and URLs, with any option no flag of this command takes
    /// and a `--`, in order: `validate()` names such an option and says how
    /// to open a file whose name starts with `-`.
    @Argument(parsing: .allUnrecognized, help: "Files or URLs to open.", completion: .file())
    var files: [String] = []

    /// The files and URLs to open: `files` without the `--` that ends the options.
    var targets: [String] {
        guard let end = files.firstIndex(of: "--") else { return files }
        return Array(files[..<end] + files[(end + 1)...])
    }

    func validate() throws {
        let beforeEnd = files.prefix { $0 != "--" }
        if let option = beforeEnd.first(where: { $0.hasPrefix("-") && $0 != "-" }) { throw Self.unknownOption(option) }
        if targets.isEmpty { throw ValidationError("give at least one file or URL") }
        if targets.contains("") { throw ValidationError("an empty path was given") }
    }

    /// An option no flag takes, with how to name a file that starts with -.
    static func unknownOption(_ option: String) -> ValidationError {
        ValidationError("Unknown option '\(option)'; for a file of that name, write ./\(option) (or put -- before it)")
    }

    func run() throws {
        let status = try Self.perform(targets, waiting: wait, registryOptions: registryOptions, program: "uti")
        if status != 0 { throw ExitCode(status) }
    }

    /// xdg-open's exit codes (xdg-open(1)), which `uti open` follows.
    enum Code {
        /// An error in the command line.
        static let syntax: Int32 = 1
        /// A file on the command line does not exist.
        static let fileMissing: Int32 = 2
        /// A required tool could not be found: no application opens it.
        static let noApplication: Int32 = 3
        /// The action failed: an application could not be started, or exited non-zero.
        static let failed: Int32 = 4
    }

    /// Opens `arguments` with their default applications; `waiting`, waits
    /// for each. Returns the exit code (`Code`); messages start with `program`.
    static func perform(
        _ arguments: [String], waiting: Bool, registryOptions: RegistryOptions, program: String
    ) throws -> Int32 {
        func say(_ message: TerminalText) { Console.error(("\(program): " as TerminalText) + message) }
        // Only what bears on the arguments: a broken entry elsewhere must not speak in every call.
        let resolver = try registryOptions.resolverOrExit(program: program, reportingCatalog: false)
        let typing = FileTyping(registry: resolver.registry)
        let directory = OpenIn.currentDirectory()
        var subjects: [OpenPlan.Subject] = []
        for argument in arguments {
            switch OpenIn.subject(for: argument, directory: directory, typing: typing, sniff: true, program: program) {
            case .success(let subject) where subject.missing: say("\(argument): no such file")
            case .success(let subject): subjects.append(subject)
            case .failure(.url(let message)), .failure(.typing(let message)):
                say("\(argument): \(keepingBackslashes: message)")
            }
        }
        if subjects.count < arguments.count { return Code.fileMissing }
        let onTerminal = Opening.callerIsOnTerminal
        let plan = try OpenPlan(
            subjects, resolver: resolver, role: .any, launching: true, callerIsOnTerminal: onTerminal)
        var unopened = false
        for entry in plan.entries {
            let subject = entry.subject
            if entry.handler == nil {
                unopened = true
                say(Opening.noApplication(for: subject))
                Opening.explain(entry, resolver.catalog, program: program)
            } else if let problem = entry.commandProblem {
                unopened = true
                say("\(subject.label): \(keepingBackslashes: problem)")
                Opening.explain(entry, resolver.catalog, program: program)
            }
        }
        if unopened { return Code.noApplication }
        switch plan.commands(callerIsOnTerminal: onTerminal) {
        case .success(let commands):
            let outcome = Opening.launch(commands, waiting: waiting, program: program)
            return outcome.notStarted + outcome.failed > 0 ? Code.failed : 0
        case .failure(let problem):
            say("\(keepingBackslashes: problem.message)")
            return Code.noApplication
        }
    }
}

/// Starting the commands of an `OpenPlan`, for `uti open` and `uti open-in`.
enum Opening {
    /// Standard input and output are a terminal: an entry with
    /// `Terminal=true` runs in it.
    static var callerIsOnTerminal: Bool { isatty(0) == 1 && isatty(1) == 1 }

    /// Names on standard error (after `program`) the problems found in the
    /// files of the applications considered for `entry`, which is not opened.
    static func explain(_ entry: OpenPlan.Entry, _ catalog: HandlerCatalog, program: String) {
        for diagnostic in entry.diagnostics(in: catalog) where diagnostic.severity != .note {
            Console.error("\(program): \(keepingBackslashes: "\(diagnostic)")" as TerminalText)
        }
    }

    /// Why `subject` is not opened when no application opens it.
    static func noApplication(for subject: OpenPlan.Subject) -> TerminalText {
        if let scheme = subject.scheme {
            return "\(subject.label): no application opens URLs of scheme \(scheme.name)"
        }
        let mime: TerminalText = (subject.mimeType ?? subject.type.preferredMIMEType).map { " (\($0))" } ?? ""
        return "\(subject.label): no application opens \(subject.type.identifier)" + mime
    }

    /// How many commands could not be started, and how many of those
    /// waited for exited non-zero.
    struct Outcome {
        var notStarted = 0
        var failed = 0
    }

    /// Starts each of `commands` in turn, never through a shell, saying on
    /// standard error (after `program`) why one could not be started or
    /// how one waited for ended. A command is started detached and not
    /// waited for, unless `waiting`; one that runs in this terminal is run
    /// in the foreground and waited for, `uti` ignoring the terminal's
    /// SIGINT and SIGQUIT meanwhile, as `system(3)` does.
    static func launch(_ commands: [OpenPlan.Command], waiting: Bool, program: String) -> Outcome {
        // What was printed comes before anything the commands print.
        fflush(nil)
        var outcome = Outcome()
        for command in commands {
            let argv = command.arguments
            do throws(SystemError) {
                let status: Int32
                if command.inCallersTerminal {
                    let interrupt = signal(SIGINT, SIG_IGN)
                    let quit = signal(SIGQUIT, SIG_IGN)
                    defer {
                        signal(SIGINT, interrupt)
                        signal(SIGQUIT, quit)
                    }
                    status = try command.run(bytes: PathText.bytes)
                } else if waiting {
                    status = try command.run(bytes: PathText.bytes)
                } else {
                    _ = try command.start(
                        standardOutput: isatty(1) == 1 ? 1 : nil, standardError: isatty(2) == 1 ? 2 : nil,
                        bytes: PathText.bytes)
                    continue
                }
                if status != 0 {
                    outcome.failed += 1
                    Console.error("\(program): \(command: argv) exited with status \(Int(status))" as TerminalText)
                }
            } catch {
                outcome.notStarted += 1
                Console.error(
                    "\(program): \(argv[0]): cannot start: \(keepingBackslashes: error.reason)" as TerminalText)
            }
        }
        return outcome
    }
}

/// `uti` run under the name `xdg-open`: xdg-open's arguments (one file or
/// URL; `--help`, `--manual`, `--version`) and exit codes, opening as
/// `uti open` does.
enum XDGOpen {
    /// Whether `argument0`, the name the program was run by, is `xdg-open`.
    static func isRunAs(_ argument0: String) -> Bool {
        argument0.split(separator: "/", omittingEmptySubsequences: false).last == "xdg-open"
    }

    static let usage = """
        xdg-open (uti): open a file or URL with its default application

        Synopsis

        xdg-open { file | URL }

        xdg-open { --help | --manual | --version }

        """

    static let moreHelp = "Use 'xdg-open --manual' for additional info.\n"

    static let manual = """
        XDG-OPEN (uti)

        NAME
            xdg-open - open a file or URL with its default application

        SYNOPSIS
            xdg-open { file | URL }
            xdg-open { --help | --manual | --version }

        DESCRIPTION
            This xdg-open is uti run under that name. It opens one file or URL as
            'uti open' does: with the default application the mimeapps.list files,
            desktop entries and app bundles give (the first one 'uti open-in' lists),
            and returns once the application has started. A URL is opened by the
            application for its scheme (x-scheme-handler/SCHEME); a file: URL is its
            local file. An entry with Terminal=true runs in the terminal xdg-open runs
            in when its standard input and output are one, else in a terminal
            emulator (xdg-terminal-exec, $TERMINAL -e, x-terminal-emulator -e).

        OPTIONS
            --help     Show the synopsis.
            --manual   Show this page.
            --version  Show the version of uti.

        EXIT CODES
            0  Success.
            1  An error in the command line.
            2  The file does not exist (or a file: URL names no local file).
            3  No application opens it (or it runs in a terminal and none was found).
            4  The application could not be started.

        SEE ALSO
            uti help open, uti help open-in

        """

    /// Answers `arguments` (the program's name first) as xdg-open does;
    /// returns the exit code.
    static func main(_ arguments: [String]) -> Int32 {
        let words = Array(arguments.dropFirst())
        // As xdg-open: any of these, wherever it is, answers alone.
        for word in words {
            switch word {
            case "--help":
                StandardOutput.write(usage + moreHelp)
                return 0
            case "--manual":
                StandardOutput.write(manual)
                return 0
            case "--version":
                StandardOutput.line("xdg-open (uti \(UTI.version))")
                return 0
            default: continue
            }
        }
        func syntax(_ message: TerminalText) -> Int32 {
            Console.error(("xdg-open: " as TerminalText) + message)
            Console.raw("Try 'xdg-open --help' for more information.\n")
            return Open.Code.syntax
        }
        guard let first = words.first, !first.isEmpty else {
            Console.raw(usage + moreHelp)
            return Open.Code.syntax
        }
        var target: String?
        for word in words {
            if word.hasPrefix("-") {
                return syntax("unexpected option '\(word)'; for a file of that name, write ./\(word)")
            }
            if target != nil { return syntax("unexpected argument '\(word)'") }
            target = word
        }
        guard let target, !target.isEmpty else { return syntax("file or URL argument missing") }
        do {
            return try Open.perform(
                [target], waiting: false, registryOptions: RegistryOptions.parse([]), program: "xdg-open")
        } catch let code as ExitCode {
            return code.rawValue
        } catch {
            Console.error("xdg-open: \(keepingBackslashes: "\(error)")" as TerminalText)
            return Open.Code.failed
        }
    }
}
