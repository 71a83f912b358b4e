import ArgumentParser
import DocumentHandlers
import UniformTypes

struct SetDefault: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: CommandName.setDefault.rawValue,
        abstract: "Choose the application that opens a type or URL scheme, in the user's mimeapps.list.",
        discussion: """
            Writes "MIME/TYPE=ID;" for each MIME type of TYPE, its aliases included, into
            [Default Applications] of $XDG_CONFIG_HOME/mimeapps.list
            (~/.config/mimeapps.list), the file GLib, KDE and xdg-utils read, so that gio
            mime, xdg-mime query default and open-in name the same application. Everything
            else in the file is kept; the file is replaced atomically. A default for a type
            beats every other application for that type and for its subtypes that have no
            default or handler of their own.

            A wildcard (image/*) or a type without a MIME type of its own (public.image)
            stands for the MIME types under it, each written as its own key: for image/*,
            every type whose MIME type is image/something; for a type, every type that
            conforms to it. Only the types APP opens are written (those it declares,
            directly or through a supertype, or is added for); name a MIME type to make APP
            its default regardless. When APP opens none of them, or none has a MIME type,
            nothing is written (exit 2). The key an earlier uti wrote for the wildcard or
            type (image/*=, public.image=), which only uti reads, is removed. --clear
            clears every key the wildcard or type stands for.

            A URL scheme is written as x-scheme-handler/SCHEME, as xdg-settings and
            xdg-mime do. It is named as https:, as a URL, as x-scheme-handler/https, or as
            a bare word that no type claims as an extension but some application claims
            as a scheme (https). A word that is both is refused: write .rdp for the
            extension or rdp: for the scheme. An application whose Exec takes local
            files only (%f or %F, no %u or %U) cannot be a scheme's default (exit 2).

            --role viewer, editor or shell records a default for that role alone (as
            LSSetDefaultRoleHandlerForContentType does) in [X-UTI Default Viewer] and the
            like, which only uti reads; open-in --role uses it first. Desktop entries and
            URL schemes have no roles: their default is for all.

            --file SETTINGS sets many defaults in one write, one "TYPE-OR-SCHEME APP
            [ROLE]" a line (# starts a comment). Every line is checked first; when one is
            wrong, each wrong line is named and nothing is written.

            --add APP TYPE offers APP for TYPE without making it the default: it is
            appended to [Added Associations] (keeping its place if already there) and taken
            out of [Removed Associations], as GIO's g_app_info_add_supports_type does.
            --remove APP TYPE takes APP out of [Added Associations], puts it in [Removed
            Associations] (which hides what APP declares for TYPE and its subtypes) and
            clears it where the user's file makes it a default for TYPE. A default set in
            a system list still wins over a removal, as in GIO: uti then says so and exits
            1. A wildcard or a type without a MIME type is written as MIME types here too:
            --add writes every MIME type it stands for (APP is declared able to open them
            all), --remove those APP is offered for (open-in lists it); when there is none,
            nothing is written (exit 2).

            --all-declared APP makes APP the default for every type and scheme it declares
            (a desktop entry's MimeType, a bundle's document and URL types; a rank or role
            of None or QLGenerator is left out), in one write. A declared MIME type is
            written with its aliases, as set-default TYPE writes it. A declared URL scheme
            is left out (and said so) when APP's Exec takes local files only.

            Exit status: 0 written, or nothing to write; 1 a removed application is still
            offered for one of its MIME types (a default in a system list), written now or
            before; 2 bad arguments, an unknown application, a type with no MIME type to
            write, a scheme's default that takes no URL, a bad line in SETTINGS, or a file
            that cannot be read (a line GLib cannot parse) or written.
            """)

    @OptionGroup var registryOptions: RegistryOptions
    @Argument(help: "The type (extension, MIME type or identifier) or URL scheme.", completion: .typeNames)
    var type: String?
    @Argument(
        help: "The application: a desktop file ID (vim.desktop) or a bundle identifier.", completion: .applicationIDs)
    var app: String?
    @Option(
        help: ArgumentHelp("The role the default is for: viewer, editor, shell or all.", valueName: "role"),
        completion: .list(["viewer", "editor", "shell", "all"]))
    var role: String = "all"
    @Option(
        name: .customLong("file"),
        help: ArgumentHelp(
            "Set every default this file lists, all or none (- reads standard input).", valueName: "settings"),
        completion: .file())
    var settingsFile: String?
    @Flag(help: "Remove the user's default for TYPE instead.")
    var clear = false
    @Option(
        name: .customLong("add"),
        help: ArgumentHelp("Offer this application for TYPE without making it the default.", valueName: "app"),
        completion: .applicationIDs)
    var addedApp: String?
    @Option(
        name: .customLong("remove"), help: ArgumentHelp("Stop offering this application for TYPE.", valueName: "app"),
        completion: .applicationIDs)
    var removedApp: String?
    @Option(
        name: .customLong("all-declared"),
        help: ArgumentHelp("Make this application the default for every type it declares.", valueName: "app"),
        completion: .applicationIDs)
    var allDeclaredApp: String?

    func validate() throws {
        let modes = [
            settingsFile.map { _ in "--file" }, addedApp.map { _ in "--add" }, removedApp.map { _ in "--remove" },
            allDeclaredApp.map { _ in "--all-declared" }, clear ? "--clear" : nil,
        ].compactMap { $0 }
        if modes.count > 1 { throw ValidationError("\(modes.joined(separator: " and ")) cannot be used together") }
        if let settingsFile {
            if settingsFile.isEmpty { throw ValidationError("--file: an empty path was given") }
            if type != nil { throw ValidationError("--file takes no TYPE or APP: each line names them") }
            if role != "all" { throw ValidationError("--file takes no --role: give it on each line") }
            return
        }
        if let allDeclaredApp {
            if allDeclaredApp.isEmpty { throw ValidationError("--all-declared: an empty application was given") }
            if type != nil {
                throw ValidationError("--all-declared takes no TYPE: the application's declarations name them")
            }
            if role != "all" {
                throw ValidationError("--all-declared takes no --role: it sets the default for every role")
            }
            return
        }
        if let option = modes.first, let given = addedApp ?? removedApp {
            if given.isEmpty { throw ValidationError("\(option): an empty application was given") }
            guard type != nil else { throw ValidationError("\(option) \(given): give the type or scheme too") }
            if app != nil {
                throw ValidationError("\(option) APP takes one TYPE; the application is \(option)'s value")
            }
            if role != "all" { throw ValidationError("\(option) takes no --role: associations are for every role") }
            return
        }
        guard type != nil else {
            throw ValidationError("give the type or scheme and the application, or --file SETTINGS")
        }
        if clear && app != nil { throw ValidationError("give either an application or --clear") }
        if !clear && app == nil { throw ValidationError("give the application to use, or --clear") }
        do { _ = try DefaultSettings.role(role) } catch {
            throw ValidationError("--role \(role): use viewer, editor, shell or all")
        }
    }

    func run() throws {
        let (registry, bundles) = try registryOptions.loadOrExit()
        let searchPath = registryOptions.applicationSearchPath
        guard let file = searchPath.userAssociationsFile else {
            throw Console.fail("neither XDG_CONFIG_HOME nor HOME names a folder for mimeapps.list")
        }
        let resolver = HandlerResolver(
            catalog: HandlerCatalog(searchPath: searchPath, bundles: bundles), registry: registry)
        let (requests, settingsFailed) = try self.requests(resolver: resolver)
        // Every request is checked (and each bad one named) before anything is written.
        let plan = DefaultsPlan(requests, resolver: resolver, lookUp: Self.lookUp(in: registry))
        for case .refused(let place, let refusal) in plan.steps {
            // A line of a --file list is named as every source problem is.
            let prefix = place.isEmpty ? "" : "\(Escaping.name(place)): error: "
            Console.error("uti: " + prefix + refusal.message(value: Escaping.name, problem: Escaping.line))
        }
        guard !settingsFailed, let changes = plan.changes, let fileChanges = plan.fileChanges else {
            if let settingsFile {
                throw Console.fail("\(settingsFile == "-" ? "standard input" : settingsFile): nothing was written")
            }
            throw ExitCode(Status.error)
        }
        let edits: [UserDefaultsWriter.Edit]
        do {
            edits = try UserDefaultsWriter.apply(fileChanges, in: file)
        } catch {
            throw Console.fail("\(keepingBackslashes: error.message)" as TerminalText)
        }
        for (subject, change) in changes { Self.report(subject, change, edits: edits, file: file) }
        if removedApp != nil, let (subject, change) = changes.first, let app = change.handlerID {
            // A default in a system list is not hidden by a removal (GIO reads it the same way).
            let reread = HandlerResolver(
                catalog: HandlerCatalog(searchPath: searchPath, bundles: bundles), registry: registry)
            if let still = subject.candidate(app, in: reread) {
                let message: TerminalText =
                    "uti: \(subject.label): \(app) is still offered: \(keepingBackslashes: still.reason)"
                Console.error(message)
                throw ExitCode(Status.no)
            }
        }
    }

    /// The requests the arguments make, and whether a SETTINGS file had
    /// bad lines (each already named on standard error).
    private func requests(resolver: HandlerResolver) throws -> (requests: [DefaultsPlan.Request], failed: Bool) {
        if let allDeclaredApp {
            return (try Self.declaredRequests(of: allDeclaredApp, resolver: resolver), false)
        }
        if let settingsFile {
            let settings = try Self.settings(settingsFile)
            let name = settingsFile == "-" ? "standard input" : settingsFile
            for problem in settings.problems { Console.error("uti: \(problem)") }
            let failed = !settings.problems.isEmpty
            if settings.lines.isEmpty && !failed { throw Console.fail("\(name): sets no defaults") }
            let requests = settings.lines.map {
                DefaultsPlan.Request(subject: $0.subject, app: $0.app, role: $0.role, place: "\(name):\($0.number)")
            }
            return (requests, failed)
        }
        guard let type else { return ([], false) }
        if let given = addedApp ?? removedApp {
            let action: UserDefaultsWriter.Change.Action = addedApp != nil ? .addAssociation : .removeAssociation
            return ([DefaultsPlan.Request(subject: type, app: given, role: nil, action: action)], false)
        }
        return ([DefaultsPlan.Request(subject: type, app: app, role: try DefaultSettings.role(role))], false)
    }

    /// The SETTINGS file (standard input for "-"), or exit status 2 when it
    /// cannot be read.
    private static func settings(_ path: String) throws -> DefaultSettings {
        guard path == "-" else {
            do { return try DefaultSettings.read(path: path) } catch {
                throw Console.fail("\(keepingBackslashes: error.description)" as TerminalText)
            }
        }
        let name = "standard input", limit = DefaultSettings.maximumBytes
        let bytes: [UInt8]
        do { bytes = try FileTyping.readPrefix(of: 0, count: limit + 1, label: name) } catch {
            throw Console.fail("\(keepingBackslashes: error.description)" as TerminalText)
        }
        if bytes.count > limit { throw Console.fail("\(name): longer than \(limit) bytes; not read") }
        return DefaultSettings(bytes: bytes, file: name)
    }

    /// How a word names a type here: as `uti lookup` reads it.
    private static func lookUp(
        in registry: TypeRegistry
    ) -> (String) throws(DefaultsSubject.Problem) -> DefaultsSubject.NamedType {
        { word throws(DefaultsSubject.Problem) in
            let query = QueryResolver(registry: registry)
            let type: UniformType
            do throws(QueryError) { type = try query.type(word) } catch {
                throw DefaultsSubject.Problem(error.description)
            }
            return DefaultsSubject.NamedType(type: type, isExtension: query.kind(of: word) == .filenameExtension)
        }
    }

    /// Says what was written for one change.
    private static func report(
        _ subject: DefaultsSubject, _ change: UserDefaultsWriter.Change, edits: [UserDefaultsWriter.Edit],
        file: String
    ) {
        let role: TerminalText = change.role.map { " for the \($0.rawValue) role" } ?? ""
        let group = UserDefaultsWriter.groupName(for: change.role)
        func edited(_ key: String) -> Bool {
            edits.contains { $0.group == group && $0.key.lowercased() == key.lowercased() && $0.after.isEmpty }
        }
        // The key an earlier release wrote for a wildcard or an abstract type, now replaced.
        let former: TerminalText =
            change.action == .setDefault && subject.formerKey.map(edited) == true
            ? "; \(subject.formerKey!), a key only uti reads, is removed" : ""
        // Clearing a wildcard or an abstract type names the keys that were set, not every one it covers.
        let shown = subject.isAbstract && change.handlerID == nil ? change.keys.filter(edited) : change.keys
        let keys = shown.isEmpty ? "none was set" : TerminalText.list(shown)
        let app = change.handlerID ?? ""
        switch change.action {
        case .setDefault where change.handlerID != nil:
            TerminalText.print("\(subject.label): \(app) is the default\(role) (\(keys)) in \(file)\(former)")
        case .setDefault:
            TerminalText.print("\(subject.label): the default\(role) is cleared (\(keys)) in \(file)\(former)")
        case .addAssociation where !change.edited(in: edits):
            TerminalText.print("\(subject.label): \(app) was already added (\(keys)) in \(file); nothing was written")
        case .addAssociation:
            TerminalText.print("\(subject.label): \(app) is added (\(keys)) in \(file)")
        case .removeAssociation where !change.edited(in: edits):
            TerminalText.print(
                "\(subject.label): \(app) was already removed (\(keys)) in \(file); nothing was written")
        case .removeAssociation:
            TerminalText.print(
                "\(subject.label): \(app) is removed (\(keys)) in \(file)"
                    + (change.removedDefault(in: edits) ? "; it is no longer the user's default" : ""))
        }
    }

    /// One request per type and scheme `app` declares (the document types
    /// it can open), as `--all-declared` sets them.
    private static func declaredRequests(of app: String, resolver: HandlerResolver) throws -> [DefaultsPlan.Request] {
        if case .failure(let error) = resolver.handler(app) {
            throw Console.fail("--all-declared \(app): \(keepingBackslashes: error.message)" as TerminalText)
        }
        let (requests, unwritable) = DefaultsPlan.declaredRequests(of: app, resolver: resolver)
        for claim in unwritable {
            if URLScheme(handlerMIMEType: claim.typeName) != nil {
                Console.error(
                    "uti: \(claim.place): \(claim.typeName): \(app)'s Exec takes local files only (no %u or %U), so it cannot be a URL scheme's default; skipped"
                        as TerminalText)
                continue
            }
            Console.error(
                "uti: \(claim.place): \(claim.typeName) cannot be a key of mimeapps.list; skipped" as TerminalText)
        }
        if requests.isEmpty { throw Console.fail("--all-declared \(app): the application declares no type it opens") }
        return requests
    }
}
