import ArgumentParser
import DocumentHandlers
import FolderWatching
import SystemBase
import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: CommandName.watch.rawValue,
        abstract: "Print each settled change in folders, typed: added, removed, changed, renamed.",
        discussion: """
            One line per change, as it settles: "added PATH: TYPE (MIME)", "changed
            PATH: TYPE (MIME)", "renamed OLD -> NEW: TYPE (MIME)", "removed PATH"; types
            as uti file gives them. An added or changed file is printed once unchanged
            for --settle seconds and no process has it open for writing (the rules of
            uti inbox); a folder at once. A file created and removed before it settles
            is not printed. When events may have been lost (the kernel's queue
            overflowed) or a watched folder was moved or removed, the folder is listed
            again, "rescan FOLDER: REASON" is printed, and then the differences.
            Names are escaped as uti inbox escapes them; in JSON a name that is not
            UTF-8 also comes as hex ("pathHex").

            --ignore GLOB leaves out items whose path inside the watched folder
            matches: never printed, never read, and a folder left out is not
            watched or entered. * and ? match within a name, [a-z] and [!0-9] one
            character of a class, ** whole folders (**/tmp, a/**/b, a/**), \\ makes
            the next character literal. A pattern without / matches a name at any
            depth; one with a / is matched from the watched folder (a leading / only
            anchors it: /build); a trailing / matches folders only (build/). By
            default the files editors, downloads and version control keep for
            themselves are left out too (--no-default-ignore prints them):
            \(IgnoreOptions.defaults).

            "uti: watching ..." on standard error says the watch has begun. Stop with
            SIGINT or SIGTERM: exit 0. Exit 2 for bad arguments or a folder that
            cannot be watched (missing, not a folder, a watch limit reached: the
            limit is named); 1 when the watch cannot go on (a watch limit reached
            later, or the folder holding a removed watched folder gone too). A
            subfolder whose permissions refuse a watch is named on standard error;
            the watch goes on without it.

            --exec runs a command for each change, after its line is printed, without
            a shell: every argument after --exec is the command, "{}" in it is
            replaced by the path, and UTI_EVENT, UTI_PATH, UTI_OLD_PATH, UTI_TYPE and
            UTI_MIME are set. Changes wait while it runs. A command that fails is
            named on standard error and the watch goes on; SIGINT or SIGTERM while it
            runs is passed on to it, and uti stops once it has ended.
              uti watch ~/Downloads --type public.image --exec notify-send "new image" {}
            """)

    @OptionGroup var registryOptions: RegistryOptions
    @Flag(name: [.customShort("r"), .customLong("recursive")], help: "Watch subfolders too.")
    var recursive = false
    @Flag(help: "Print one JSON object a line (the schema is in docs/json.md).")
    var json = false
    @Option(
        name: .customLong("type"),
        help: ArgumentHelp(
            "Print only items whose type conforms to this one (public.image, jpg, image/png).", valueName: "type"),
        completion: .typeNames)
    var type: String?
    // Unconditional, so that "--settle -1" is refused for its value rather than read as a missing one.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Print an added or changed file once unchanged this long and not open for writing (default 2).",
            valueName: "seconds"))
    var settle: Double = 2
    @Flag(
        name: .customLong("no-writer-check"),
        help: "Do not wait for processes that have a file open for writing.")
    var noWriterCheck = false
    @Flag(help: "Print what the folders hold first, as added.")
    var initial = false
    @OptionGroup var ignoreOptions: IgnoreOptions
    @Option(
        name: .customLong("exec"), parsing: .remaining,
        help: ArgumentHelp("Run this command for each change (every argument after --exec).", valueName: "command"))
    var command: [String] = []
    @Argument(help: "The folders to watch.", completion: .directory)
    var folders: [String]

    func validate() throws {
        if folders.isEmpty { throw ValidationError("give at least one folder") }
        if folders.contains("") { throw ValidationError("an empty folder path was given") }
        if !settle.isFinite || settle < 0 || settle > 86_400 {
            throw ValidationError("--settle \(settle): give seconds from 0 to 86400")
        }
        if let type, type.isEmpty { throw ValidationError("--type needs a type") }
        // `--exec` takes every argument after it: given with none, or an empty program, it would run nothing.
        let arguments = PathText.commandLineArguments()
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        if arguments[..<end].contains("--exec") && command.isEmpty {
            throw ValidationError("--exec needs a command: every argument after it")
        }
        if let program = command.first {
            if program.isEmpty { throw ValidationError("--exec: the command is empty") }
            if !Self.canRun(program) { throw ValidationError("--exec: \(program): no such program (on PATH)") }
        }
    }

    /// Whether `program` names an executable file: itself when it holds a
    /// `/`, else the first match on `PATH`, as `posix_spawnp` looks.
    static func canRun(_ program: String) -> Bool {
        if program.contains("/") { return access(program, X_OK) == 0 }
        let path = EnvironmentVariable.path.value(in: ProcessEnvironment.current) ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":", omittingEmptySubsequences: false).contains { folder in
            let candidate = (folder.isEmpty ? "." : String(folder)) + "/" + program
            var info = stat()
            return access(candidate, X_OK) == 0 && stat(candidate, &info) == 0 && !info.isDirectory
        }
    }

    func run() throws {
        let registry = try registryOptions.load()
        var options = FolderWatcher.Options()
        options.recursive = recursive
        options.settle = SettlePolicy(interval: settle, checkWriters: !noWriterCheck)
        options.reportsExisting = initial
        options.ignore = try ignoreOptions.patterns()
        if let type {
            options.conformingTo = try QueryResolver(registry: registry).declaredArgument(type, "--type")
        }
        let watcher = FolderWatcher(
            folderPaths: folders.map(PathText.bytes), options: options, typing: FileTyping(registry: registry))
        let printer = WatchPrinter(json: json, command: command)
        let signal: Int32
        do {
            signal = try watcher.run { printer.handle($0, folders: folders.count) }
        } catch {
            fflush(nil)
            Console.error("uti: \(error)")
            throw ExitCode(printer.started ? Status.no : Status.error)
        }
        fflush(nil)
        Console.error("uti: stopped by \(signal == SIGINT ? "SIGINT" : "SIGTERM")")
    }
}

/// Prints a watch's reports, one line (or JSON object) each, flushed as it
/// is printed, and runs the `--exec` command for each change.
final class WatchPrinter {
    let json: Bool
    let command: [String]
    /// Whether the watch began (later failures exit 1, not 2).
    private(set) var started = false
    /// Set once SIGINT or SIGTERM came while a command ran: no more are run.
    private var stopping = false

    init(json: Bool, command: [String]) {
        self.json = json
        self.command = command
    }

    func handle(_ report: FolderWatchReport, folders: Int) {
        switch report {
        case .ready(let items):
            started = true
            Console.error(
                "uti: watching \(folders) folder\(folders == 1 ? "" : "s") (\(items) item\(items == 1 ? "" : "s"))")
        case .rescanned(let root, let reason):
            if json {
                print(
                    JSON.object([("event", .string("rescan")), ("folder", .string(root)), ("reason", .string(reason))])
                        .serialized(indent: nil))
            } else {
                // The folder's name comes escaped.
                TerminalText.print("rescan \(keepingBackslashes: root): \(keepingBackslashes: reason)")
            }
            fflush(nil)
        case .notWatched(let path, let reason):
            // The folder's name comes escaped.
            Console.error(
                "uti: \(keepingBackslashes: path): cannot watch: \(keepingBackslashes: reason); changes inside it are not reported"
                    as TerminalText)
        case .event(let event):
            // Once a stop came while a command ran, the rest of the pass is not printed: each line printed had
            // its command.
            if stopping { return }
            print(json ? Self.json(event).serialized(indent: nil) : Self.line(event).string)
            fflush(nil)
            if !command.isEmpty { run(for: event) }
        }
    }

    /// SIGKILL, SIGTERM…: the name `kill -l` gives, with its prefix.
    static func signalName(_ signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGABRT: "SIGABRT",
            SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV", SIGPIPE: "SIGPIPE",
            SIGALRM: "SIGALRM", SIGTERM: "SIGTERM", SIGUSR1: "SIGUSR1", SIGUSR2: "SIGUSR2",
        ]
        return names[signal] ?? "signal \(signal)"
    }

    /// The line of a change; its paths come escaped.
    static func line(_ event: FolderEvent) -> TerminalText {
        var text: TerminalText = "\(event.change.rawValue) "
        if let old = event.displayOldPath { text += "\(keepingBackslashes: old) -> " }
        text += "\(keepingBackslashes: event.displayPath)"
        if let result = event.type {
            text += ": \(result.type.identifier)"
            let mime = FileCommand.mimeType(result)
            if !mime.isEmpty { text += " (\(mime))" }
        }
        return text
    }

    static func json(_ event: FolderEvent) -> JSON {
        var members: [(String, JSON)] = [("event", .string(event.change.rawValue))]
        members += JSON.path("path", bytes: event.path)
        if let old = event.oldPath { members += JSON.path("from", bytes: old) }
        members.append(("kind", .string(event.kind.rawValue)))
        members.append(("type", .optional(event.type?.type.identifier)))
        members.append(("mimeType", .optional(event.type.map(FileCommand.mimeType))))
        members.append(("initial", .bool(event.isInitial)))
        return .object(members)
    }

    /// Runs the command with `{}` replaced by the path and the event in the
    /// environment; its failure is said and the watch goes on.
    private func run(for event: FolderEvent) {
        let path = PathText.text(event.path)
        let argv = command.map { $0.replacingOccurrences(of: "{}", with: path) }
        var environment = [
            "UTI_EVENT": event.change.rawValue, "UTI_PATH": path,
            "UTI_TYPE": event.type?.type.identifier ?? "", "UTI_MIME": event.type.map(FileCommand.mimeType) ?? "",
        ]
        if let old = event.oldPath { environment["UTI_OLD_PATH"] = PathText.text(old) }
        // Each argument as its bytes: a path need not be UTF-8 (see PathText). The
        // command leads a process group of its own, so a stop reaches what it started too.
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(argv.map(PathText.bytes), adding: environment, ownProcessGroup: true)
        } catch {
            Console.error("uti: \(argv[0]): cannot start: \(keepingBackslashes: error.reason)" as TerminalText)
            return
        }
        do throws(SystemError) {
            let (exit, signal) = try child.waitForwardingTermination()
            if signal != nil { stopping = true }
            if let signal = exit.signal {
                Console.error(
                    "uti: \(command: argv) was ended by signal \(Int(signal)) (\(Self.signalName(signal)))"
                        as TerminalText)
            } else if let code = exit.code, code != 0 {
                Console.error("uti: \(command: argv) exited with status \(Int(code))" as TerminalText)
            }
        } catch {
            Console.error("uti: \(argv[0]): \(keepingBackslashes: error.reason)" as TerminalText)
        }
    }
}
