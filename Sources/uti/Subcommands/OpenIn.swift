import ArgumentParser
import DocumentHandlers
import SystemBase
import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

struct OpenIn: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: CommandName.openIn.rawValue,
        abstract: "Which applications open each file, URL (or type), best first, and the command that would open it.",
        discussion: """
            Handlers come from app bundles (--apps, UTI_APPS, uti/apps under the XDG data
            folders: CFBundleDocumentTypes, CFBundleURLTypes) and desktop entries
            (applications/*.desktop: MimeType), with the defaults and associations of the
            mimeapps.list files (XDG config folders, then data folders;
            DESKTOP-mimeapps.list first).

            An argument that starts with a scheme and a colon (https://example.org,
            mailto:me@example.org) is a URL, as GIO reads it; a file: URL is its local
            path; write ./a:b for a file whose name looks like a URL. A URL is opened by
            the applications that claim its scheme (x-scheme-handler/SCHEME,
            CFBundleURLSchemes), and its type is the scheme's public.url-scheme type.

            A file's type and its supertypes are tried nearest first; for each, the
            defaults set for it (those for the --role asked for first), then the
            applications that declare it: Owner, Default, Alternate (desktop entries count
            as Default). A rank or role of None is never offered. The first candidate is
            the default, marked "*".

            The command is printed with its arguments quoted ($'...' for control
            characters) and is never passed through a shell. --run starts it (one per file
            for %f/%u, one for all for %F/%U) and returns once each application has
            started, printing nothing but errors (--verbose prints the candidates and
            commands first); --wait waits for each to exit. An entry with Terminal=true
            runs in the terminal uti runs in when its standard input and output are one
            (uti waits for it), else in xdg-terminal-exec, $TERMINAL -e or
            x-terminal-emulator -e. %u/%U give a URL as it is; a command with %f/%F
            cannot open a URL and is refused. uti open opens with the first candidate.

            --choose asks which application to open each file or URL with, when more than
            one can: the candidates go, one "ID  Name" a line, to a selector program (the
            --selector command, else UTI_SELECTOR, else the first found of fzf when
            standard input is a terminal, and rofi -dmenu, wofi --dmenu, dmenu on a
            graphical display), quoted as a desktop entry's Exec and run without a shell;
            the line it prints is the choice, which is then opened as --run opens it.

            --app ID --list prints every type and scheme the application claims, and
            marks "*" those it is the default for.

            Exit status: 0 every file has an application that can open it (and with --run
            or --choose, every command started, and with --wait exited 0); 1 some file
            has none, or its application has no command for it ("command: none"; with
            --run nothing is started then), a command waited for failed, or nothing was
            chosen; 2 bad arguments or sources, a command that cannot be started, no
            selector, or an answer that is none of the candidates. --run and --choose
            say on standard error why an item is not opened.
            """)

    @OptionGroup var registryOptions: RegistryOptions
    @OptionGroup var output: OutputOptions
    @Option(
        name: .customLong("type"),
        help: ArgumentHelp(
            "A type to resolve instead of a file: extension, MIME type or identifier (repeatable).", valueName: "type"),
        completion: .typeNames)
    var types: [String] = []
    @Option(
        help: ArgumentHelp(
            "Only applications with this role: any (or all), viewer (Viewer, Editor, desktop entries), editor, shell.",
            valueName: "role"),
        completion: .list(["any", "all", "viewer", "editor", "shell"]))
    var role: String = "any"
    @Option(
        help: ArgumentHelp(
            "Use this application (desktop file ID or bundle identifier) for the command instead of the default.",
            valueName: "id"),
        completion: .applicationIDs)
    var app: String?
    @Flag(
        name: .customLong("list"),
        help: "With --app: every type and scheme the application claims, and whether it is the default.")
    var listClaims = false
    @Flag(
        name: .customLong("run"),
        help: "Start the command for each file or URL (without a shell); return once each has started.")
    var runCommand = false
    @Flag(help: "With --run or --choose: wait for each application to exit.")
    var wait = false
    @Flag(
        name: [.customLong("verbose"), .customShort("v")],
        help: "With --run or --choose: print the candidates and commands too, as without them.")
    var verbose = false
    @Flag(
        name: .customLong("choose"),
        help: "Ask which application to use (with a selector such as fzf or rofi -dmenu), then open with it.")
    var choose = false
    @Option(
        help: ArgumentHelp(
            "The selector --choose runs, quoted as a desktop entry's Exec (rofi -dmenu -p 'Open with').",
            valueName: "command"))
    var selector: String?
    @Flag(name: .customLong("no-sniff"), help: "Type files by name alone; never read them.")
    var noSniff = false
    @Argument(
        help:
            "Files or URLs to open; a file where nothing is is typed by its name and marked (exit 1 unless --no-sniff; --run never opens it).",
        completion: .file())
    var files: [String] = []

    var roleFilter: HandlerResolver.RoleFilter? { role == "all" ? .any : HandlerResolver.RoleFilter(rawValue: role) }

    func validate() throws {
        if listClaims {
            if app == nil { throw ValidationError("--list needs --app ID: the application whose types to list") }
            if !files.isEmpty || !types.isEmpty || runCommand {
                throw ValidationError("--list takes no files, --type or --run")
            }
        } else if files.isEmpty && types.isEmpty {
            throw ValidationError("give at least one file, URL or --type")
        }
        if files.contains("") { throw ValidationError("an empty path was given") }
        if roleFilter == nil {
            throw ValidationError("--role \(role): use any, viewer, editor or shell")
        }
        if runCommand && !types.isEmpty {
            throw ValidationError("--run opens files and URLs; it cannot be used with --type")
        }
        if runCommand && output.json { throw ValidationError("--run and --json cannot be used together") }
        if choose {
            if !types.isEmpty { throw ValidationError("--choose opens files and URLs; it cannot be used with --type") }
            if output.json { throw ValidationError("--choose and --json cannot be used together") }
            if app != nil { throw ValidationError("--choose and --app cannot be used together: --app already chooses") }
        }
        if wait && !runCommand && !choose {
            throw ValidationError("--wait waits for what --run or --choose opens; give one of them too")
        }
        if selector != nil && !choose {
            throw ValidationError("--selector is the program --choose runs; give --choose too")
        }
    }

    typealias Subject = OpenPlan.Subject

    func run() throws {
        let opening = runCommand || choose
        // Listing tells every problem of the handler sources; opening, those of the applications it uses.
        let resolver = try registryOptions.resolverOrExit(reportingCatalog: !opening)
        var chosen: HandlerResolver.Handler?
        if let app {
            switch resolver.handler(app) {
            case .success(let handler): chosen = handler
            case .failure(let error):
                if !(listClaims && resolver.claims(of: app).count > 0) {
                    throw Console.fail("--app \(app): \(keepingBackslashes: error.message)" as TerminalText)
                }
            }
        }
        if listClaims, let app {
            return try listClaims(of: app, handler: chosen, resolver: resolver, role: roleFilter!)
        }
        var (subjects, failed, results) = try fileSubjects(resolver.registry)
        let query = QueryResolver(registry: resolver.registry)
        for name in types {
            if let scheme = URLScheme(handlerMIMEType: name) {
                let type = scheme.type(in: resolver.registry)
                subjects.append(Subject(label: name, type: type, mimeType: scheme.handlerMIMEType, scheme: scheme))
                continue
            }
            let type = try query.argument(name, "--type")
            subjects.append(Subject(label: name, type: type, mimeType: type.preferredMIMEType))
        }
        var selectorFound: HandlerSelector?
        let plan = try OpenPlan(
            subjects, resolver: resolver, role: roleFilter!, application: chosen, launching: opening,
            callerIsOnTerminal: opening && Opening.callerIsOnTerminal,
            choose: !choose
                ? nil
                : { _, candidates in
                    let selector = try selectorFound ?? resolvedSelector()
                    selectorFound = selector
                    do throws(HandlerSelector.Problem) { return try selector.choose(among: candidates) } catch {
                        throw Console.fail("\(keepingBackslashes: error.message)" as TerminalText)
                    }
                })
        // An application without a command for its item ("command: none"): the item cannot be opened.
        var cannotRun = false
        for entry in plan.entries {
            if let status = entry.cancelledWithStatus {
                Console.error(
                    "uti: \(entry.subject.label): no application chosen"
                        + (status == 0 ? "" : " (the selector exited with status \(Int(status)))") + "; not opened"
                        as TerminalText)
            }
            if entry.handler != nil && entry.subject.missing && opening {
                Console.error("uti: \(entry.subject.label): no such file; not opened" as TerminalText)
            }
            if opening && entry.handler == nil && entry.cancelledWithStatus == nil {
                Console.error(("uti: " as TerminalText) + Opening.noApplication(for: entry.subject))
                Opening.explain(entry, resolver.catalog, program: "uti")
            }
            if let problem = entry.commandProblem, entry.handler != nil, !(opening && entry.subject.missing) {
                cannotRun = true
                if opening {
                    Console.error("uti: \(entry.subject.label): \(keepingBackslashes: problem)" as TerminalText)
                    Opening.explain(entry, resolver.catalog, program: "uti")
                }
            }
            if output.json {
                results.append(Self.json(entry))
            } else if !opening || verbose {
                TerminalText.print(Self.text(entry))
            }
        }
        if output.json { print(JSON.array(results).serialized()) }
        // As uti open: an item its application cannot open is one with none, and nothing is started.
        if cannotRun { throw ExitCode(Status.no) }
        if opening, try !Self.launch(plan, waiting: wait) { failed = true }
        if failed || plan.hasUnopened { throw ExitCode(Status.no) }
    }

    /// The files and URLs of the command line, typed; whether one could not
    /// be (said on standard error), and its JSON error objects.
    private func fileSubjects(_ registry: TypeRegistry) throws -> ([Subject], Bool, [JSON]) {
        var subjects: [Subject] = []
        var failed = false
        var results: [JSON] = []
        let typing = FileTyping(registry: registry)
        let directory = Self.currentDirectory()
        for argument in files {
            switch Self.subject(for: argument, directory: directory, typing: typing, sniff: !noSniff, program: "uti") {
            case .success(let subject):
                subjects.append(subject)
                // A script must be able to tell; --no-sniff asks about names alone.
                if subject.missing && !noSniff {
                    failed = true
                    Console.error("uti: \(argument): no such file; typed by its name" as TerminalText)
                }
            case .failure(.url(let message)):
                throw Console.fail("\(argument): \(keepingBackslashes: message)" as TerminalText)
            case .failure(.typing(let reason)):
                failed = true
                Console.error("uti: \(argument): \(keepingBackslashes: reason)" as TerminalText)
                if output.json {
                    results.append(
                        .object(JSON.path("path", bytes: PathText.bytes(argument)) + [("error", .string(reason))]))
                }
            }
        }
        return (subjects, failed, results)
    }

    /// Why an argument could not be typed.
    enum ArgumentProblem: Error {
        /// A `file:` URL that names no local file.
        case url(String)
        /// A file that could not be typed (it cannot be read).
        case typing(String)
    }

    /// A file or URL of the command line, typed: a URL by its scheme, a file
    /// by its name and (`sniff`) content; a file where nothing is is typed
    /// by its name and `missing`. Says on standard error (after `program`)
    /// when a URL is also the name of something here.
    static func subject(
        for argument: String, directory: String, typing: FileTyping, sniff: Bool, program: String
    ) -> Result<Subject, ArgumentProblem> {
        let target: OpenTarget
        do { target = try OpenTarget.commandLineArgument(argument, directory: directory) } catch {
            return .failure(.url(error.description))
        }
        switch target {
        case .url(_, let scheme):
            var info = stat()
            if lstat(argument, &info) == 0 {
                Console.error(
                    "\(program): \(argument) is read as a URL (scheme \(scheme.name)); for the file, write ./\(argument)"
                        as TerminalText)
            }
            return .success(
                Subject(
                    label: argument, target: target, type: scheme.type(in: typing.registry),
                    mimeType: scheme.handlerMIMEType, scheme: scheme))
        case .file(let path):
            do {
                let result = try typing.type(forPath: PathText.bytes(path), options: FileTyping.Options(sniff: sniff))
                return .success(
                    Subject(
                        label: argument, target: target, type: result.type, mimeType: result.mimeType,
                        missing: !result.exists))
            } catch { return .failure(.typing(error.reason)) }
        }
    }

    static func currentDirectory() -> String {
        guard let cwd = getcwd(nil, 0) else { return "." }
        defer { free(cwd) }
        return String(cString: cwd)
    }

    /// The selector `--choose` runs: `--selector`, else the environment's.
    func resolvedSelector() throws -> HandlerSelector {
        if let selector {
            do { return try HandlerSelector(commandLine: selector) } catch {
                throw Console.fail("--selector: \(keepingBackslashes: error.message)" as TerminalText)
            }
        }
        switch HandlerSelector.standard(environment: ProcessEnvironment.current, inputIsTerminal: isatty(0) == 1) {
        case .success(let found): return found
        case .failure(let problem): throw Console.fail("\(keepingBackslashes: problem.message)" as TerminalText)
        }
    }

    static func text(_ entry: OpenPlan.Entry) -> TerminalText {
        let (subject, resolution, handler, note) = (entry.subject, entry.resolution, entry.handler, entry.note)
        let (command, problem) = (entry.command, entry.commandProblem)
        let mime = subject.mimeType ?? subject.type.preferredMIMEType
        var lines: [TerminalText]
        if let scheme = subject.scheme {
            lines = ["\(subject.label): URL scheme \(scheme.name) (\(subject.type.identifier))"]
            if resolution.candidates.isEmpty { lines.append("  no application opens URLs of scheme \(scheme.name)") }
        } else {
            lines = [
                "\(subject.label): \(subject.type.identifier)" + (mime.map { " (\($0))" } ?? "")
                    + (subject.missing ? "; no such file" : "")
            ]
            if resolution.candidates.isEmpty {
                lines.append("  no application opens \(subject.type.identifier) or its supertypes")
            }
        }
        let ids = resolution.candidates.map { "\($0.handler.id)" as TerminalText }
        let width = ids.map(\.count).max() ?? 0
        for (index, (candidate, id)) in zip(resolution.candidates, ids).enumerated() {
            let mark: TerminalText = index == 0 ? "*" : " "
            lines.append(
                "  \(mark) \(id.padding(width + 1)) \(candidate.handler.name)  \(keepingBackslashes: candidate.reason)")
        }
        if let handler, handler.id != resolution.defaultCandidate?.handler.id {
            lines.append("  using \(handler.id) (\(note ?? "--app"))")
        }
        if let command {
            for argv in command {
                lines.append("  command: \(command: argv)")
            }
        } else if let problem {
            lines.append("  command: none (\(keepingBackslashes: problem))")
        }
        return lines.joined(separator: "\n")
    }

    /// The fields of an application's claim on a type, in JSON.
    private static func json(_ claim: AssociationClaim) -> [(String, JSON)] {
        [
            ("claim", .string(claim.kind.rawValue)),
            ("declares", .string(claim.typeName)),
            ("declaredAs", .string(claim.typeNameKind.rawValue)),
            ("key", .string(claim.key)),
            ("file", .string(claim.file)),
            ("line", claim.position.line.map(JSON.int) ?? .null),
        ]
    }

    /// One candidate application, in JSON.
    private static func json(_ candidate: HandlerResolver.Candidate) -> JSON {
        var kind = "desktop-entry"
        if case .bundle = candidate.handler.source { kind = "bundle" }
        var fields: [(String, JSON)] = [
            ("id", .string(candidate.handler.id)),
            ("name", .string(candidate.handler.name)),
            ("kind", .string(kind)),
            ("location", .string(candidate.handler.location)),
            ("matchedType", .string(candidate.matchedType.identifier)),
            ("exact", .bool(candidate.isExact)),
            ("distance", .int(candidate.distance)),
            ("rank", .string(candidate.claim.rank.rawValue)),
            ("role", .optional(candidate.claim.role?.rawValue)),
        ]
        fields += json(candidate.claim)
        fields.append(("reason", .string(candidate.reason)))
        return .object(fields)
    }

    static func json(_ entry: OpenPlan.Entry) -> JSON {
        let (subject, resolution, handler) = (entry.subject, entry.resolution, entry.handler)
        let (command, problem) = (entry.command, entry.commandProblem)
        let candidates: [JSON] = resolution.candidates.map { json($0) }
        let excluded: [JSON] = resolution.excluded.map { exclusion in
            .object(
                [("id", .string(exclusion.id)), ("reason", .string(exclusion.reason))] + json(exclusion.claim))
        }
        var subjectKey = "query"
        switch subject.target {
        case .file?: subjectKey = "path"
        case .url?: subjectKey = "url"
        case nil: break
        }
        return .object(
            JSON.path(subjectKey, bytes: PathText.bytes(subject.label)) + [
                ("exists", .bool(!subject.missing)),
                ("type", .string(subject.type.identifier)),
                ("scheme", .optional(subject.scheme?.name)),
                ("mimeType", .optional(subject.mimeType ?? subject.type.preferredMIMEType)),
                ("default", .optional(resolution.defaultCandidate?.handler.id)),
                ("application", .optional(handler?.id)),
                // A name that is not UTF-8 is shown escaped, as in "path".
                (
                    "command",
                    command.map {
                        .array($0.map { JSON.strings($0.map { PathText.isRaw($0) ? Escaping.name($0) : $0 }) })
                    } ?? .null
                ),
                ("commandProblem", .optional(problem)),
                ("candidates", .array(candidates)),
                ("excluded", .array(excluded)),
            ])
    }

    /// Starts each command of `plan` (`waiting`, and waits for it); false
    /// when one waited for exited non-zero. Exits 2 when a command cannot
    /// be made, and, once the others are started, when one could not be.
    static func launch(_ plan: OpenPlan, waiting: Bool) throws -> Bool {
        let commands: [OpenPlan.Command]
        switch plan.commands(callerIsOnTerminal: Opening.callerIsOnTerminal) {
        case .success(let made): commands = made
        case .failure(let problem): throw Console.fail("\(keepingBackslashes: problem.message)" as TerminalText)
        }
        let outcome = Opening.launch(commands, waiting: waiting, program: "uti")
        if outcome.notStarted > 0 { throw ExitCode(Status.error) }
        return outcome.failed == 0
    }
}

extension OpenIn {
    /// `--app ID --list`: the types and schemes the application claims.
    func listClaims(
        of id: String, handler: HandlerResolver.Handler?, resolver: HandlerResolver,
        role: HandlerResolver.RoleFilter
    ) throws {
        let claims = resolver.claims(of: id, role: role)
        if output.json {
            let items: [JSON] = claims.map { item in
                .object([
                    ("declares", .string(item.claim.typeName)),
                    ("declaredAs", .string(item.claim.typeNameKind.rawValue)),
                    ("type", .string(item.type.identifier)),
                    ("claim", .string(item.claim.kind.rawValue)),
                    ("key", .string(item.claim.key)),
                    ("rank", .string(item.claim.rank.rawValue)),
                    ("role", .optional(item.claim.role?.rawValue)),
                    ("file", .string(item.claim.file)),
                    ("line", item.claim.position.line.map(JSON.int) ?? .null),
                    ("isDefault", .bool(item.isDefault)),
                    ("default", .optional(item.defaultHandlerID)),
                ])
            }
            print(
                JSON.object([
                    ("application", .string(id)),
                    ("name", .optional(handler?.name)),
                    ("location", .optional(handler?.location)),
                    ("claims", .array(items)),
                ]).serialized())
        } else {
            let place: TerminalText = handler.map { "\($0.name) (\($0.location))" } ?? "cannot be run"
            TerminalText.print("\(id): \(place)")
            if claims.isEmpty { TerminalText.print("  claims no types or URL schemes") }
            let rows = claims.map { item -> (TerminalText, TerminalText, TerminalText) in
                let scheme = URLScheme.isSchemeType(item.type) ? item.type.tags(.urlScheme).first : nil
                var how: TerminalText = "\(item.claim.key)"
                if case .bundle? = handler?.source, item.claim.kind == .declared {
                    how += ", \(item.claim.rank.rawValue)" + (item.claim.role.map { ", \($0.rawValue)" } ?? "")
                }
                how += ": \(item.claim.place)"
                if !item.isDefault { how += item.defaultHandlerID.map { "; the default is \($0)" } ?? "; no default" }
                return (
                    (item.isDefault ? "* " : "  ") + "\(item.claim.typeName)",
                    scheme.map { "URL scheme \($0)" } ?? "\(item.type.identifier)", how
                )
            }
            let nameWidth = rows.map(\.0.count).max() ?? 0
            let typeWidth = rows.map(\.1.count).max() ?? 0
            func pad(_ text: TerminalText, _ width: Int) -> TerminalText {
                text.count >= width ? text : text.padding(width)
            }
            for row in rows {
                TerminalText.print("  \(pad(row.0, nameWidth))  \(pad(row.1, typeWidth))  \(row.2)")
            }
        }
    }
}
