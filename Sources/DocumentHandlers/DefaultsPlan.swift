import UniformTypes

/// What a default is set for: a type, a URL scheme or a wildcard, and the
/// keys of `mimeapps.list` its default is written under.
public struct DefaultsSubject: Sendable {
    /// How the subject is named to a person: the type's identifier, `URL
    /// scheme https`, `every image type`.
    public var label: String
    /// The keys the default is written under: the type's MIME types (or its
    /// identifier when it has none), `x-scheme-handler/NAME`, or `image/*`.
    public var keys: [String]
    /// The type; `public.data` for a wildcard.
    public var type: UniformType
    /// The URL scheme, when the subject is one.
    public var scheme: URLScheme?
    /// Whether the subject is a wildcard (`image/*`): the default of every
    /// type of that major type that has no default of its own.
    public var isWildcard: Bool

    /// A subject with these parts.
    public init(label: String, keys: [String], type: UniformType, scheme: URLScheme? = nil, isWildcard: Bool = false) {
        self.label = label
        self.keys = keys
        self.type = type
        self.scheme = scheme
        self.isWildcard = isWildcard
    }

    /// A type's subject: its default is written under each of its MIME
    /// types, or under its identifier when it has none.
    public init(type: UniformType) {
        let mimeTypes = type.tags(.mimeType)
        self.init(label: type.identifier, keys: mimeTypes.isEmpty ? [type.identifier] : mimeTypes, type: type)
    }

    /// A URL scheme's subject, written under `x-scheme-handler/NAME`.
    public init(scheme: URLScheme, registry: TypeRegistry) {
        self.init(
            label: "URL scheme \(scheme.name)", keys: [scheme.handlerMIMEType], type: scheme.type(in: registry),
            scheme: scheme)
    }

    /// Why a word names no subject.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        /// What is wrong with the word, for a person to read.
        public var description: String

        /// A problem described as `description`.
        public init(_ description: String) { self.description = description }
    }

    /// A type a word names, as the caller reads words: the type, and whether
    /// the word was read as a filename extension.
    public struct NamedType: Sendable {
        /// The type the word names.
        public var type: UniformType
        /// Whether the word was read as a filename extension.
        public var isExtension: Bool

        /// A type `word` names, read as an extension or not.
        public init(type: UniformType, isExtension: Bool) {
            self.type = type
            self.isExtension = isExtension
        }
    }

    /// The subject `word` names: `x-scheme-handler/NAME`, a wildcard
    /// (`image/*`), a URL or `NAME:` (a scheme), or a type as `lookUp`
    /// reads it. A bare word read as an extension that no type claims but
    /// some application claims as a scheme (`claimedSchemes`) is that
    /// scheme; a word that is both is refused, as is one that is neither.
    public static func named(
        _ word: String, registry: TypeRegistry, claimedSchemes: Set<String>,
        lookUp: (String) throws(Problem) -> NamedType
    ) throws(Problem) -> DefaultsSubject {
        // No extension, MIME type, identifier or scheme holds a space or an invisible character (a
        // byte-order mark, a control or format character): such a word would become a junk dyn key.
        if let odd = word.unicodeScalars.first(where: {
            $0.properties.isWhitespace || [.control, .format].contains($0.properties.generalCategory)
        }) {
            let code = String(odd.value, radix: 16, uppercase: true)
            throw Problem(
                "holds U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code) (a space or an "
                    + "invisible character), which no type or URL scheme name has")
        }
        if let scheme = URLScheme(handlerMIMEType: word) { return DefaultsSubject(scheme: scheme, registry: registry) }
        if AssociationClaim.isWildcard(word) {
            // Written as it is: every type of that major type without a default of its own.
            return DefaultsSubject(
                label: "every \(word.dropLast(1).lowercased()) type", keys: [word.lowercased()],
                type: registry.declaredType("public.data")!, isWildcard: true)
        }
        if word.contains("*") { throw Problem("a wildcard names a MIME type's major part and /* (image/*)") }
        if word.contains(":") {
            guard let scheme = URLScheme(urlString: word) else {
                throw Problem(
                    "is neither a type nor a URL scheme (a scheme is a letter, then letters, digits, \"+\", \"-\" or \".\")"
                )
            }
            return DefaultsSubject(scheme: scheme, registry: registry)
        }
        let named = try lookUp(word)
        let type = named.type
        guard named.isExtension, !word.hasPrefix("."), let scheme = URLScheme(word) else {
            return DefaultsSubject(type: type)
        }
        let isScheme = claimedSchemes.contains(scheme.name)
        if type.isDeclared && isScheme {
            throw Problem(
                "is both an extension (\(type.identifier)) and a URL scheme some application claims; "
                    + "write .\(word) for the extension or \(word): for the scheme")
        }
        if isScheme { return DefaultsSubject(scheme: scheme, registry: registry) }
        if !type.isDeclared {
            throw Problem(
                "no type claims the extension \"\(word)\" and no application claims the URL scheme; "
                    + "write .\(word) for the extension or \(word): for the scheme")
        }
        return DefaultsSubject(type: type)
    }

    /// The candidate the application `id` still is for the subject, if
    /// any: for a wildcard, a candidate through the wildcard's own claim on
    /// any type it covers.
    public func candidate(_ id: String, in resolver: HandlerResolver) -> HandlerResolver.Candidate? {
        guard isWildcard else { return resolver.resolve(type).candidates.first { $0.handler.id == id } }
        for type in resolver.types(coveredBy: keys[0]) {
            if let found = resolver.resolve(type).candidates.first(where: {
                $0.handler.id == id && $0.claim.typeName.lowercased() == keys[0]
            }) {
                return found
            }
        }
        return nil
    }
}

/// The changes of `mimeapps.list` that `set-default` requests make, every
/// request checked before anything is written: its subject, its
/// application, its role, and that no two requests set the same key of one
/// group.
public struct DefaultsPlan: Sendable {
    /// One default to set or association to edit: a line of a settings
    /// file (its place is `FILE:LINE`) or the command's arguments (no place).
    public struct Request: Sendable {
        /// The type or scheme as written.
        public var subject: String
        /// The application's desktop file ID or bundle identifier; nil
        /// clears the default.
        public var app: String?
        /// The role the default is for; nil for every role.
        public var role: AppBundle.Role?
        /// Where the request was written (`FILE:LINE`); empty for arguments.
        public var place: String
        /// What the request does with the application.
        public var action: UserDefaultsWriter.Change.Action
        /// The subject already worked out, which `subject` then only names.
        public var resolved: DefaultsSubject?

        /// A request of `app` for `subject`.
        public init(
            subject: String, app: String?, role: AppBundle.Role?, place: String = "",
            action: UserDefaultsWriter.Change.Action = .setDefault, resolved: DefaultsSubject? = nil
        ) {
            self.subject = subject
            self.app = app
            self.role = role
            self.place = place
            self.action = action
            self.resolved = resolved
        }
    }

    /// Why a request cannot be applied.
    public enum Refusal: Error, Sendable, CustomStringConvertible {
        /// The subject (as written) names no type or scheme.
        case subject(String, problem: String)
        /// The application cannot be found, with the resolver's message.
        case application(String, problem: String)
        /// A role was given for a wildcard (as written).
        case wildcardRole(String)
        /// A role was given for a URL scheme (as written).
        case schemeRole(String)
        /// A role was given for a desktop entry, which declares none.
        case desktopEntryRole(app: String)
        /// The application is not a candidate for the role, and why.
        case excludedFromRole(app: String, role: AppBundle.Role, subject: String, reason: String)
        /// A key of the subject (as written) was set by an earlier request
        /// (at `earlier`, empty for arguments).
        case repeated(String, key: String, earlier: String)

        /// The refusal for a person to read.
        public var description: String { message(value: { $0 }, problem: { $0 }) }

        /// The refusal with each value it quotes (a word, an application, a
        /// key, a place) passed through `value`, and each message of another
        /// part (why a word names nothing, why an application is excluded)
        /// through `problem`: for a caller that escapes what it prints.
        public func message(value: (String) -> String, problem: (String) -> String) -> String {
            switch self {
            case .subject(let word, let text): "\(value(word)): \(problem(text))"
            case .application(let app, let text): "\(value(app)): \(problem(text))"
            case .wildcardRole(let word): "\(value(word)): a wildcard default is for all roles"
            case .schemeRole(let word): "\(value(word)): URL schemes have no roles; set the default for all roles"
            case .desktopEntryRole(let app):
                "\(value(app)) is a desktop entry, which declares no roles; its default is for all roles"
            case .excludedFromRole(let app, let role, let subject, let reason):
                "\(value(app)) cannot be the \(value(role.rawValue)) default for \(value(subject)): \(problem(reason))"
            case .repeated(let word, let key, let earlier):
                "\(value(word)) sets \(value(key)) again (\(value(earlier)) set it)"
            }
        }
    }

    /// One request, checked.
    public enum Step: Sendable {
        /// The change to make, and what it is for.
        case change(DefaultsSubject, UserDefaultsWriter.Change)
        /// The request cannot be applied; its place (`FILE:LINE`, or empty).
        case refused(place: String, Refusal)
    }

    /// Each request's step, in the order of the requests.
    public private(set) var steps: [Step] = []

    /// The changes, in order, when no request was refused; nil otherwise.
    public var changes: [(subject: DefaultsSubject, change: UserDefaultsWriter.Change)]? {
        var changes: [(subject: DefaultsSubject, change: UserDefaultsWriter.Change)] = []
        for step in steps {
            guard case .change(let subject, let change) = step else { return nil }
            changes.append((subject, change))
        }
        return changes
    }

    /// Checks each of `requests` against the resolver's registry and
    /// handlers; `lookUp` reads a word that names a type (see
    /// `DefaultsSubject.named`).
    public init(
        _ requests: [Request], resolver: HandlerResolver,
        lookUp: (String) throws(DefaultsSubject.Problem) -> DefaultsSubject.NamedType
    ) {
        // The place that first set each key of each group.
        var written: [String: String] = [:]
        let claimedSchemes = resolver.catalog.claimedSchemes
        for request in requests {
            let subject: DefaultsSubject
            if let resolved = request.resolved {
                subject = resolved
            } else {
                do throws(DefaultsSubject.Problem) {
                    subject = try DefaultsSubject.named(
                        request.subject, registry: resolver.registry, claimedSchemes: claimedSchemes, lookUp: lookUp)
                } catch {
                    steps.append(.refused(place: request.place, .subject(request.subject, problem: error.description)))
                    continue
                }
            }
            steps.append(Self.step(request, subject, resolver: resolver, written: &written))
        }
    }

    /// The step of `request` for its `subject`: its application and role
    /// checked, and its keys not set before in their group.
    private static func step(
        _ request: Request, _ subject: DefaultsSubject, resolver: HandlerResolver, written: inout [String: String]
    ) -> Step {
        func refused(_ refusal: Refusal) -> Step { .refused(place: request.place, refusal) }
        if let app = request.app {
            let handler: HandlerResolver.Handler
            switch resolver.handler(app) {
            case .success(let found): handler = found
            case .failure
            where request.action == .removeAssociation
                && resolver.catalog.claims.contains(where: { $0.handlerID == app }):
                // An application that can no longer run may still be named in a list.
                return .change(
                    subject, UserDefaultsWriter.Change(keys: subject.keys, handlerID: app, action: request.action))
            case .failure(let error): return refused(.application(app, problem: error.message))
            }
            if let role = request.role {
                if subject.isWildcard { return refused(.wildcardRole(request.subject)) }
                if subject.scheme != nil { return refused(.schemeRole(request.subject)) }
                if case .desktopEntry = handler.source { return refused(.desktopEntryRole(app: app)) }
                if let filter = HandlerResolver.RoleFilter(rawValue: role.rawValue.lowercased()),
                    let exclusion = resolver.resolve(subject.type, role: filter).excluded.first(where: { $0.id == app })
                {
                    return refused(
                        .excludedFromRole(app: app, role: role, subject: subject.label, reason: exclusion.reason))
                }
            }
        }
        let group =
            request.action == .setDefault ? UserDefaultsWriter.groupName(for: request.role) : request.action.rawValue
        for key in subject.keys {
            let slot = group + "\u{0}" + key.lowercased()
            if let earlier = written[slot] { return refused(.repeated(request.subject, key: key, earlier: earlier)) }
            written[slot] = request.place
        }
        return .change(
            subject,
            UserDefaultsWriter.Change(
                keys: subject.keys, role: request.role, handlerID: request.app, action: request.action))
    }

    /// One request for each type and scheme the application `app` declares
    /// it opens (a desktop entry's `MimeType`, a bundle's document and URL
    /// types; a rank of None or a role of None or QLGenerator left out), each
    /// key once, as `set-default --all-declared` sets them; and the claims
    /// left out because their MIME type cannot be a key of `mimeapps.list`.
    public static func declaredRequests(
        of app: String, resolver: HandlerResolver
    ) -> (requests: [Request], unwritable: [AssociationClaim]) {
        var requests: [Request] = []
        var unwritable: [AssociationClaim] = []
        var keys: Set<String> = []
        for claim in resolver.catalog.claims where claim.handlerID == app && claim.kind == .declared {
            if claim.rank == .none || claim.role == AppBundle.Role.none || claim.role == .qlGenerator { continue }
            guard let type = resolver.types(named: claim).first else { continue }
            var subject: DefaultsSubject
            if let scheme = URLScheme.isSchemeType(type)
                ? URLScheme(handlerMIMEType: claim.typeName) ?? URLScheme(claim.typeName) : nil
            {
                subject = DefaultsSubject(
                    label: "URL scheme \(scheme.name)", keys: [scheme.handlerMIMEType], type: type, scheme: scheme)
            } else if claim.typeNameKind == .mimeType {
                // A key GLib can match (MIME types are lower case) and uti reads back.
                let key = claim.typeName.lowercased()
                guard UserDefaultsWriter.isWritableKey(key) else {
                    unwritable.append(claim)
                    continue
                }
                let wildcard = claim.isWildcard
                subject = DefaultsSubject(
                    label: wildcard ? "every \(key.dropLast(1)) type" : type.identifier,
                    keys: [key], type: type, isWildcard: wildcard)
            } else {
                subject = DefaultsSubject(type: type)
            }
            subject.keys = subject.keys.filter { keys.insert($0.lowercased()).inserted }
            if subject.keys.isEmpty { continue }
            requests.append(Request(subject: claim.typeName, app: app, role: nil, resolved: subject))
        }
        return (requests, unwritable)
    }
}

extension UserDefaultsWriter.Change {
    /// Whether this removal took its application out of a default group
    /// (not only out of `[Added Associations]`), by the edits it made.
    public func removedDefault(in edits: [UserDefaultsWriter.Edit]) -> Bool {
        guard action == .removeAssociation, let app = handlerID else { return false }
        return edits.contains { edit in
            edit.before.contains(app) && !edit.after.contains(app)
                && keys.contains { $0.lowercased() == edit.key.lowercased() }
                && edit.group != UserDefaultsWriter.addedGroup
        }
    }
}
