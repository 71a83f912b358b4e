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

        Exit status: 0 written; 2 bad arguments, an unknown application, a bad line in
        SETTINGS, or a file that cannot be read or written.
        """)

    @OptionGroup var registryOptions: RegistryOptions
    @Argument(help: "The type (extension, MIME type or identifier) or URL scheme.")
    var type: String?
    @Argument(help: "The application: a desktop file ID (vim.desktop) or a bundle identifier.")
    var app: String?
    @Option(help: ArgumentHelp("The role the default is for: viewer, editor, shell or all.", valueName: "role"))
    var role: String = "all"
    @Option(name: .customLong("file"), help: ArgumentHelp("Set every default this file lists, all or none.", valueName: "settings"))
    var settingsFile: String?
    @Flag(help: "Remove the user's default for TYPE instead.")
    var clear = false

    func validate() throws {
        if let settingsFile {
            if settingsFile.isEmpty { throw ValidationError("--file: an empty path was given") }
            if type != nil || clear { throw ValidationError("--file takes no TYPE, APP or --clear: each line names them") }
            if role != "all" { throw ValidationError("--file takes no --role: give it on each line") }
            return
        }
        guard type != nil else { throw ValidationError("give the type or scheme and the application, or --file SETTINGS") }
        if clear && app != nil { throw ValidationError("give either an application or --clear") }
        if !clear && app == nil { throw ValidationError("give the application to use, or --clear") }
        do { _ = try DefaultSettings.role(role) } catch { throw ValidationError("--role \(role): use viewer, editor, shell or all") }
    }

    /// What a TYPE-OR-SCHEME word names.
    struct Subject {
        var label: String
        var keys: [String]
        var type: UTType
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
        let resolver = HandlerResolver(catalog: HandlerCatalog(searchPath: searchPath, bundles: bundles), registry: registry)
        var requests: [Request] = []
        var failed = false
        if let settingsFile {
            let settings: DefaultSettings
            do { settings = try DefaultSettings.read(path: settingsFile) } catch { throw Console.fail(error.description) }
            for problem in settings.problems { Console.error("uti: \(problem)") }
            failed = !settings.problems.isEmpty
            if settings.lines.isEmpty && !failed { throw Console.fail("\(settingsFile): sets no defaults") }
            requests = settings.lines.map { Request(subject: $0.subject, app: $0.app, role: $0.role, place: "\(settingsFile):\($0.number)") }
        } else if let type {
            requests = [Request(subject: type, app: app, role: try DefaultSettings.role(role), place: "")]
        }
        // Every request is checked (and each bad one named) before anything is written.
        let planned = plan(requests, resolver: resolver)
        if failed || planned.contains(where: { $0 == nil }) {
            if let settingsFile { throw Console.fail("\(settingsFile): nothing was written") }
            throw ExitCode(Status.error)
        }
        let valid = planned.compactMap { $0 }
        do {
            try UserDefaultsWriter.apply(valid.map(\.change), in: file)
        } catch {
            throw Console.fail(error.message)
        }
        for (subject, change) in valid {
            let role = change.role.map { " for the \($0.rawValue) role" } ?? ""
            let keys = change.keys.joined(separator: ", ")
            if let app = change.handlerID {
                print(Escaping.controls("\(subject.label): \(app) is the default\(role) (\(keys)) in \(file)"))
            } else {
                print(Escaping.controls("\(subject.label): the default\(role) is cleared (\(keys)) in \(file)"))
            }
        }
    }

    /// One default to set: a line of SETTINGS (its place is `FILE:LINE`) or the arguments (no place).
    struct Request {
        var subject: String
        var app: String?
        var role: AppBundle.Role?
        var place: String
    }

    /// Each request checked: its subject, application and role. A request
    /// that cannot be applied is reported (with its place) and gives nil.
    private func plan(_ requests: [Request], resolver: HandlerResolver) -> [(subject: Subject, change: UserDefaultsWriter.Change)?] {
        var result: [(subject: Subject, change: UserDefaultsWriter.Change)?] = []
        var written: [String: String] = [:]
        let claimedSchemes = resolver.catalog.claimedSchemes
        for request in requests {
            let prefix = request.place.isEmpty ? "" : request.place + ": "
            func refuse(_ message: String) {
                Console.error("uti: \(prefix)\(message)")
                result.append(nil)
            }
            let subject: Subject
            do {
                subject = try Self.subject(request.subject, registry: resolver.registry, claimedSchemes: claimedSchemes)
            } catch {
                refuse("\(request.subject): \(error.description)")
                continue
            }
            if let app = request.app {
                let handler: HandlerResolver.Handler
                switch resolver.handler(app) {
                case .success(let found): handler = found
                case .failure(let error):
                    refuse("\(app): \(error.message)")
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
                    if let exclusion = resolver.resolve(subject.type, role: filter).excluded.first(where: { $0.id == app }) {
                        refuse("\(app) cannot be the \(role.rawValue) default for \(subject.label): \(exclusion.reason)")
                        continue
                    }
                }
            }
            let group = UserDefaultsWriter.groupName(for: request.role)
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
            result.append((subject, UserDefaultsWriter.Change(keys: subject.keys, role: request.role, handlerID: request.app)))
        }
        return result
    }

    /// The type or scheme `word` names, and the keys its default is
    /// written under.
    static func subject(_ word: String, registry: TypeRegistry, claimedSchemes: Set<String>) throws(QueryError) -> Subject {
        func schemeSubject(_ scheme: URLScheme) -> Subject {
            Subject(label: "URL scheme \(scheme.name)", keys: [scheme.handlerMIMEType], type: scheme.type(in: registry), scheme: scheme)
        }
        func typeSubject(_ type: UTType) -> Subject {
            let mimeTypes = type.tags(.mimeType)
            return Subject(label: type.identifier, keys: mimeTypes.isEmpty ? [type.identifier] : mimeTypes, type: type)
        }
        if let scheme = URLScheme(handlerMIMEType: word) { return schemeSubject(scheme) }
        if AssociationClaim.isWildcard(word) {
            // Written as it is: every type of that major type without a default of its own.
            return Subject(label: "every \(word.dropLast(1).lowercased()) type", keys: [word.lowercased()],
                           type: registry.declaredType("public.data")!, wildcard: true)
        }
        if word.contains("*") {
            throw QueryError(description: "a wildcard names a MIME type's major part and /* (image/*)")
        }
        if word.contains(":") {
            guard let scheme = URLScheme(urlString: word) else {
                throw QueryError(description: "is neither a type nor a URL scheme (a scheme is a letter, then letters, digits, \"+\", \"-\" or \".\")")
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
            throw QueryError(description: "is both an extension (\(type.identifier)) and a URL scheme some application claims; "
                + "write .\(word) for the extension or \(word): for the scheme")
        }
        if isScheme { return schemeSubject(scheme) }
        if !type.isDeclared {
            throw QueryError(description: "no type claims the extension \"\(word)\" and no application claims the URL scheme; "
                + "write .\(word) for the extension or \(word): for the scheme")
        }
        return typeSubject(type)
    }
}
