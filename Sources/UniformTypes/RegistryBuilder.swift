import CompiledData
import PropertyLists
import SharedMIMEInfo

/// Collects declarations in order of increasing precedence, merges them,
/// checks them and builds an immutable `TypeRegistry`: the low-level way to
/// assemble a registry from declarations you hold in code.
///
/// To load the files a registry is usually made of (the system's MIME
/// data, app bundles, declaration folders, the paths a user names), with
/// their policies and a cache, use `TypeRegistry.load(_:cache:)` with
/// `RegistrySources`; `RegistrySources.addedInCode` joins declarations read
/// in code to those.
///
/// Merging: for one identifier (compared case-insensitively) an exported
/// declaration beats an imported one; between two of the same kind the later
/// source wins (user files override bundled ones). The winner takes the
/// place of the first declaration of that identifier in declaration order.
public struct RegistryBuilder {
    private var declarations: [TypeDeclaration] = []
    private var systemRecords: [SystemTypeRecord] = []
    private var diagnostics: [Diagnostic] = []
    private var mimeDatabase: MIMEDatabase?

    /// An empty builder, without even the bundled declarations (see
    /// `bundled()`).
    public init() {}

    /// A builder holding the bundled declarations.
    public static func bundled() -> RegistryBuilder {
        var builder = RegistryBuilder()
        builder.add(BundledDeclarations.all)
        return builder
    }

    /// Adds declarations, above those added before in precedence.
    public mutating func add(_ declarations: [TypeDeclaration]) {
        self.declarations.append(contentsOf: declarations)
    }

    /// Adds what a reader found, with its diagnostics.
    public mutating func add(_ reader: DeclarationReader) {
        declarations.append(contentsOf: reader.declarations)
        diagnostics.append(contentsOf: reader.diagnostics)
    }

    /// Adds the system's MIME types (lowest precedence). A type whose MIME
    /// type or alias a declaration already claims, or that is the format of
    /// a declared type (it lists that type's preferred extension, as the
    /// only system type to, and their kinds agree), adds its extensions
    /// and MIME names to that type; any other becomes a declared type
    /// named by `SystemTypeIdentifier`, conforming to its mapped
    /// `sub-class-of` parents, `public.plain-text` for `text/*`, and
    /// `public.data` (`public.item` for `inode/*`) when it has no other
    /// parent. A declared type's preferred MIME type becomes the system's
    /// name for its format (docs/semantics.md).
    public mutating func add(_ records: [SystemTypeRecord]) {
        systemRecords.append(contentsOf: records)
    }

    /// Adds a shared-mime-info database: its types, and the globs and magic
    /// the registry's file typing uses. A database with no folders at all
    /// (no shared-mime-info on the system) leaves file typing to declared
    /// extensions, as if none were added; its diagnostics are kept.
    public mutating func add(_ database: MIMEDatabase) {
        if !database.isEmpty { mimeDatabase = database }
        add(SystemTypeRecord.records(from: database))
        diagnostics += database.diagnostics
    }

    /// Declaration files and app bundles found in the search folders that
    /// could not be read, each as its error (the files' also among the
    /// diagnostics). A registry built with any is not cached, so that they
    /// are reported on every run until mended.
    public var skippedSources: [Diagnostic] = []

    /// Adds the declarations of a file found in a search folder; one that
    /// could not be read is also recorded in `skippedSources`.
    public mutating func add(found reader: DeclarationReader) {
        if let error = reader.fileError { skippedSources.append(error.skipping("file")) }
        add(reader)
    }

    /// Adds problems found while reading a source (such as a `mime.types`
    /// file), to be kept in the registry's `diagnostics`.
    public mutating func add(diagnostics more: [Diagnostic]) {
        diagnostics.append(contentsOf: more)
    }

    /// File-system kinds shared-mime-info names that Apple's types stand for.
    static let fileSystemKinds: [String: String] = [
        "inode/directory": "public.folder",
        "inode/symlink": "public.symlink",
        "inode/mount-point": "public.volume",
    ]

    /// Merges, checks and compiles the registry, and reads it in place.
    public func build() -> TypeRegistry {
        // An image just written is well formed.
        TypeRegistry(image: try! ImageView(compile(), kind: RegistryImage.kind), skippedSources: skippedSources)
    }

    /// The compiled registry image (see `RegistryImage`), carrying `extra`.
    func compile(extra: [UInt8] = []) -> [UInt8] {
        var diagnostics = self.diagnostics
        func report(_ severity: Diagnostic.Severity, _ origin: DeclarationOrigin, _ message: String) {
            diagnostics.append(Diagnostic(severity, file: origin.file, position: origin.position, message))
        }

        // 1. Merge declarations of the same identifier.
        var slotOf: [String: Int] = [:]
        var winners: [TypeDeclaration] = []
        var shadowed: [[DeclarationOrigin]] = []
        for declaration in declarations {
            let key = declaration.identifier.lowercased()
            guard let slot = slotOf[key] else {
                slotOf[key] = winners.count
                winners.append(declaration)
                shadowed.append([])
                continue
            }
            let current = winners[slot]
            let sameFile = current.origin.file == declaration.origin.file
            if sameFile && current.kind == declaration.kind {
                report(
                    .warning, declaration.origin,
                    "duplicate declaration of \(declaration.identifier) (first at \(current.origin)); this one wins")
            } else if sameFile {
                report(
                    .warning, declaration.origin,
                    "\(declaration.identifier) is both exported and imported (other at \(current.origin)); the exported one wins"
                )
            }
            if declaration.kind == .imported && current.kind == .exported {
                shadowed[slot].append(declaration.origin)
                if !sameFile {
                    report(
                        .note, declaration.origin,
                        "imported \(declaration.identifier) is ignored: exported at \(current.origin)")
                }
                continue
            }
            if !sameFile {
                report(
                    .note, declaration.origin,
                    "\(declaration.identifier) overrides the \(current.kind.rawValue) declaration at \(current.origin)")
            }
            shadowed[slot].append(current.origin)
            winners[slot] = declaration
        }

        // 1b. Fold in the system's MIME types. The tags each type declares
        //     itself are noted first: a tag system data adds never
        //     outranks a type that declares it.
        //     A system type that is one format with a declared type (it
        //     lists the declared type's preferred extension and their
        //     kinds agree) joins it: a first pass finds those pairs as
        //     they would be placed, the second merges them.
        var declaredTags = winners.map { RegistryImage.tagKeys(of: $0) }
        var supplements = [[DeclarationOrigin]](repeating: [], count: winners.count)
        var identifierAliases: [String: Int] = [:]
        var borrowed: [Int: Set<String>] = [:]
        var movedFrom: [Int: Int] = [:]
        if !systemRecords.isEmpty {
            var (w, s, sh, su) = (winners, slotOf, shadowed, supplements)
            var (aliases, b, m) = (identifierAliases, borrowed, movedFrom)
            let merges = mergeSystemRecords(
                into: &w, slotOf: &s, shadowed: &sh, supplements: &su, identifierAliases: &aliases, borrowed: &b,
                movedFrom: &m, declaredTags: declaredTags, merging: nil, report: { _, _, _ in })
            mergeSystemRecords(
                into: &winners, slotOf: &slotOf, shadowed: &shadowed, supplements: &supplements,
                identifierAliases: &identifierAliases, borrowed: &borrowed, movedFrom: &movedFrom,
                declaredTags: declaredTags, merging: merges, report: report)
        }
        declaredTags += [Set<String>](repeating: [], count: winners.count - declaredTags.count)

        // 2. Resolve parents.
        var parents: [[Int32]] = []
        parents.reserveCapacity(winners.count)
        for declaration in winners {
            var resolved: [Int32] = []
            for parent in declaration.conformsTo {
                if let index = slotOf[parent.lowercased()] {
                    if !resolved.contains(Int32(index)) { resolved.append(Int32(index)) }
                } else {
                    report(
                        .warning, declaration.origin,
                        "\(declaration.identifier) conforms to \(parent), which no source declares")
                }
            }
            parents.append(resolved)
        }

        // 3. Cycles: the strongly connected components of the parent graph
        //    (linear in types and parents, however deep the chains).
        for members in Self.cycles(parents) {
            // Named from the first member, along its parents inside the cycle.
            let inCycle = Set(members)
            var names = [winners[members[0]].identifier], seen: Set<Int> = [members[0]], queue = [members[0]], head = 0
            while head < queue.count {
                let next = queue[head]
                head += 1
                for p in parents[next].map(Int.init) where inCycle.contains(p) && seen.insert(p).inserted {
                    names.append(winners[p].identifier)
                    queue.append(p)
                }
            }
            report(
                .error, winners[members[0]].origin,
                "conformance cycle: \((names + [names[0]]).joined(separator: " -> "))")
        }

        // 4. Ancestors, breadth first, nearest first, listed up to
        //    `RegistryImage.ancestorListLimit` a type; a type with more (a
        //    chain thousands deep) is marked, and queries walk its parents,
        //    so neither the work nor the image grows with the square of a chain.
        var ancestors: [[Int32]] = []
        ancestors.reserveCapacity(winners.count)
        var seen = [Int](repeating: -1, count: winners.count)
        for index in winners.indices {
            var order: [Int32] = []
            var queue = parents[index]
            var head = 0
            seen[index] = index
            while head < queue.count && order.count <= RegistryImage.ancestorListLimit {
                let next = Int(queue[head])
                head += 1
                if seen[next] == index { continue }
                seen[next] = index
                order.append(Int32(next))
                queue.append(contentsOf: parents[next])
            }
            ancestors.append(order.count > RegistryImage.ancestorListLimit ? RegistryImage.unlisted : order)
        }

        return RegistryImage.write(
            RegistryImage.Input(
                declarations: winners, declaredTags: declaredTags, borrowedTags: borrowed,
                preferredMIMEMovedFrom: movedFrom, identifierAliases: identifierAliases,
                parents: parents, ancestors: ancestors,
                shadowed: shadowed, supplements: supplements,
                diagnostics: diagnostics, mimeDatabase: mimeDatabase),
            extra: extra)
    }

    /// The members of every conformance cycle, each cycle once, by slot:
    /// strongly connected components with more than one member or a type
    /// that names itself (Tarjan's algorithm, iterative).
    static func cycles(_ parents: [[Int32]]) -> [[Int]] {
        let n = parents.count
        var index = [Int](repeating: -1, count: n), low = [Int](repeating: 0, count: n)
        var onStack = [Bool](repeating: false, count: n)
        var stack: [Int] = [], result: [[Int]] = []
        var counter = 0
        for root in 0..<n where index[root] < 0 {
            // Frames of (node, next parent to look at).
            var frames: [(Int, Int)] = [(root, 0)]
            index[root] = counter
            low[root] = counter
            counter += 1
            stack.append(root)
            onStack[root] = true
            while let (node, next) = frames.last {
                if next < parents[node].count {
                    frames[frames.count - 1].1 += 1
                    let p = Int(parents[node][next])
                    if index[p] < 0 {
                        index[p] = counter
                        low[p] = counter
                        counter += 1
                        stack.append(p)
                        onStack[p] = true
                        frames.append((p, 0))
                    } else if onStack[p] {
                        low[node] = min(low[node], index[p])
                    }
                    continue
                }
                frames.removeLast()
                if let (caller, _) = frames.last { low[caller] = min(low[caller], low[node]) }
                guard low[node] == index[node] else { continue }
                var members: [Int] = []
                while let top = stack.popLast() {
                    onStack[top] = false
                    members.append(top)
                    if top == node { break }
                }
                if members.count > 1 || parents[node].contains(Int32(node)) { result.append(members.sorted()) }
            }
        }
        return result.sorted { $0[0] < $1[0] }
    }

    /// Folds the system's MIME types into `winners`: each joins the
    /// declared type that claims one of its names, or that it joins by
    /// extension, or becomes a type of its own, placed in Apple's tree.
    ///
    /// With `merging` nil (the first pass) the system types that are one
    /// format with a declared type are placed under it and returned: each
    /// one's canonical MIME type (normalized) and the declared type's slot.
    /// Given those pairs (the second pass), each such system type joins its
    /// declared type instead, and every declared type's preferred MIME type
    /// becomes the system's name for its format.
    /// `identifierAliases` receives the `SystemTypeIdentifier` identifier
    /// of every system type that joined a declared type, with that type's
    /// slot, where no type has the identifier itself.
    @discardableResult
    private func mergeSystemRecords(
        into winners: inout [TypeDeclaration], slotOf: inout [String: Int],
        shadowed: inout [[DeclarationOrigin]], supplements: inout [[DeclarationOrigin]],
        identifierAliases: inout [String: Int], borrowed: inout [Int: Set<String>], movedFrom: inout [Int: Int],
        declaredTags: [Set<String>], merging: [String: Int]?,
        report: (Diagnostic.Severity, DeclarationOrigin, String) -> Void
    ) -> [String: Int] {
        guard !systemRecords.isEmpty else { return [:] }
        let declaredCount = winners.count
        // The declared type that claims each MIME type: public first, then
        // exported, then declaration order (as the tag index ranks them).
        var claim: [String: Int] = [:]
        func rank(_ slot: Int) -> (Int, Int, Int) {
            let d = winners[slot]
            return (d.identifier.lowercased().hasPrefix("public.") ? 0 : 1, d.kind == .exported ? 0 : 1, slot)
        }
        for (slot, declaration) in winners.enumerated() {
            for tag in declaration.tags(.mimeType) {
                let key = TagClass.mimeType.normalize(tag)
                if let current = claim[key], rank(current) <= rank(slot) { continue }
                claim[key] = slot
            }
        }
        for (mime, identifier) in Self.fileSystemKinds where claim[mime] == nil {
            if let slot = slotOf[identifier] { claim[mime] = slot }
        }

        // A declared type without any MIME type also takes the MIME type
        // whose preferred extension it claims, when the media agrees
        // (text/x-csrc joins public.c-source through "c").
        var extensionClaim: [String: Int] = [:]
        for (slot, declaration) in winners.enumerated() {
            for tag in declaration.tags(.filenameExtension) {
                let key = TagClass.filenameExtension.normalize(tag)
                if let current = extensionClaim[key], rank(current) <= rank(slot) { continue }
                extensionClaim[key] = slot
            }
        }
        // Walks here visit at most `walkLimit` types: a chain thousands deep
        // (only a made-up database has one) is not walked once per record.
        let walkLimit = RegistryImage.ancestorListLimit
        func conforms(_ slot: Int, to identifier: String) -> Bool {
            var queue = [slot], seen: Set<Int> = [slot], head = 0
            while head < queue.count && head < walkLimit {
                let d = winners[queue[head]]
                head += 1
                if d.identifier.lowercased() == identifier { return true }
                for parent in d.conformsTo {
                    if let p = slotOf[parent.lowercased()], seen.insert(p).inserted { queue.append(p) }
                }
            }
            return false
        }
        let mediaRoots = [
            "text": "public.text", "image": "public.image", "audio": "public.audio",
            "video": "public.movie", "font": "public.font",
        ]
        // The record's first extension, or another one that is the declared
        // type's own preferred extension (video/mp2t lists *.m2t before
        // *.ts, the preferred extension of public.mpeg-2-transport-stream).
        // Only when no other shared-mime-info type could join that way:
        // text/x-objcsrc and text/x-matlab both list *.m, so neither joins
        // public.objective-c-source. (mime.types lists several spellings of
        // one type, `text/x-csh` and `application/x-csh`; it is not counted.)
        func mediaRoot(_ record: SystemTypeRecord) -> String {
            let media = String(TagClass.mimeType.normalize(record.mimeType).split(separator: "/").first ?? "")
            return mediaRoots[media] ?? "public.data"
        }
        func joinCandidate(_ record: SystemTypeRecord) -> (slot: Int, ext: String)? {
            for (i, ext) in record.extensions.enumerated() {
                let key = TagClass.filenameExtension.normalize(ext)
                guard let slot = extensionClaim[key], winners[slot].tags(.mimeType).isEmpty else { continue }
                let preferred = winners[slot].tags(.filenameExtension).first.map(TagClass.filenameExtension.normalize)
                guard i == 0 || preferred == key else { continue }
                if conforms(slot, to: mediaRoot(record)) { return (slot, key) }
            }
            return nil
        }
        var contenders: [String: Set<String>] = [:]
        for record in systemRecords where record.origin.source == .sharedMIMEInfo {
            for key in Set(record.extensions.map(TagClass.filenameExtension.normalize)) {
                guard let slot = extensionClaim[key], winners[slot].tags(.mimeType).isEmpty,
                    conforms(slot, to: mediaRoot(record))
                else { continue }
                contenders[key, default: []].insert(
                    TagClass.mimeType.normalize(mimeDatabase?.canonical(record.mimeType) ?? record.mimeType))
            }
        }
        func joinByExtension(_ record: SystemTypeRecord) -> Int? {
            guard let (slot, key) = joinCandidate(record), (contenders[key]?.count ?? 0) <= 1 else { return nil }
            return slot
        }

        func canonicalKey(_ mimeType: String) -> String {
            TagClass.mimeType.normalize(mimeDatabase?.canonical(mimeType) ?? mimeType)
        }
        // The shared-mime-info types that list each extension, by canonical name.
        var listing: [String: [String]] = [:]
        for record in systemRecords where record.origin.source == .sharedMIMEInfo {
            let mime = TagClass.mimeType.normalize(mimeDatabase?.canonical(record.mimeType) ?? record.mimeType)
            for key in Set(record.extensions.map(TagClass.filenameExtension.normalize))
            where !(listing[key]?.contains(mime) ?? false) {
                listing[key, default: []].append(mime)
            }
        }
        var soleContenders: [String: String?] = [:]
        func soleContender(_ key: String) -> String? {
            if let known = soleContenders[key] { return known }
            let all = listing[key] ?? []
            let roots = all.filter { mime in
                !all.contains { $0 != mime && (mimeDatabase?.isSubclass(mime, of: $0) ?? false) }
            }
            let sole = roots.count == 1 ? roots[0] : nil
            soleContenders[key] = .some(sole)
            return sole
        }

        // The first pass places only the system types that could be a
        // declared type's format (the only ones to list an extension a
        // declared type claims) and those they are sub-classes of, whose
        // places theirs follow: no other type decides a merge.
        var placedFirst: Set<String>?
        if merging == nil {
            var queue: [String] = []
            for record in systemRecords where record.origin.source == .sharedMIMEInfo {
                let mime = canonicalKey(record.mimeType)
                let candidate = record.extensions.contains { ext in
                    let key = TagClass.filenameExtension.normalize(ext)
                    return extensionClaim[key] != nil && soleContender(key) == mime
                }
                if candidate { queue.append(mime) }
            }
            var placed: Set<String> = []
            while let next = queue.popLast() {
                guard placed.insert(next).inserted else { continue }
                queue += (mimeDatabase?.parents(of: next) ?? []).map(canonicalKey)
            }
            placedFirst = placed
        }
        var created: [(slot: Int, record: SystemTypeRecord)] = []
        // The shared-mime-info types each declared type received, as the
        // database spells them, and where each such type is defined.
        var received: [Int: [String]] = [:]
        var definedAt: [String: DeclarationOrigin] = [:]
        for record in systemRecords {
            let names = [record.mimeType] + record.aliases
            var slot = names.lazy.compactMap { claim[TagClass.mimeType.normalize($0)] }.first ?? joinByExtension(record)
            if slot == nil, let placedFirst, !placedFirst.contains(canonicalKey(record.mimeType)) {
                continue
            }
            if slot == nil {
                guard let identifier = SystemTypeIdentifier.identifier(forMIMEType: record.mimeType) else {
                    report(
                        .warning, record.origin, "\(record.mimeType) is not a MIME type the registry can name; skipped")
                    continue
                }
                if let existing = slotOf[identifier.lowercased()] {
                    slot = existing
                } else if let target = merging?[canonicalKey(record.mimeType)] {
                    slot = target
                    supplements[target].append(record.origin)
                } else {
                    let declaration = TypeDeclaration(
                        identifier: identifier, kind: .imported, description: record.description,
                        origin: record.origin)
                    slot = winners.count
                    slotOf[identifier.lowercased()] = winners.count
                    winners.append(declaration)
                    shadowed.append([])
                    supplements.append([])
                    created.append((winners.count - 1, record))
                }
            } else if let s = slot {
                supplements[s].append(record.origin)
            }
            guard let target = slot else { continue }
            // In place: a copy would copy the type's tag lists for every record.
            winners[target].appendTags(names, tagClass: .mimeType)
            winners[target].appendTags(record.extensions, tagClass: .filenameExtension)
            for name in names where claim[TagClass.mimeType.normalize(name)] == nil {
                claim[TagClass.mimeType.normalize(name)] = target
            }
            // What only the second pass uses.
            guard merging != nil, target < declaredCount else { continue }
            if record.origin.source == .sharedMIMEInfo { received[target, default: []].append(record.mimeType) }
            if let identifier = SystemTypeIdentifier.identifier(forMIMEType: record.mimeType)?.lowercased(),
                slotOf[identifier] == nil, identifierAliases[identifier] == nil
            {
                identifierAliases[identifier] = target
            }
        }
        for record in systemRecords where merging != nil && record.origin.source == .sharedMIMEInfo {
            let key = canonicalKey(record.mimeType)
            if definedAt[key] == nil { definedAt[key] = record.origin }
        }

        // Parents of the created types, now that every MIME type has a home:
        // the types their `sub-class-of` parents map to, then the abstract
        // types of Apple's tree their media type and generic icon name
        // (`SystemTypePlacement`) unless a parent already leads there, and
        // `public.data` (`inode/*`: `public.item`) when nothing else.
        guard let dataSlot = slotOf["public.data"] else { return [:] }
        let itemSlot = slotOf["public.item"] ?? dataSlot
        var roots: [Int: [Int]] = [:]
        for (slot, record) in created {
            var parents: [String] = []
            for parent in record.parents {
                guard let target = claim[TagClass.mimeType.normalize(mimeDatabase?.canonical(parent) ?? parent)] else {
                    report(
                        .note, record.origin, "\(record.mimeType) is a sub-class of \(parent), which no source declares"
                    )
                    continue
                }
                let identifier = winners[target].identifier
                if target != slot && !parents.contains(identifier) { parents.append(identifier) }
            }
            winners[slot].conformsTo = parents
            roots[slot] = SystemTypePlacement.roots(mimeType: record.mimeType, genericIcon: record.genericIcon)
                .compactMap { slotOf[$0] }
        }
        // Whether `slot` reaches `root` through declared parents or the
        // roots a created type other than `deciding` is about to take.
        func leads(_ slot: Int, to root: Int, deciding: Int) -> Bool {
            var queue = [slot], seen: Set<Int> = [slot], head = 0
            while head < queue.count && head < walkLimit {
                let current = queue[head]
                head += 1
                if current == root { return true }
                for parent in winners[current].conformsTo {
                    if let p = slotOf[parent.lowercased()], seen.insert(p).inserted { queue.append(p) }
                }
                if current != deciding {
                    for p in roots[current] ?? [] where seen.insert(p).inserted { queue.append(p) }
                }
            }
            return false
        }
        for (slot, record) in created {
            var parents = winners[slot].conformsTo
            let parentSlots = parents.compactMap { slotOf[$0.lowercased()] }
            func implied(_ root: Int) -> Bool { parentSlots.contains { leads($0, to: root, deciding: slot) } }
            var added: [Int] = []
            for root in roots[slot] ?? [] where !implied(root) && !added.contains(root) {
                parents.append(winners[root].identifier)
                added.append(root)
            }
            // A file format is data even where its abstract type is not
            // (public.archive, public.spreadsheet, public.executable).
            let media = TagClass.mimeType.normalize(record.mimeType).split(separator: "/").first ?? ""
            let base = media == "inode" ? itemSlot : dataSlot
            let reachesBase = implied(base) || added.contains { leads($0, to: base, deciding: slot) }
            if parents.isEmpty || (media != "inode" && !reachesBase) { parents.append(winners[base].identifier) }
            winners[slot].conformsTo = parents
            roots[slot] = nil
        }

        // A created type that lists the preferred extension of a declared
        // type is that type's format (text/x-python is public.python-script,
        // through "py"): the first pass places it under that type and
        // returns the pair, and the second merges it into that type, so
        // that typing a file by that name gives the identifier looking the
        // extension up gives. Another shared extension does not make them
        // one format (audio/x-mod lists *.m15, which public.mpeg also
        // claims as a later extension). Only when no other shared-mime-info
        // type lists that extension (a sub-class of one that does counts as
        // that one: x-python3 goes under what x-python joins; text/x-objcsrc
        // and text/x-matlab both list *.m, so neither joins
        // public.objective-c-source), and only when their kinds do not
        // clash (`SystemTypePlacement.kindsClash`); where they clash, a
        // later extension of the created type may still name its format.
        func kinds(_ slot: Int) -> Set<String> {
            SystemTypePlacement.kinds { conforms(slot, to: $0) }
        }
        var sameFormat: [String: Int] = [:]
        for (slot, record) in created where record.origin.source == .sharedMIMEInfo {
            let mime = TagClass.mimeType.normalize(mimeDatabase?.canonical(record.mimeType) ?? record.mimeType)
            for ext in record.extensions {
                let key = TagClass.filenameExtension.normalize(ext)
                guard let owner = extensionClaim[key], owner != slot, soleContender(key) == mime,
                    winners[owner].tags(.filenameExtension).first.map(TagClass.filenameExtension.normalize) == key
                else { continue }
                let identifier = winners[owner].identifier
                // Another format by its kind: a later extension may still name this one's.
                if SystemTypePlacement.kindsClash(kinds(slot), kinds(owner)) { continue }
                guard !conforms(slot, to: identifier.lowercased()),
                    !conforms(owner, to: winners[slot].identifier.lowercased())
                else { break }
                winners[slot].conformsTo.insert(identifier, at: 0)
                if merging == nil { sameFormat[mime] = owner }
                break
            }
        }
        guard merging != nil else { return sameFormat }
        for (identifier, slot) in identifierAliases where slotOf[identifier] == nil { slotOf[identifier] = slot }

        // Each declared type's preferred MIME type becomes the name the
        // system's database gives its format, the one desktop entries
        // register, spelled as the database spells it:
        // 1. the name the database's globs give the type's preferred
        //    extension, when the type declares it or one of its aliases;
        // 2. else the canonical name of the first MIME type it declares
        //    that the database knows (`audio/vnd.wave` is `audio/x-wav`);
        // 3. else the name the globs give its preferred extension, when
        //    the type received that system type (joined by extension or
        //    merged: `text/x-python` for `public.python-script`);
        // 4. else that name, when the type that has it is not a narrower
        //    one and their kinds agree (`public.heic` prefers
        //    `image/heif`, which `public.heif` has).
        // A name another type has is borrowed: it ranks below every other
        // claimant, so that type keeps answering it (`borrowed`); and only
        // from a type that conforms to `public.data` where this one does.
        // Other tags keep their order.
        guard let database = mimeDatabase, !database.isEmpty else { return [:] }
        let mimeClass = TagClass.mimeType
        func mayBorrow(_ slot: Int, from owner: Int?) -> Bool {
            guard let owner, owner != slot else { return owner == slot }
            return conforms(owner, to: "public.data") || !conforms(slot, to: "public.data")
        }
        for slot in 0..<declaredCount where !winners[slot].origin.source.isSystem {
            var globName: String?
            if let ext = winners[slot].tags(.filenameExtension).first {
                // Of several globs, the one the type holds (as `FileTyping` picks).
                let guess = database.guess(name: "x." + ext, data: nil)
                let held = Set(winners[slot].tags(.mimeType).map(canonicalKey))
                globName =
                    guess.nameMatches.first { held.contains(canonicalKey($0)) }
                    ?? (guess.uncertain || guess.nameMatches.isEmpty ? nil : guess.mimeType)
                globName = globName.map(database.canonical)
            }
            let globKey = globName.map(mimeClass.normalize)
            let known = winners[slot].tags(.mimeType).filter {
                declaredTags[slot].contains(RegistryImage.tagKey(mimeClass.identifier, mimeClass.normalize($0)))
                    && database.isKnown($0)
            }.map { database.canonical($0) }.filter { mayBorrow(slot, from: claim[mimeClass.normalize($0)]) }
            var choice: String?
            if let globName, known.contains(where: { mimeClass.normalize($0) == globKey }) {
                choice = globName
            } else if let first = known.first {
                choice = first
            } else if let globName, let globKey,
                (received[slot] ?? []).contains(where: { mimeClass.normalize($0) == globKey })
            {
                choice = globName
            } else if let globName, let globKey, let owner = claim[globKey], owner != slot,
                !conforms(owner, to: winners[slot].identifier.lowercased()),
                !SystemTypePlacement.kindsClash(kinds(owner), kinds(slot)), mayBorrow(slot, from: owner)
            {
                choice = globName
            }
            if let choice, case let key = mimeClass.normalize(choice), claim[key] != slot {
                borrowed[slot, default: []].insert(RegistryImage.tagKey(mimeClass.identifier, key))
                if let origin = definedAt[key], !supplements[slot].contains(origin) { supplements[slot].append(origin) }
            }
            guard let choice else { continue }
            // A tag the type has keeps its spelling; where it was declared
            // is noted, so that Apple's order can be given back.
            var declaration = winners[slot]
            let key = mimeClass.normalize(choice)
            if let at = declaration.tagSpecification.firstIndex(where: { $0.tagClass == mimeClass }) {
                var tags = declaration.tagSpecification[at].tags
                if let index = tags.firstIndex(where: { mimeClass.normalize($0) == key }) {
                    guard index > 0 else { continue }
                    guard index <= RegistryImage.Flag.movedTagLimit else { continue }
                    if declaredTags[slot].contains(RegistryImage.tagKey(mimeClass.identifier, key)) {
                        movedFrom[slot] = index
                    }
                    tags.insert(tags.remove(at: index), at: 0)
                } else {
                    tags.insert(choice, at: 0)
                }
                declaration.tagSpecification[at].tags = tags
            } else {
                declaration.tagSpecification.append(TagSpecification(mimeClass, [choice]))
            }
            winners[slot] = declaration
        }
        return [:]
    }
}
