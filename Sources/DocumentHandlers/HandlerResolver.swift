import SystemBase
import UniformTypes

/// Which applications open a type, best first, and why.
///
/// The document's type and its supertypes are tried nearest first (breadth
/// first, MIME `sub-class-of` parents before declared ones, as GLib walks
/// them; see `supertypeChain`). For each, in order: the defaults the
/// `mimeapps.list` files set for it, then every application that declares or
/// is added to it, Owner before Default before Alternate (desktop entries
/// count as Default, and keep GLib's order among themselves). A `Removed`
/// association hides an application from that source's own declarations and
/// from every less important source, for this type and its supertypes.
/// An application whose rank or role for a type is None is never offered
/// for it, nor through a supertype claim after it; one whose role is
/// QLGenerator is not offered through that claim.
///
/// A URL scheme's type stands alone: only claims of that scheme
/// (`x-scheme-handler/NAME`, `CFBundleURLSchemes`) count, as in GIO and
/// Launch Services.
public struct HandlerResolver: Sendable {
    /// Narrows candidates by what they do with the document.
    public enum RoleFilter: String, Sendable, CaseIterable {
        /// Every application that can open it.
        case any
        /// Applications that can show it: Viewer, Editor, and desktop
        /// entries (which declare no role).
        case viewer
        /// Only applications whose role is Editor.
        case editor
        /// Only applications whose role is Shell.
        case shell

        /// The role a user default for this filter is recorded under; nil for `any`.
        public var defaultRole: AppBundle.Role? {
            switch self {
            case .any: nil
            case .viewer: .viewer
            case .editor: .editor
            case .shell: .shell
            }
        }

        func admits(_ role: AppBundle.Role?) -> Bool {
            switch self {
            case .any: true
            case .viewer: role == nil || role == .viewer || role == .editor
            case .editor: role == .editor
            case .shell: role == .shell
            }
        }
    }

    /// An application that can be offered.
    public struct Handler: Sendable {
        /// What a handler is read from.
        public enum Source: Sendable {
            /// A desktop entry, run by its `Exec` line.
            case desktopEntry(DesktopEntry)
            /// An app bundle, run by its executable with the files and URLs as arguments.
            case bundle(AppBundle)
        }

        /// A desktop file ID or a bundle identifier.
        public var id: String
        /// The name to show: the entry's `Name` (else the ID) or the bundle's name.
        public var name: String
        /// The desktop entry or app bundle that runs it.
        public var source: Source
        /// The desktop entry file or the bundle folder.
        public var location: String

        /// The argument vectors that open `files` (absolute paths), or why
        /// there are none.
        public func commands(for files: [String]) -> Result<[[String]], ExecCommand.Problem> {
            commands(opening: files.map(OpenTarget.file))
        }

        /// The argument vectors that open `targets` (files and URLs), or why
        /// there are none: a command that takes only local files (`%f`,
        /// `%F`) cannot open a URL. An entry with `Terminal=true` runs in
        /// the terminal `ExecCommand.terminal(environment:)` finds in
        /// `environment`.
        public func commands(
            opening targets: [OpenTarget],
            environment: [String: String] = ProcessEnvironment.current
        ) -> Result<[[String]], ExecCommand.Problem> {
            switch source {
            case .desktopEntry(let entry):
                guard let exec = entry.exec else {
                    return .failure(ExecCommand.Problem(code: .noCommand, message: "the entry has no usable Exec line"))
                }
                let details = ExecCommand.EntryDetails(icon: entry.icon, name: entry.name, location: entry.path)
                let commands: [[String]]
                do { commands = try exec.commands(opening: targets, entry: details) } catch {
                    return .failure(ExecCommand.Problem(code: error.code, message: "\(id): \(error.message)"))
                }
                guard entry.terminal else { return .success(commands) }
                // Terminal=true: in a terminal, as the desktop runs it.
                switch ExecCommand.terminal(environment: environment) {
                case .success(let prefix): return .success(commands.map { prefix + $0 })
                case .failure(let problem):
                    return .failure(ExecCommand.Problem(code: problem.code, message: "\(id): \(problem.message)"))
                }
            case .bundle(let bundle):
                guard let program = bundle.executablePath else {
                    let what =
                        bundle.executable.map {
                            "its CFBundleExecutable \"\($0)\" is not an executable file in the bundle"
                        }
                        ?? "it has no CFBundleExecutable"
                    return .failure(
                        ExecCommand.Problem(
                            code: .notExecutable, message: "\(bundle.identifier) cannot be run: \(what)"))
                }
                return .success([[program] + targets.map(\.argument)])
            }
        }
    }

    /// An application offered for a type.
    public struct Candidate: Sendable {
        /// The application offered.
        public var handler: Handler
        /// The claim that put it here.
        public var claim: AssociationClaim
        /// The type in the document's chain that the claim names.
        public var matchedType: UniformType
        /// 0 when the claim names the document's own type, else the place
        /// of the supertype in nearest-first order.
        public var distance: Int
        /// Whether the claim names the document's own type, not a supertype.
        public var isExact: Bool { distance == 0 }

        /// "declares public.image (supertype) in LSItemContentTypes, Alternate, Viewer: /apps/Viewer.app/Contents/Info.plist:12"
        public var reason: String {
            let what: String
            switch claim.kind {
            case .userDefault: what = "set as the default for \(claim.typeName)"
            case .added: what = "added for \(claim.typeName)"
            case .declared, .removed: what = "declares \(claim.typeName)"
            }
            var parts = [what + (isExact ? "" : " (supertype)") + " in \(claim.key)"]
            if case .bundle = handler.source {
                parts.append(claim.rank.rawValue)
                if let role = claim.role { parts.append(role.rawValue) }
            }
            return parts.joined(separator: ", ") + ": " + claim.place
        }
    }

    /// An application that claims the type but is not offered.
    public struct Exclusion: Sendable {
        /// The application's desktop file ID or bundle identifier.
        public var id: String
        /// Why it is not offered: it cannot be used, a list removed it, its rank or role is None or QLGenerator,
        /// or its role is not the one asked for.
        public var reason: String
        /// The claim that named it when it was turned away.
        public var claim: AssociationClaim
    }

    /// The answer for one type.
    public struct Resolution: Sendable {
        /// The type asked about.
        public var type: UniformType
        /// The type and its supertypes, nearest first.
        public var chain: [UniformType]
        /// Best first; the first one is the default.
        public var candidates: [Candidate]
        /// Applications that claim the type or a supertype but are not offered, each once, in the order they were
        /// turned away.
        public var excluded: [Exclusion]
        /// The application that opens the type by default: the first candidate; nil when there is none.
        public var defaultCandidate: Candidate? { candidates.first }
    }

    /// The handlers and associations the resolver reads.
    public let catalog: HandlerCatalog
    /// The registry the types of claims, and their supertypes, are looked up in.
    public let registry: TypeRegistry
    /// Claims by the lowercased identifier of each type they name.
    private let claimsByType: [String: [Int]]

    /// A resolver of `catalog`'s claims, with the types each names looked up in `registry` once.
    public init(catalog: HandlerCatalog, registry: TypeRegistry) {
        self.catalog = catalog
        self.registry = registry
        var index: [String: [Int]] = [:]
        for (offset, claim) in catalog.claims.enumerated() {
            for type in Self.types(named: claim, in: registry) {
                let key = type.identifier.lowercased()
                if index[key]?.last != offset { index[key, default: []].append(offset) }
            }
        }
        claimsByType = index
    }

    /// The handler with this desktop file ID or bundle identifier, or why
    /// there is none. Desktop entries are checked (TryExec, Exec on PATH)
    /// only when asked for.
    public func handler(_ id: String) -> Result<Handler, Diagnostic> {
        if let entries = catalog.desktopEntries[id] {
            return Self.handler(id: id, entries: entries, searchPath: catalog.searchPath.programSearchPath)
        }
        if let bundle = catalog.bundles[id] {
            return .success(Handler(id: id, name: bundle.name, source: .bundle(bundle), location: bundle.path))
        }
        return .failure(Diagnostic(.error, file: id, "no desktop entry or app bundle has this ID"))
    }

    /// Every application that opens `type`, best first.
    public func resolve(_ type: UniformType, role: RoleFilter = .any) -> Resolution {
        let chain = supertypeChain(of: type)
        let claims = catalog.claims
        var candidates: [Candidate] = []
        var excluded: [Exclusion] = []
        var offered: Set<String> = []
        var blocked: Set<String> = []
        var turnedAway: Set<String> = []
        var looked: [String: Result<Handler, Diagnostic>] = [:]

        func exclude(_ id: String, _ reason: String, _ claim: AssociationClaim) {
            if offered.contains(id) || !turnedAway.insert(id).inserted { return }
            excluded.append(Exclusion(id: id, reason: reason, claim: claim))
        }
        func offer(_ claim: AssociationClaim, _ matched: UniformType, _ distance: Int, into level: inout [Candidate]) {
            let id = claim.handlerID
            guard !offered.contains(id) else { return }
            let found = looked[id] ?? handler(id)
            looked[id] = found
            switch found {
            case .failure(let error):
                exclude(id, error.message, claim)
            case .success(let handler):
                // A None rank or role refuses this type and every supertype claim after it.
                if claim.kind != .userDefault && (claim.rank == .none || claim.role == AppBundle.Role.none) {
                    blocked.insert(id)
                    let what = claim.rank == .none ? "rank" : "role"
                    return exclude(id, "its \(what) for \(claim.typeName) is None", claim)
                }
                if claim.kind != .userDefault && claim.role == .qlGenerator {
                    return exclude(
                        id, "its role for \(claim.typeName) is QLGenerator: it makes previews and opens nothing", claim)
                }
                if claim.kind == .userDefault, let defaultRole = claim.role {
                    // A default for one role counts only when that role is asked for.
                    guard defaultRole == role.defaultRole else { return }
                } else if !role.admits(claim.role) {
                    return exclude(
                        id,
                        "its role for \(claim.typeName) is \(claim.role?.rawValue ?? "not declared"), not \(role.rawValue)",
                        claim)
                }
                offered.insert(id)
                turnedAway.remove(id)
                excluded.removeAll { $0.id == id }
                level.append(Candidate(handler: handler, claim: claim, matchedType: matched, distance: distance))
            }
        }

        for (distance, matched) in chain.enumerated() {
            let named = (claimsByType[matched.identifier.lowercased()] ?? []).map { claims[$0] }
            // What names the type itself comes before a wildcard (`image/*`) that covers it.
            let here = named.filter { !$0.isWildcard } + named.filter(\.isWildcard)
            var level: [Candidate] = []
            // The default: the most important list's (one for the role asked
            // for before one for every role). The other lists' defaults take
            // their turn among the associations, as the MIME Applications
            // Associations spec reads each list in turn (its defaults, then
            // its additions) before the next.
            for claim in here where claim.kind == .userDefault && claim.role != nil && level.isEmpty {
                offer(claim, matched, distance, into: &level)
            }
            for claim in here where claim.kind == .userDefault && claim.role == nil && level.isEmpty {
                offer(claim, matched, distance, into: &level)
            }
            var associations: [Candidate] = []
            var precedence = Int.min
            var removedHere: [String] = []
            for claim in here {
                if claim.precedence != precedence {
                    blocked.formUnion(removedHere)
                    removedHere = []
                    precedence = claim.precedence
                }
                switch claim.kind {
                case .removed:
                    if !offered.contains(claim.handlerID) {
                        removedHere.append(claim.handlerID)
                        exclude(claim.handlerID, "removed for \(claim.typeName) in \(claim.place)", claim)
                    }
                case .added, .declared:
                    if blocked.contains(claim.handlerID) { continue }
                    // GLib ignores an association in a folder less important
                    // than the one holding the entry (the entry masks it).
                    if let owner = catalog.desktopEntryPrecedence[claim.handlerID], owner < claim.precedence {
                        continue
                    }
                    offer(claim, matched, distance, into: &associations)
                case .userDefault:
                    if blocked.contains(claim.handlerID) { continue }
                    offer(claim, matched, distance, into: &associations)
                }
            }
            blocked.formUnion(removedHere)
            // Stable: equal ranks keep source order.
            let ranked = associations.enumerated().sorted { a, b in
                (a.element.claim.rank, a.offset) < (b.element.claim.rank, b.offset)
            }.map(\.element)
            candidates += level + ranked
        }
        return Resolution(type: type, chain: chain, candidates: candidates, excluded: excluded)
    }

    /// The type and its supertypes: first the shared-mime-info
    /// `sub-class-of` ancestors of its MIME types, breadth first (the types
    /// GLib tries, in its order), then the declared supertypes of all of
    /// them, breadth first (which reach the broad types: public.image,
    /// public.plain-text, public.data).
    public func supertypeChain(of type: UniformType) -> [UniformType] {
        if URLScheme.isSchemeType(type) { return [type] }
        var chain = [type]
        var seen: Set<String> = [type.identifier.lowercased()]
        func mimeParents(_ t: UniformType) -> [UniformType] {
            guard let database = registry.mimeDatabase else { return [] }
            return t.tags(.mimeType).flatMap { mime in
                database.parents(of: mime).compactMap { registry.type(tag: $0, tagClass: .mimeType, conformingTo: nil) }
            }
        }
        func walk(_ parents: (UniformType) -> [UniformType], from start: Int) {
            var head = start
            while head < chain.count {
                for parent in parents(chain[head]) where seen.insert(parent.identifier.lowercased()).inserted {
                    chain.append(parent)
                }
                head += 1
            }
        }
        walk(mimeParents, from: 0)
        walk({ mimeParents($0) + $0.declaredParents.compactMap { self.registry.type(identifier: $0) } }, from: 0)
        return chain
    }

    // MARK: Building

    /// The types `claim` names (see `types(named:in:)`).
    public func types(named claim: AssociationClaim) -> [UniformType] { Self.types(named: claim, in: registry) }

    /// The types a wildcard key (`image/*`) covers: every declared type
    /// with a MIME type of that major type.
    public func types(coveredBy wildcard: String) -> [UniformType] { Self.types(coveredBy: wildcard, in: registry) }

    static func types(coveredBy wildcard: String, in registry: TypeRegistry) -> [UniformType] {
        let major = wildcard.dropLast(1).lowercased()
        return registry.types(withTagOf: .mimeType) { $0.lowercased().hasPrefix(major) }
    }

    /// The types a claim names: every declared type with that tag (a tag
    /// may be claimed by several), else the dynamic type conforming to
    /// `public.data` that a file with that tag gets. `*` (extensions)
    /// and `****` (OSTypes) mean any data; `fold` means a folder. A
    /// scheme, or the MIME type `x-scheme-handler/NAME`, names the scheme's type.
    static func types(named claim: AssociationClaim, in registry: TypeRegistry) -> [UniformType] {
        let name = claim.typeName
        func tagged(_ tagClass: TagClass) -> [UniformType] {
            let found = registry.types(tag: name, tagClass: tagClass, conformingTo: nil).filter(\.isDeclared)
            let data = registry.declaredType("public.data")
            return found.isEmpty ? [registry.dynamicType(tag: name, tagClass: tagClass, conformingTo: data)] : found
        }
        switch claim.typeNameKind {
        case .identifier:
            return registry.type(identifier: name).map { [$0] } ?? []
        case .mimeType:
            if let scheme = URLScheme(handlerMIMEType: name) { return [scheme.type(in: registry)] }
            if claim.isWildcard { return types(coveredBy: name, in: registry) }
            return tagged(.mimeType)
        case .urlScheme:
            return URLScheme(name).map { [$0.type(in: registry)] } ?? []
        case .filenameExtension:
            if name == "*" { return registry.declaredType("public.data").map { [$0] } ?? [] }
            return tagged(.filenameExtension)
        case .osType:
            if name == "****" { return registry.declaredType("public.data").map { [$0] } ?? [] }
            if name == "fold" { return registry.declaredType("public.folder").map { [$0] } ?? [] }
            return tagged(.osType)
        }
    }

    /// The desktop entry GLib would use for `id`: the most important file
    /// that can run (a lower one is used when a higher one cannot, as GLib
    /// does), refused when that file is Hidden.
    static func handler(id: String, entries: [DesktopEntry], searchPath: String?) -> Result<Handler, Diagnostic> {
        var firstReason: String?
        for entry in entries {
            if let reason = entry.unusableReason(searchPath: searchPath) {
                firstReason = firstReason ?? "\(reason) (\(entry.path))"
                continue
            }
            if entry.hidden {
                return .failure(Diagnostic(.error, file: entry.path, "Hidden=true in \(entry.path)"))
            }
            return .success(Handler(id: id, name: entry.name ?? id, source: .desktopEntry(entry), location: entry.path))
        }
        return .failure(Diagnostic(.error, file: entries.first?.path ?? id, firstReason ?? "no desktop entry"))
    }
}

/// A type or URL scheme an application claims, and which application opens
/// it by default.
public struct ApplicationClaim: Sendable {
    /// The first claim that names the type (a declaration, an added
    /// association, or a user default).
    public var claim: AssociationClaim
    /// The type the claim names; for a tag several types share, the first (preferred) one.
    public var type: UniformType
    /// The application that opens the type by default, if any.
    public var defaultHandlerID: String?
    /// Whether the application is that default.
    public var isDefault: Bool
}

extension HandlerResolver {
    /// Every type and scheme the application `id` claims, in the order of
    /// its claims (most important source first), each once, with whether
    /// it is the default for it under `role`: what `duti -l` shows.
    public func claims(of id: String, role: RoleFilter = .any) -> [ApplicationClaim] {
        var seen: Set<String> = []
        var result: [ApplicationClaim] = []
        for claim in catalog.claims where claim.handlerID == id && claim.kind != .removed {
            // A tag several types claim is shown once, as its preferred type.
            let types = Self.types(named: claim, in: registry)
            guard let type = types.first, !seen.contains(type.identifier.lowercased()) else { continue }
            seen.formUnion(types.map { $0.identifier.lowercased() })
            let best = resolve(type, role: role).defaultCandidate?.handler.id
            result.append(ApplicationClaim(claim: claim, type: type, defaultHandlerID: best, isDefault: best == id))
        }
        return result
    }
}
