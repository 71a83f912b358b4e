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
                switch handler.commands(opening: subject.target.map { [$0] } ?? []) {
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
    /// targets; made, and so checked, before any is started.
    public func commands() -> Result<[[String]], ExecCommand.Problem> {
        var commands: [[String]] = []
        for launch in launches {
            switch launch.handler.commands(opening: launch.targets) {
            case .success(let made): commands += made
            case .failure(let problem): return .failure(problem)
            }
        }
        return .success(commands)
    }
}
