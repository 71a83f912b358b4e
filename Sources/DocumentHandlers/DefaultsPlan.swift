import UniformTypes

/// What a default is set for: a type, a URL scheme or a wildcard, and the
/// keys of `mimeapps.list` its default is written under.
///
/// Every key is one GIO and xdg-mime read: a MIME type (with its aliases)
/// or `x-scheme-handler/NAME`. A subject without a MIME type of its own, a
/// wildcard (`image/*`) or an abstract type (`public.image`), stands for
/// the MIME types under it: `expanded(for:in:)` lists them.
public struct DefaultsSubject: Sendable {
    /// How the subject is named to a person: the type's identifier, `URL
    /// scheme https`, `every image type`.
    public var label: String
    /// The keys the default is written under: the type's MIME types,
    /// `x-scheme-handler/NAME`, or, once expanded, the MIME types an
    /// abstract subject stands for; empty for an abstract subject not yet
    /// expanded.
    public var keys: [String]
    /// The type; `public.data` for a wildcard.
    public var type: UniformType
    /// The URL scheme, when the subject is one.
    public var scheme: URLScheme?
    /// Whether the subject is a wildcard (`image/*`), which stands for
    /// every type whose MIME type is of that major type.
    public var isWildcard: Bool
    /// The key an abstract subject was written under before (`image/*`, or
    /// the type's identifier), which only `uti` reads: setting the
    /// subject's default removes it. Nil for a subject with keys of its own.
    public var formerKey: String?
    /// Whether the subject has no MIME type of its own (a wildcard, or a
    /// type without a MIME type) and stands for the MIME types under it.
    public var isAbstract: Bool { formerKey != nil }

    /// A subject with these parts.
    public init(label: String, keys: [String], type: UniformType, scheme: URLScheme? = nil, isWildcard: Bool = false) {
        self.label = label
        self.keys = keys
        self.type = type
        self.scheme = scheme
        self.isWildcard = isWildcard
    }

    /// A wildcard's subject (`image/*`): every type whose preferred MIME
    /// type is of that major type.
    public init(wildcard: String, registry: TypeRegistry) {
        let key = wildcard.lowercased()
        self.init(
            label: "every \(key.dropLast(1)) type", keys: [], type: registry.declaredType("public.data")!,
            isWildcard: true)
        formerKey = key
    }

    /// A type's subject: its default is written under each of its MIME
    /// types; a type without one is abstract and stands for the types
    /// conforming to it.
    public init(type: UniformType) {
        let mimeTypes = type.tags(.mimeType)
        self.init(label: type.identifier, keys: mimeTypes, type: type)
        if mimeTypes.isEmpty { formerKey = type.identifier }
    }

    /// The subject of a MIME type an application declares (`key`, lower
    /// case) for `type`: written under `key`, then under the type's other
    /// MIME types (its aliases), as `init(type:)` writes them.
    init(type: UniformType, declaredAs key: String) {
        self.init(type: type)
        keys = [key] + keys.filter { $0.lowercased() != key && Self.isConcreteKey($0) }
        formerKey = nil
    }

    /// A URL scheme's subject, written under `x-scheme-handler/NAME`.
    public init(scheme: URLScheme, registry: TypeRegistry) {
        self.init(
            label: "URL scheme \(scheme.name)", keys: [scheme.handlerMIMEType], type: scheme.type(in: registry),
            scheme: scheme)
    }

    /// Whether `mime` can be a key GIO and xdg-mime read for a type: a
    /// MIME type (no wildcard, no scheme) that the file can hold.
    static func isConcreteKey(_ mime: String) -> Bool {
        mime.contains("/") && !mime.contains("*") && URLScheme(handlerMIMEType: mime) == nil
            && UserDefaultsWriter.isWritableKey(mime)
    }

    /// The subject with `keys` set to the MIME types an abstract subject
    /// stands for (a subject with keys of its own is returned as it is).
    ///
    /// A wildcard (`image/*`) stands for every declared type whose
    /// preferred MIME type is of its major type; an abstract type, for
    /// every declared type conforming to it. Of those, only the types
    /// `app` is offered for are kept (see `HandlerResolver.offers(_:for:)`);
    /// a nil `app` (clearing a default, adding an association) keeps them
    /// all. Each type kept gives all its MIME types (its aliases too, which
    /// xdg-mime reads as they are written and GIO reads as the canonical
    /// type), each once, in the registry's order.
    public func expanded(for app: String?, in resolver: HandlerResolver) -> DefaultsSubject {
        if let app {
            guard resolver.catalog.claims.contains(where: { $0.handlerID == app }) else {
                return expanded(in: resolver) { _ in false }
            }
            return expanded(in: resolver) { resolver.offers(app, for: $0) }
        }
        return expanded(in: resolver) { _ in true }
    }

    /// The subject with `keys` set to the MIME types an abstract subject
    /// stands for where the application `app` is associated, as
    /// `set-default --remove` takes it out: the types `resolve(_:)` offers
    /// it for (by a declaration, an association or a default, directly or
    /// through a supertype), and those whose MIME type a list names it for
    /// (an application that can no longer run). A subject with keys of its
    /// own is returned as it is.
    public func expanded(removing app: String, in resolver: HandlerResolver) -> DefaultsSubject {
        var named: Set<String> = []
        for claim in resolver.catalog.claims where claim.handlerID == app && claim.kind != .removed {
            named.insert(claim.typeName.lowercased())
        }
        return expanded(in: resolver) { member in
            member.tags(.mimeType).contains { named.contains($0.lowercased()) }
                || resolver.resolve(member).candidates.contains { $0.handler.id == app }
        }
    }

    /// The subject with `keys` set to the MIME types of the types an
    /// abstract subject covers that `keeps` accepts (see
    /// `expanded(for:in:)`).
    private func expanded(in resolver: HandlerResolver, keeping keeps: (UniformType) -> Bool) -> DefaultsSubject {
        guard let formerKey else { return self }
        let covered: [UniformType]
        if isWildcard {
            let major = formerKey.dropLast(1)
            covered = resolver.registry.types(withTagOf: .mimeType) { _ in true }.filter {
                $0.preferredMIMEType?.lowercased().hasPrefix(major) == true
            }
        } else {
            covered = resolver.registry.descendants(of: type).filter(\.isDeclared)
        }
        var expanded = self
        expanded.keys = []
        var seen: Set<String> = []
        for member in covered {
            let tags = member.tags(.mimeType).filter(Self.isConcreteKey)
            guard !tags.isEmpty, keeps(member) else { continue }
            for tag in tags where seen.insert(tag.lowercased()).inserted { expanded.keys.append(tag) }
        }
        return expanded
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
        if AssociationClaim.isWildcard(word) { return DefaultsSubject(wildcard: word, registry: registry) }
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
    /// any, as `open-in` resolves it: for a wildcard or an abstract type, a
    /// candidate for any of the MIME types in `keys` (the keys written,
    /// never the wildcard or the abstract type itself); otherwise one for
    /// the subject's type.
    public func candidate(_ id: String, in resolver: HandlerResolver) -> HandlerResolver.Candidate? {
        guard isAbstract else { return resolver.resolve(type).candidates.first { $0.handler.id == id } }
        for key in keys {
            guard let type = resolver.registry.type(tag: key, tagClass: .mimeType, conformingTo: nil) else {
                continue
            }
            if let found = resolver.resolve(type).candidates.first(where: { $0.handler.id == id }) {
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
        /// The subject (as written) has no MIME type, and no type under
        /// it has one: nothing GIO or xdg-mime reads can be written.
        case noMIMEType(String, subject: String)
        /// The application is offered for none of the MIME types an
        /// abstract subject (as written) stands for.
        case noneOffered(String, app: String, subject: String)
        /// The application, to be removed, is associated with none of the
        /// MIME types an abstract subject (as written) stands for.
        case notAssociated(String, app: String, subject: String)
        /// The application, to be a URL scheme's default, takes only local
        /// files (its `Exec` has `%f` or `%F`, not `%u` or `%U`), so
        /// `uti open` and `open-in` could not give it a URL of the scheme.
        case urlNotAccepted(app: String, scheme: String)

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
            case .noMIMEType(let word, let subject):
                "\(value(word)): \(value(subject)) has no MIME type, nor has any type under it; "
                    + "mimeapps.list keys are MIME types"
            case .noneOffered(let word, let app, let subject):
                "\(value(word)): \(value(app)) opens none of the MIME types of \(value(subject)) "
                    + "(it declares none and is added for none); name a MIME type to make it the default anyway"
            case .notAssociated(let word, let app, let subject):
                "\(value(word)): \(value(app)) is offered for none of the MIME types of \(value(subject)); "
                    + "nothing to remove"
            case .urlNotAccepted(let app, let scheme):
                "\(value(app)) cannot be the default for \(value(scheme)) URLs: its Exec takes local files "
                    + "only (%f or %F, no %u or %U), so uti open and open-in could not give it a URL"
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

    /// The changes of `mimeapps.list` to make, in order, when no request
    /// was refused (nil otherwise): each step's change, and after the
    /// change of an abstract subject the removal of its former key
    /// (`image/*`, `public.image`) from the same group, so that no key
    /// only `uti` reads is left to say otherwise.
    public var fileChanges: [UserDefaultsWriter.Change]? {
        changes.map { changes in
            changes.flatMap { subject, change -> [UserDefaultsWriter.Change] in
                guard change.action == .setDefault, let former = subject.formerKey,
                    !change.keys.contains(where: { $0.lowercased() == former })
                else { return [change] }
                return [change, UserDefaultsWriter.Change(keys: [former], role: change.role, handlerID: nil)]
            }
        }
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
        let subjects = requests.map { request -> Result<DefaultsSubject, DefaultsSubject.Problem> in
            if let resolved = request.resolved { return .success(resolved) }
            return Result { () throws(DefaultsSubject.Problem) in
                try DefaultsSubject.named(
                    request.subject, registry: resolver.registry, claimedSchemes: claimedSchemes, lookUp: lookUp)
            }
        }
        // A key a request names itself is that request's: another's
        // wildcard or abstract type leaves it out, whatever their order.
        var named: Set<String> = []
        for (request, subject) in zip(requests, subjects) where request.action == .setDefault {
            guard case .success(let subject) = subject, !subject.isAbstract else { continue }
            let group = UserDefaultsWriter.groupName(for: request.role)
            for key in subject.keys { named.insert(AssociationTable.slot(group, key)) }
        }
        for (request, subject) in zip(requests, subjects) {
            switch subject {
            case .success(let subject):
                steps.append(Self.step(request, subject, resolver: resolver, named: named, written: &written))
            case .failure(let error):
                steps.append(.refused(place: request.place, .subject(request.subject, problem: error.description)))
            }
        }
    }

    /// The step of `request` for its `subject`: its application and role
    /// checked, and its keys not set before in their group.
    private static func step(
        _ request: Request, _ subject: DefaultsSubject, resolver: HandlerResolver, named: Set<String>,
        written: inout [String: String]
    ) -> Step {
        func refused(_ refusal: Refusal) -> Step { .refused(place: request.place, refusal) }
        var subject = subject
        // An association of a wildcard or an abstract type is written under the MIME types it stands
        // for: added for every one, removed where the application is associated.
        var uncovered: Refusal?
        if subject.isAbstract, subject.keys.isEmpty, request.action != .setDefault, let app = request.app {
            let covered = subject.expanded(for: nil, in: resolver)
            if request.action == .removeAssociation {
                subject = subject.expanded(removing: app, in: resolver)
            } else {
                subject = covered
            }
            if subject.keys.isEmpty {
                uncovered =
                    covered.keys.isEmpty
                    ? .noMIMEType(request.subject, subject: subject.label)
                    : .notAssociated(request.subject, app: app, subject: subject.label)
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
                if let uncovered { return refused(uncovered) }
                return .change(
                    subject, UserDefaultsWriter.Change(keys: subject.keys, handlerID: app, action: request.action))
            case .failure(let error): return refused(.application(app, problem: error.message))
            }
            if let uncovered { return refused(uncovered) }
            if request.action == .setDefault, let scheme = subject.scheme, !handler.takesURLs {
                // `uti open` and `open-in` would refuse every URL of the scheme with this application.
                return refused(.urlNotAccepted(app: app, scheme: scheme.name))
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
        if subject.isAbstract && subject.keys.isEmpty {
            // A wildcard or an abstract type is written as the MIME types it stands for.
            subject = subject.expanded(for: request.app, in: resolver)
            subject.keys.removeAll { named.contains(AssociationTable.slot(group, $0)) }
            if subject.keys.isEmpty, let app = request.app {
                let covered = subject.expanded(for: nil, in: resolver)
                return refused(
                    covered.keys.isEmpty
                        ? .noMIMEType(request.subject, subject: subject.label)
                        : .noneOffered(request.subject, app: app, subject: subject.label))
            }
        }
        for key in subject.keys {
            let slot = AssociationTable.slot(group, key)
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
    /// types; a rank of None or a role of None or QLGenerator left out; a
    /// wildcard or an abstract type as the MIME types under it), each
    /// key once, as `set-default --all-declared` sets them; and the claims
    /// left out because their MIME type cannot be a key of `mimeapps.list`
    /// (or, for a wildcard or a type without one, no MIME type under it can),
    /// or, for a URL scheme, because the application's command takes local
    /// files only (`takesURLs`).
    public static func declaredRequests(
        of app: String, resolver: HandlerResolver
    ) -> (requests: [Request], unwritable: [AssociationClaim]) {
        var requests: [Request] = []
        var unwritable: [AssociationClaim] = []
        var keys: Set<String> = []
        let takesURLs = (try? resolver.handler(app).get())?.takesURLs ?? true
        for claim in resolver.catalog.claims where claim.handlerID == app && claim.kind == .declared {
            if claim.rank == .none || claim.role == AppBundle.Role.none || claim.role == .qlGenerator { continue }
            guard let type = resolver.types(named: claim).first else { continue }
            var subject: DefaultsSubject
            if let scheme = URLScheme.isSchemeType(type)
                ? URLScheme(handlerMIMEType: claim.typeName) ?? URLScheme(claim.typeName) : nil
            {
                guard takesURLs else {
                    unwritable.append(claim)
                    continue
                }
                subject = DefaultsSubject(
                    label: "URL scheme \(scheme.name)", keys: [scheme.handlerMIMEType], type: type, scheme: scheme)
            } else if claim.typeNameKind == .mimeType {
                // A key GLib can match (MIME types are lower case) and uti reads back.
                let key = claim.typeName.lowercased()
                guard UserDefaultsWriter.isWritableKey(key) else {
                    unwritable.append(claim)
                    continue
                }
                subject =
                    claim.isWildcard
                    ? DefaultsSubject(wildcard: key, registry: resolver.registry)
                    : DefaultsSubject(type: type, declaredAs: key)
            } else {
                subject = DefaultsSubject(type: type)
            }
            // A wildcard or an abstract type: the MIME types under it the application opens.
            subject = subject.expanded(for: app, in: resolver)
            if subject.isAbstract && subject.keys.isEmpty {
                unwritable.append(claim)
                continue
            }
            subject.keys = subject.keys.filter { keys.insert($0.lowercased()).inserted }
            if subject.keys.isEmpty { continue }
            requests.append(Request(subject: claim.typeName, app: app, role: nil, resolved: subject))
        }
        return (requests, unwritable)
    }
}

extension UserDefaultsWriter.Change {
    /// Whether `edits` rewrote any of this change's keys (in any group):
    /// false when the file already said what the change says.
    public func edited(in edits: [UserDefaultsWriter.Edit]) -> Bool {
        let keys = Set(keys.map { $0.lowercased() })
        return edits.contains { keys.contains($0.key.lowercased()) }
    }

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

extension HandlerResolver.Handler {
    /// Whether the application can be given a URL that is not a local
    /// file's, as `commands(opening:)` makes its command: false for a
    /// desktop entry whose `Exec` takes local files only (`%f`, `%F`).
    public var takesURLs: Bool {
        let scheme = URLScheme("https")!
        guard case .failure(let problem) = commands(opening: [.url("https:", scheme: scheme)], environment: [:])
        else { return true }
        return problem.code != .urlNotAccepted
    }
}

extension HandlerResolver {
    /// Whether the application `id` is offered for `type` (it is one of
    /// `resolve(type)`'s candidates) through what it declares, an added
    /// association, or a default set for a MIME type: a default under a
    /// key only `uti` reads (`image/*`, an identifier) does not count.
    /// `set-default` writes an abstract subject's default only for the
    /// types its application is offered for.
    public func offers(_ id: String, for type: UniformType) -> Bool {
        let resolution = resolve(type)
        guard let candidate = resolution.candidates.first(where: { $0.handler.id == id }) else { return false }
        let claim = candidate.claim
        if claim.kind != .userDefault || (claim.typeNameKind == .mimeType && !claim.isWildcard) { return true }
        let chain = Set(resolution.chain.map { $0.identifier.lowercased() })
        return catalog.claims.contains { other in
            other.handlerID == id && (other.kind == .declared || other.kind == .added)
                && types(named: other).contains { chain.contains($0.identifier.lowercased()) }
        }
    }
}
