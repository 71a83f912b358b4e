import UniformTypes

/// One key that a `mimeapps.list` default group sets, and what it comes to.
public struct DefaultSetting: Sendable {
    /// Why a default named for the key is not the one used.
    public struct Passed: Sendable {
        /// The list entry that names the application, with its file and line.
        public var claim: AssociationClaim
        /// Why it is not the one used: the entry in use comes first (`FILE:LINE comes first`), or why
        /// the application cannot be used.
        public var reason: String
    }

    /// The key as the most important list spells it (`image/png`,
    /// `x-scheme-handler/https`, `image/*`, or an identifier).
    public var key: String
    /// The role the default is for (`[X-UTI Default Viewer]` and the like);
    /// nil for every role.
    public var role: AppBundle.Role?
    /// The type the key names: a wildcard names every type of its major
    /// type, and has none here.
    public var type: UniformType?
    /// The scheme of an `x-scheme-handler/NAME` key.
    public var scheme: URLScheme?
    /// The default in effect for the key: the most important list's first
    /// application that can be used; nil when none can.
    public var current: HandlerResolver.Candidate?
    /// The other applications the lists name for the key, each with why it
    /// is not the one used (a more important list, or it cannot be used).
    public var passed: [Passed]
    /// What opens `type` (for `role`) once every list, declaration and
    /// supertype is counted; it differs from `current` when another key of
    /// the same type (an alias such as `image/x-png`) comes first.
    public var opensWith: HandlerResolver.Candidate?

    /// Whether the key names every MIME type of a major type (`image/*`).
    public var isWildcard: Bool { AssociationClaim.isWildcard(key) }

    /// Whether only `uti` reads the key: a wildcard (`image/*`) or a type's
    /// identifier (`public.image`), which an earlier `set-default` wrote
    /// for a subject without a MIME type of its own and which GIO and
    /// xdg-mime ignore. Setting the same subject again writes its MIME
    /// types and removes the key.
    public var onlyUTIReads: Bool { isWildcard || (scheme == nil && !key.contains("/")) }
}

extension HandlerResolver {
    /// Every key the lists' default groups set, sorted by key, then role
    /// (every role first): `[Default Applications]` of each
    /// `mimeapps.list`, `DESKTOP-mimeapps.list` and `defaults.list`, and
    /// the role groups `uti set-default --role` writes.
    public func defaultSettings() -> [DefaultSetting] {
        var order: [String] = []
        var byKey: [String: [AssociationClaim]] = [:]
        for claim in catalog.claims where claim.kind == .userDefault {
            let slot = claim.typeName.lowercased() + "\u{0}" + (claim.role?.rawValue ?? "")
            if byKey[slot] == nil { order.append(slot) }
            byKey[slot, default: []].append(claim)
        }
        var looked: [String: Result<Handler, Diagnostic>] = [:]
        func handlerFor(_ id: String) -> Result<Handler, Diagnostic> {
            if let known = looked[id] { return known }
            let found = handler(id)
            looked[id] = found
            return found
        }
        var settings: [DefaultSetting] = []
        for slot in order {
            let claims = byKey[slot]!
            let first = claims[0]
            let scheme = first.typeNameKind == .mimeType ? URLScheme(handlerMIMEType: first.typeName) : nil
            let type = first.isWildcard ? nil : types(named: first).first
            var current: Candidate?
            var passed: [DefaultSetting.Passed] = []
            for claim in claims {
                switch handlerFor(claim.handlerID) {
                case .failure(let error):
                    passed.append(DefaultSetting.Passed(claim: claim, reason: error.message))
                case .success(let handler):
                    if let current {
                        passed.append(DefaultSetting.Passed(claim: claim, reason: "\(current.claim.place) comes first"))
                    } else if let matched = type ?? registry.declaredType("public.data") {
                        current = Candidate(handler: handler, claim: claim, matchedType: matched, distance: 0)
                    }
                }
            }
            let filter = first.role.map { RoleFilter(rawValue: $0.rawValue.lowercased()) ?? .any } ?? .any
            let opensWith = type.flatMap { resolve($0, role: filter).defaultCandidate }
            settings.append(
                DefaultSetting(
                    key: first.typeName, role: first.role, type: type, scheme: scheme,
                    current: current, passed: passed, opensWith: opensWith))
        }
        return settings.sorted { a, b in
            let left = (a.key.lowercased(), a.role?.rawValue ?? ""),
                right = (b.key.lowercased(), b.role?.rawValue ?? "")
            return left.0 != right.0 ? left.0.utf8.lexicographicallyPrecedes(right.0.utf8) : left.1 < right.1
        }
    }
}
