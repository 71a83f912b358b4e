import SystemBase
import UniformTypes

/// What opening files and URLs with their applications comes to, before
/// anything is started: for each subject its candidates, the application
/// used and the commands it would run; and the launches, one per
/// application, each with every target it opens (so `%F` and `%U` receive
/// them all at once).
public struct OpenPlan: Sendable {
    /// One thing to open or ask about: a file, a URL or a type.
    public struct Subject: Sendable {
        /// How it was given (an argument, a type name).
        public var label: String
        /// What is opened; nil for a type asked about.
        public var target: OpenTarget?
        /// Its type: a file's by name and content, a URL's scheme type.
        public var type: UniformType
        /// Its MIME type, when it has one.
        public var mimeType: String?
        /// The URL scheme of a URL, or of a type named as `x-scheme-handler/…`.
        public var scheme: URLScheme?
        /// A file argument where nothing is: typed by its name, never opened.
        public var missing: Bool

        /// A subject; `target` nil for a type asked about.
        public init(
            label: String, target: OpenTarget? = nil, type: UniformType, mimeType: String? = nil,
            scheme: URLScheme? = nil,
            missing: Bool = false
        ) {
            self.label = label
            self.target = target
            self.type = type
            self.mimeType = mimeType
            self.scheme = scheme
            self.missing = missing
        }
    }

    /// What was decided for one subject.
    public struct Entry: Sendable {
        /// What it is for.
        public var subject: Subject
        /// The candidates for its type, best first.
        public var resolution: HandlerResolver.Resolution
        /// The application used: the one asked for, the one chosen, else the default.
        public var handler: HandlerResolver.Handler?
        /// Why `handler` is not the default (`--app`, `chosen`), when it is given another way.
        public var note: String?
        /// The commands `handler` runs for this subject alone.
        public var command: [[String]]?
        /// Why `handler` has no command for it.
        public var commandProblem: String?
        /// The selector's exit status, when it was asked and chose nothing.
        public var cancelledWithStatus: Int32?

        /// The problems `catalog` found in the files of the applications
        /// considered: the file of the application used (its desktop entry,
        /// its app bundle), else those of the ones turned away
        /// (`resolution.excluded`). They bear on this subject, where the
        /// catalog's other problems do not.
        public func diagnostics(in catalog: HandlerCatalog) -> [Diagnostic] {
            var files: Set<String> = []
            switch handler?.source {
            case .desktopEntry(let entry)?: files.insert(entry.path)
            case .bundle(let bundle)?: files.insert(bundle.path)
            case nil: files.formUnion(resolution.excluded.map(\.claim.file))
            }
            return catalog.diagnostics.filter { diagnostic in
                files.contains(diagnostic.file) || files.contains { diagnostic.file.hasPrefix($0 + "/") }
            }
        }
    }

    /// One application and every target it opens.
    public struct Launch: Sendable {
        /// The application.
        public var handler: HandlerResolver.Handler
        /// The files and URLs it opens, in the order given.
        public var targets: [OpenTarget]
    }

    /// One entry per subject, in the order given.
    public private(set) var entries: [Entry] = []
    /// One launch per application, in the order first used.
    public private(set) var launches: [Launch] = []
    /// Some subject has no application (or none was chosen).
    public private(set) var hasUnopened = false

    /// Decides, for each subject, the application: `application` when
    /// given, else the one `choose` picks among several candidates (when
    /// given; it is not asked about a missing file), else the default.
    /// Missing files are never launched, and URLs and files only when
    /// `launching`.
    public init(
        _ subjects: [Subject], resolver: HandlerResolver, role: HandlerResolver.RoleFilter,
        application: HandlerResolver.Handler? = nil, launching: Bool,
        choose: ((Subject, [HandlerResolver.Candidate]) throws -> HandlerSelector.Choice)? = nil
    ) throws {
        try self.init(
            subjects, resolver: resolver, role: role, application: application, launching: launching,
            callerIsOnTerminal: false, choose: choose)
    }

    /// Decides as `init(_:resolver:role:application:launching:choose:)`
    /// does; with `callerIsOnTerminal`, each entry's `command` for an entry
    /// with `Terminal=true` is the one run in the caller's terminal, as
    /// `commands(callerIsOnTerminal:environment:)` makes it.
    public init(
        _ subjects: [Subject], resolver: HandlerResolver, role: HandlerResolver.RoleFilter,
        application: HandlerResolver.Handler? = nil, launching: Bool, callerIsOnTerminal: Bool,
        choose: ((Subject, [HandlerResolver.Candidate]) throws -> HandlerSelector.Choice)? = nil
    ) throws {
        for subject in subjects {
            let resolution = resolver.resolve(subject.type, role: role)
            var entry = Entry(
                subject: subject, resolution: resolution,
                handler: application ?? resolution.defaultCandidate?.handler, note: application == nil ? nil : "--app")
            if let choose, resolution.candidates.count > 1, !subject.missing {
                switch try choose(subject, resolution.candidates) {
                case .chosen(let picked):
                    entry.handler = picked
                    entry.note = "chosen"
                case .cancelled(let status):
                    entry.handler = nil
                    entry.cancelledWithStatus = status
                    hasUnopened = true
                }
            }
            if resolution.candidates.isEmpty && application == nil { hasUnopened = true }
            if let handler = entry.handler {
                let inTerminal = callerIsOnTerminal && Self.runsInTerminal(handler)
                let targets = subject.target.map { [$0] } ?? []
                switch Self.commands(
                    handler, opening: targets, inCallersTerminal: inTerminal, ProcessEnvironment.current)
                {
                case .success(let argv): entry.command = argv
                case .failure(let problem): entry.commandProblem = problem.message
                }
                if launching && !subject.missing, let target = subject.target {
                    if let index = launches.firstIndex(where: { $0.handler.id == handler.id }) {
                        launches[index].targets.append(target)
                    } else {
                        launches.append(Launch(handler: handler, targets: [target]))
                    }
                }
            }
            entries.append(entry)
        }
    }

    /// Every command the launches run, each application's for all its
    /// targets; made, and so checked, before any is started. An entry with
    /// `Terminal=true` runs in a terminal emulator.
    public func commands() -> Result<[[String]], ExecCommand.Problem> {
        commands(callerIsOnTerminal: false).map { $0.map(\.arguments) }
    }

    /// Every command the launches run, as `commands()` makes them; with
    /// `callerIsOnTerminal` (the caller's standard input and output are a
    /// terminal), an entry with `Terminal=true` runs as it is, in that
    /// terminal (``Command/inCallersTerminal``), else in the terminal
    /// emulator `ExecCommand.terminal(environment:)` finds in `environment`.
    public func commands(
        callerIsOnTerminal: Bool, environment: [String: String] = ProcessEnvironment.current
    ) -> Result<[Command], ExecCommand.Problem> {
        var commands: [Command] = []
        for launch in launches {
            let inTerminal = callerIsOnTerminal && Self.runsInTerminal(launch.handler)
            switch Self.commands(launch.handler, opening: launch.targets, inCallersTerminal: inTerminal, environment) {
            case .success(let made): commands += made.map { Command(arguments: $0, inCallersTerminal: inTerminal) }
            case .failure(let problem): return .failure(problem)
            }
        }
        return .success(commands)
    }

    /// One command of a plan and where it runs.
    public struct Command: Sendable, Equatable {
        /// The program and its arguments.
        public var arguments: [String]
        /// The command is an entry's with `Terminal=true`, run in the
        /// caller's own terminal: it is run in the foreground and waited
        /// for, never started detached.
        public var inCallersTerminal: Bool

        /// A command; `inCallersTerminal` when it runs in the caller's terminal.
        public init(arguments: [String], inCallersTerminal: Bool = false) {
            self.arguments = arguments
            self.inCallersTerminal = inCallersTerminal
        }

        /// Starts the command and returns once the program is running,
        /// without waiting for it to end, as `gio open` and `xdg-open`
        /// start an application: it runs in a session of its own (it
        /// outlives the terminal it was started from), is not a child of
        /// the caller (nothing to wait for, no zombie when it ends), and
        /// reads its standard input from `/dev/null`. Its standard output
        /// and error are the caller's descriptors `standardOutput` and
        /// `standardError`, or `/dev/null` when nil. `bytes` gives each
        /// argument's bytes (a path need not be UTF-8). Returns the
        /// program's process ID; throws why it could not be started (the
        /// program missing or not executable, with the `errno`).
        public func start(
            standardOutput: Int32? = nil, standardError: Int32? = nil,
            bytes: (String) -> [UInt8] = { Array($0.utf8) }
        ) throws(SystemError) -> Int32 {
            try ChildProcess.startDetached(
                arguments.map(bytes), standardOutput: standardOutput, standardError: standardError)
        }

        /// Runs the command with the caller's standard input, output and
        /// error and waits for it to end; returns its exit status as a shell
        /// gives it (128 plus the signal that ended it). Throws why it could
        /// not be started or waited for.
        public func run(bytes: (String) -> [UInt8] = { Array($0.utf8) }) throws(SystemError) -> Int32 {
            try ChildProcess.spawn(arguments.map(bytes)).wait().shellStatus
        }
    }

    /// Whether `handler` is a desktop entry with `Terminal=true`.
    static func runsInTerminal(_ handler: HandlerResolver.Handler) -> Bool {
        if case .desktopEntry(let entry) = handler.source { entry.terminal } else { false }
    }

    /// `handler`'s commands for `targets`; `inCallersTerminal`, an entry's
    /// command as it is, without a terminal emulator around it.
    static func commands(
        _ handler: HandlerResolver.Handler, opening targets: [OpenTarget], inCallersTerminal: Bool,
        _ environment: [String: String]
    ) -> Result<[[String]], ExecCommand.Problem> {
        var handler = handler
        if inCallersTerminal, case .desktopEntry(var entry) = handler.source {
            entry.terminal = false
            handler.source = .desktopEntry(entry)
        }
        return handler.commands(opening: targets, environment: environment)
    }
}
