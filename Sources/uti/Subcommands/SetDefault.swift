import ArgumentParser
import DocumentHandlers
import UniformTypes

struct SetDefault: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-default",
        abstract: "Choose the application that opens a type or URL scheme, in the user's mimeapps.list.",
        discussion: """
            Writes "MIME/TYPE=ID;" for each MIME type of TYPE into [Default Applications] of
            $XDG_CONFIG_HOME/mimeapps.list (~/.config/mimeapps.list), the file GLib, KDE and
            xdg-utils read; a type without a MIME type is written under its identifier,
            which only uti reads. Everything else in the file is kept; the file is replaced
            atomically. A default for a type beats every other application for that type
            and for its subtypes that have no default or handler of their own.

            A wildcard, image/*, is written as it is (as handlr writes it): the default of
            every image/ type that has no default of its own.

            A URL scheme is written as x-scheme-handler/SCHEME, as xdg-settings and
            xdg-mime do. It is named as https:, as a URL, as x-scheme-handler/https, or as
            a bare word that no type claims as an extension but some application claims
            as a scheme (https). A word that is both is refused: write .rdp for the
            extension or rdp: for the scheme.

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
            1.

            --all-declared APP makes APP the default for every type and scheme it declares
            (a desktop entry's MimeType, a bundle's document and URL types; a rank or role
            of None or QLGenerator is left out), in one write.

            Exit status: 0 written; 1 written, but a removed application is still offered
            (a default in a system list); 2 bad arguments, an unknown application, a bad
            line in SETTINGS, or a file that cannot be read or written.
            """)

    @OptionGroup var registryOptions: RegistryOptions
    @Argument(help: "The type (extension, MIME type or identifier) or URL scheme.")
    var type: String?
    @Argument(help: "The application: a desktop file ID (vim.desktop) or a bundle identifier.")
    var app: String?
    @Option(
        help: ArgumentHelp("The role the default is for: viewer, editor, shell or all.", valueName: "role"),
        completion: .list(["viewer", "editor", "shell", "all"]))
    var role: String = "all"
    @Option(
        name: .customLong("file"),
        help: ArgumentHelp(
            "Set every default this file lists, all or none (- reads standard input).", valueName: "settings"))
    var settingsFile: String?
    @Flag(help: "Remove the user's default for TYPE instead.")
    var clear = false
    @Option(
        name: .customLong("add"),
        help: ArgumentHelp("Offer this application for TYPE without making it the default.", valueName: "app"))
    var addedApp: String?
    @Option(
        name: .customLong("remove"), help: ArgumentHelp("Stop offering this application for TYPE.", valueName: "app"))
    var removedApp: String?
    @Option(
        name: .customLong("all-declared"),
        help: ArgumentHelp("Make this application the default for every type it declares.", valueName: "app"))
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

    /// What a TYPE-OR-SCHEME word names.
    struct Subject {
        var label: String
        var keys: [String]
        var type: UniformType
        var scheme: URLScheme?
        /// `image/*`: the default of every type of that major type that has none of its own.
        var wildcard = false
    }

    func run() throws {
        let (registry, bundles) = try registryOptions.loadOrExit()
        let searchPath = registryOptions.applicationSearchPath
        guard let file = searchPath.userAssociationsFile else {
            throw Console.fail("neither XDG_CONFIG_HOME nor HOME names a folder for mimeapps.list")
        }
        let resolver = HandlerResolver(
            catalog: HandlerCatalog(searchPath: searchPath, bundles: bundles), registry: registry)
        var requests: [Request] = []
        var failed = false
        if let allDeclaredApp {
            requests = try declaredRequests(of: allDeclaredApp, resolver: resolver)
        } else if let settingsFile {
            // "-" is standard input, as for `uti file -`.
            let name = settingsFile == "-" ? "standard input" : settingsFile
            let settings: DefaultSettings
            if settingsFile == "-" {
                let limit = DefaultSettings.maximumBytes
                let bytes: [UInt8]
                do { bytes = try FileTyping.readPrefix(of: 0, count: limit + 1, label: name) } catch {
                    throw Console.fail("\(keepingBackslashes: error.description)" as TerminalText)
                }
                if bytes.count > limit { throw Console.fail("\(name): longer than \(limit) bytes; not read") }
                settings = DefaultSettings(bytes: bytes, file: name)
            } else {
                do { settings = try DefaultSettings.read(path: settingsFile) } catch {
                    throw Console.fail("\(keepingBackslashes: error.description)" as TerminalText)
                }
            }
            for problem in settings.problems { Console.error("uti: \(problem)") }
            failed = !settings.problems.isEmpty
            if settings.lines.isEmpty && !failed { throw Console.fail("\(name): sets no defaults") }
            requests = settings.lines.map {
                Request(subject: $0.subject, app: $0.app, role: $0.role, place: "\(name):\($0.number)")
            }
        } else if let type, let given = addedApp ?? removedApp {
            requests = [
                Request(
                    subject: type, app: given, role: nil, place: "",
                    action: addedApp != nil ? .addAssociation : .removeAssociation)
            ]
        } else if let type {
            requests = [Request(subject: type, app: app, role: try DefaultSettings.role(role), place: "")]
        }
        // Every request is checked (and each bad one named) before anything is written.
        let planned = plan(requests, resolver: resolver)
        if failed || planned.contains(where: { $0 == nil }) {
            if let settingsFile {
                throw Console.fail("\(settingsFile == "-" ? "standard input" : settingsFile): nothing was written")
            }
            throw ExitCode(Status.error)
        }
        let valid = planned.compactMap { $0 }
        let edits: [UserDefaultsWriter.Edit]
        do {
            edits = try UserDefaultsWriter.apply(valid.map(\.change), in: file)
        } catch {
            throw Console.fail("\(keepingBackslashes: error.message)" as TerminalText)
        }
        for (subject, change) in valid {
            let role: TerminalText = change.role.map { " for the \($0.rawValue) role" } ?? ""
            let keys = TerminalText.list(change.keys)
            let app = change.handlerID ?? ""
            switch change.action {
            case .setDefault where change.handlerID != nil:
                TerminalText.print("\(subject.label): \(app) is the default\(role) (\(keys)) in \(file)")
            case .setDefault:
                TerminalText.print("\(subject.label): the default\(role) is cleared (\(keys)) in \(file)")
            case .addAssociation:
                TerminalText.print("\(subject.label): \(app) is added (\(keys)) in \(file)")
            case .removeAssociation:
                let wasDefault = edits.contains { edit in
                    edit.before.contains(app) && !edit.after.contains(app)
                        && change.keys.contains { $0.lowercased() == edit.key.lowercased() }
                        && edit.group != UserDefaultsWriter.addedGroup
                }
                TerminalText.print(
                    "\(subject.label): \(app) is removed (\(keys)) in \(file)"
                        + (wasDefault ? "; it is no longer the user's default" : ""))
            }
        }
        if removedApp != nil, let (subject, change) = valid.first, let app = change.handlerID {
            // A default in a system list is not hidden by a removal (GIO reads it the same way).
            let reread = HandlerResolver(
                catalog: HandlerCatalog(searchPath: searchPath, bundles: bundles), registry: registry)
            if let still = Self.offers(app, for: subject, resolver: reread) {
                let message: TerminalText =
                    "uti: \(subject.label): \(app) is still offered: \(keepingBackslashes: still.reason)"
                Console.error(message)
                throw ExitCode(Status.no)
            }
        }
    }

    /// The candidate `app` still is for `subject`, if any.
    static func offers(_ app: String, for subject: Subject, resolver: HandlerResolver) -> HandlerResolver.Candidate? {
        if subject.wildcard {
            for type in resolver.types(coveredBy: subject.keys[0]) {
                if let found = resolver.resolve(type).candidates.first(where: {
                    $0.handler.id == app && $0.claim.typeName.lowercased() == subject.keys[0]
                }) {
                    return found
                }
            }
            return nil
        }
        return resolver.resolve(subject.type).candidates.first { $0.handler.id == app }
    }

    /// One request per type and scheme `app` declares (the document types
    /// it can open), as `--all-declared` sets them.
    private func declaredRequests(of app: String, resolver: HandlerResolver) throws -> [Request] {
        if case .failure(let error) = resolver.handler(app) {
            throw Console.fail("--all-declared \(app): \(keepingBackslashes: error.message)" as TerminalText)
        }
        var requests: [Request] = []
        var keys: Set<String> = []
        for claim in resolver.catalog.claims where claim.handlerID == app && claim.kind == .declared {
            if claim.rank == .none || claim.role == AppBundle.Role.none || claim.role == .qlGenerator { continue }
            guard let type = resolver.types(named: claim).first else { continue }
            var subject: Subject
            if let scheme = URLScheme.isSchemeType(type)
                ? URLScheme(handlerMIMEType: claim.typeName) ?? URLScheme(claim.typeName) : nil
            {
                subject = Subject(
                    label: "URL scheme \(scheme.name)", keys: [scheme.handlerMIMEType], type: type, scheme: scheme)
            } else if claim.typeNameKind == .mimeType {
                // A key GLib can match (MIME types are lower case) and uti reads back.
                let key = claim.typeName.lowercased()
                guard UserDefaultsWriter.isWritableKey(key) else {
                    Console.error(
                        "uti: \(claim.place): \(claim.typeName) cannot be a key of mimeapps.list; skipped"
                            as TerminalText)
                    continue
                }
                let wildcard = claim.isWildcard
                subject = Subject(
                    label: wildcard ? "every \(key.dropLast(1)) type" : type.identifier,
                    keys: [key], type: type, wildcard: wildcard)
            } else {
                subject = Self.typeSubject(type)
            }
            subject.keys = subject.keys.filter { keys.insert($0.lowercased()).inserted }
            if subject.keys.isEmpty { continue }
            requests.append(Request(subject: claim.typeName, app: app, role: nil, place: "", resolved: subject))
        }
        if requests.isEmpty { throw Console.fail("--all-declared \(app): the application declares no type it opens") }
        return requests
    }

    /// One default to set: a line of SETTINGS (its place is `FILE:LINE`) or the arguments (no place).
    struct Request {
        var subject: String
        var app: String?
        var role: AppBundle.Role?
        var place: String
        var action: UserDefaultsWriter.Change.Action = .setDefault
        /// The subject already worked out (`--all-declared`).
        var resolved: Subject?
    }

    /// Each request checked: its subject, application and role. A request
    /// that cannot be applied is reported (with its place) and gives nil.
    private func plan(
        _ requests: [Request], resolver: HandlerResolver
    ) -> [(subject: Subject, change: UserDefaultsWriter.Change)?] {
        var result: [(subject: Subject, change: UserDefaultsWriter.Change)?] = []
        var written: [String: String] = [:]
        let claimedSchemes = resolver.catalog.claimedSchemes
        for request in requests {
            // A line of a --file list is named as every source problem is.
            let prefix: TerminalText = request.place.isEmpty ? "" : "\(request.place): error: "
            func refuse(_ message: TerminalText) {
                Console.error("uti: \(prefix)\(message)" as TerminalText)
                result.append(nil)
            }
            let subject: Subject
            if let resolved = request.resolved {
                subject = resolved
            } else {
                do {
                    subject = try Self.subject(
                        request.subject, registry: resolver.registry, claimedSchemes: claimedSchemes)
                } catch {
                    refuse("\(request.subject): \(keepingBackslashes: error.description)")
                    continue
                }
            }
            if let app = request.app {
                let handler: HandlerResolver.Handler
                switch resolver.handler(app) {
                case .success(let found): handler = found
                case .failure
                where request.action == .removeAssociation
                    && resolver.catalog.claims.contains(where: { $0.handlerID == app }):
                    // An application that can no longer run may still be named in a list.
                    result.append(
                        (subject, UserDefaultsWriter.Change(keys: subject.keys, handlerID: app, action: request.action))
                    )
                    continue
                case .failure(let error):
                    refuse("\(app): \(keepingBackslashes: error.message)")
                    continue
                }
                if let role = request.role {
                    if subject.wildcard {
                        refuse("\(request.subject): a wildcard default is for all roles")
                        continue
                    }
                    if subject.scheme != nil {
                        refuse("\(request.subject): URL schemes have no roles; set the default for all roles")
                        continue
                    }
                    if case .desktopEntry = handler.source {
                        refuse("\(app) is a desktop entry, which declares no roles; its default is for all roles")
                        continue
                    }
                    let filter = HandlerResolver.RoleFilter(rawValue: role.rawValue.lowercased())!
                    if let exclusion = resolver.resolve(subject.type, role: filter).excluded.first(where: {
                        $0.id == app
                    }) {
                        refuse(
                            "\(app) cannot be the \(role.rawValue) default for \(subject.label): \(keepingBackslashes: exclusion.reason)"
                        )
                        continue
                    }
                }
            }
            let group =
                request.action == .setDefault
                ? UserDefaultsWriter.groupName(for: request.role) : request.action.rawValue
            var repeated = false
            for key in subject.keys {
                let slot = group + "\u{0}" + key.lowercased()
                if let earlier = written[slot] {
                    refuse("\(request.subject) sets \(key) again (\(earlier) set it)")
                    repeated = true
                    break
                }
                written[slot] = request.place
            }
            if repeated { continue }
            result.append(
                (
                    subject,
                    UserDefaultsWriter.Change(
                        keys: subject.keys, role: request.role, handlerID: request.app, action: request.action)
                ))
        }
        return result
    }

    /// A type's subject: its default is written under each of its MIME
    /// types, or under its identifier when it has none.
    static func typeSubject(_ type: UniformType) -> Subject {
        let mimeTypes = type.tags(.mimeType)
        return Subject(label: type.identifier, keys: mimeTypes.isEmpty ? [type.identifier] : mimeTypes, type: type)
    }

    /// The type or scheme `word` names, and the keys its default is
    /// written under.
    static func subject(
        _ word: String, registry: TypeRegistry, claimedSchemes: Set<String>
    ) throws(QueryError) -> Subject {
        func schemeSubject(_ scheme: URLScheme) -> Subject {
            Subject(
                label: "URL scheme \(scheme.name)", keys: [scheme.handlerMIMEType], type: scheme.type(in: registry),
                scheme: scheme)
        }
        // No extension, MIME type, identifier or scheme holds a space or an invisible character (a
        // byte-order mark, a control or format character): such a word would become a junk dyn key.
        if let odd = word.unicodeScalars.first(where: {
            $0.properties.isWhitespace || [.control, .format].contains($0.properties.generalCategory)
        }) {
            let code = String(odd.value, radix: 16, uppercase: true)
            throw QueryError(
                description: "holds U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code) (a space or an "
                    + "invisible character), which no type or URL scheme name has")
        }
        if let scheme = URLScheme(handlerMIMEType: word) { return schemeSubject(scheme) }
        if AssociationClaim.isWildcard(word) {
            // Written as it is: every type of that major type without a default of its own.
            return Subject(
                label: "every \(word.dropLast(1).lowercased()) type", keys: [word.lowercased()],
                type: registry.declaredType("public.data")!, wildcard: true)
        }
        if word.contains("*") {
            throw QueryError(description: "a wildcard names a MIME type's major part and /* (image/*)")
        }
        if word.contains(":") {
            guard let scheme = URLScheme(urlString: word) else {
                throw QueryError(
                    description:
                        "is neither a type nor a URL scheme (a scheme is a letter, then letters, digits, \"+\", \"-\" or \".\")"
                )
            }
            return schemeSubject(scheme)
        }
        let query = QueryResolver(registry: registry)
        let type = try query.type(word)
        guard query.kind(of: word) == .filenameExtension, !word.hasPrefix("."), let scheme = URLScheme(word) else {
            return typeSubject(type)
        }
        let isScheme = claimedSchemes.contains(scheme.name)
        if type.isDeclared && isScheme {
            throw QueryError(
                description: "is both an extension (\(type.identifier)) and a URL scheme some application claims; "
                    + "write .\(word) for the extension or \(word): for the scheme")
        }
        if isScheme { return schemeSubject(scheme) }
        if !type.isDeclared {
            throw QueryError(
                description: "no type claims the extension \"\(word)\" and no application claims the URL scheme; "
                    + "write .\(word) for the extension or \(word): for the scheme")
        }
        return typeSubject(type)
    }
}
