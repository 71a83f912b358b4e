import CompiledData
import PropertyLists
import SharedMIMEInfo

/// The compiled form of a registry: every merged declaration, the
/// conformance lists, the tag and identifier indexes, the diagnostics and
/// the MIME database, in one image that `TypeRegistry` reads in place.
/// docs/compiled-image.md draws the layout; the names below are the only
/// place its offsets are written, for the writer here and the reader in
/// `TypeRegistry`. Any change to them, or to what is written where, raises
/// `kind.layoutVersion` (`RegistryImageLayoutTests` holds the layout of
/// every version).
enum RegistryImage {
    /// `UTIR`, layout 4.
    static let kind = ImageKind(tag: 0x5554_4952, layoutVersion: 4)
    /// Words per type record.
    static let recordSize = 22

    enum Field {
        static let identifier = 0, kind = 2, position = 3, file = 4, description = 6, referenceURL = 8
        static let version = 10, iconName = 12, conformsTo = 14, tags = 15, parents = 16, ancestors = 17
        static let children = 18, flags = 19, shadowed = 20, supplements = 21
    }

    enum Root {
        static let count = 0, types = 1, identifiers = 2, tagClassCount = 3, tagClasses = 4, diagnostics = 5
        static let diagnosticCount = 6, mimeFlags = 7, mimeIndex = 8, mimeLayers = 9, mimeNameSlots = 11
        static let extra = 12, dataSlot = 14, nameAnswers = 15, mimeContent = 16, size = 17
    }

    /// An entry of the tag class table (`Root.tagClasses`).
    enum TagClassEntry {
        static let name = 0, table = 2, size = 3
    }

    /// An entry of a record's tag list (`Field.tags`), after its count word.
    enum TagListEntry {
        static let tagClass = 0, tags = 2, size = 3
    }

    /// An entry of an origin list (`Field.shadowed`, `Field.supplements`), after its count word.
    enum OriginEntry {
        /// The source's index in `sources`, and the position kind shifted left by 8.
        static let sourceAndKind = 0
        static let position = 1, file = 2, size = 4
    }

    /// An entry of the diagnostics (`Root.diagnostics`).
    enum DiagnosticEntry {
        static let severity = 0, positionKind = 1, position = 2, file = 3, message = 5, size = 7
    }

    /// Bits of a record's `Field.kind` word.
    enum KindBits {
        /// The low byte: 0 exported, 1 imported.
        static let declarationMask: UInt32 = 0xFF
        /// The source's index in `sources`.
        static let sourceShift: UInt32 = 8
        /// The position kind (`encode`).
        static let positionShift: UInt32 = 16
    }

    /// The layout these names give, one line per part, for
    /// `RegistryImageLayoutTests` and docs/compiled-image.md.
    static var layoutDescription: String {
        [
            "header: magic \(ImageHeader.magic), format \(ImageHeader.formatVersion), kind \(ImageHeader.kind), "
                + "root \(ImageHeader.root), words \(ImageHeader.wordCount), pool \(ImageHeader.poolCount), "
                + "layout \(ImageHeader.layoutVersion), checksum \(ImageHeader.checksum), size \(ImageHeader.size)",
            "bucket: hash \(ImageWriter.Bucket.hash), key \(ImageWriter.Bucket.keyOffset), length \(ImageWriter.Bucket.keyLength), "
                + "value \(ImageWriter.Bucket.value), size \(ImageWriter.Bucket.size)",
            "root: count \(Root.count), types \(Root.types), identifiers \(Root.identifiers), tagClassCount \(Root.tagClassCount), "
                + "tagClasses \(Root.tagClasses), diagnostics \(Root.diagnostics), diagnosticCount \(Root.diagnosticCount), "
                + "mimeFlags \(Root.mimeFlags), mimeIndex \(Root.mimeIndex), mimeLayers \(Root.mimeLayers), "
                + "mimeNameSlots \(Root.mimeNameSlots), extra \(Root.extra), dataSlot \(Root.dataSlot), "
                + "nameAnswers \(Root.nameAnswers), mimeContent \(Root.mimeContent), size \(Root.size)",
            "record: identifier \(Field.identifier), kind \(Field.kind), position \(Field.position), file \(Field.file), "
                + "description \(Field.description), referenceURL \(Field.referenceURL), version \(Field.version), "
                + "iconName \(Field.iconName), conformsTo \(Field.conformsTo), tags \(Field.tags), parents \(Field.parents), "
                + "ancestors \(Field.ancestors), children \(Field.children), flags \(Field.flags), shadowed \(Field.shadowed), "
                + "supplements \(Field.supplements), size \(recordSize)",
            "kind bits: declaration mask \(KindBits.declarationMask), source << \(KindBits.sourceShift), "
                + "position kind << \(KindBits.positionShift)",
            "flags: conformsToData \(Flag.conformsToData), ancestorsUnlisted \(Flag.ancestorsUnlisted), "
                + "declared place of the first MIME type << \(Flag.movedTagShift) (up to \(Flag.movedTagLimit)); "
                + "system-only tag bit \(systemOnlyTag); ancestor list limit \(ancestorListLimit)",
            "identifier table: each type's identifier, and the identifier of each system type that joined a "
                + "declared type, naming that type",
            "tag class entry: name \(TagClassEntry.name), table \(TagClassEntry.table), size \(TagClassEntry.size)",
            "tag list entry: class \(TagListEntry.tagClass), tags \(TagListEntry.tags), size \(TagListEntry.size)",
            "origin entry: source and kind \(OriginEntry.sourceAndKind), position \(OriginEntry.position), "
                + "file \(OriginEntry.file), size \(OriginEntry.size)",
            "diagnostic entry: severity \(DiagnosticEntry.severity), position kind \(DiagnosticEntry.positionKind), "
                + "position \(DiagnosticEntry.position), file \(DiagnosticEntry.file), message \(DiagnosticEntry.message), "
                + "size \(DiagnosticEntry.size)",
            "name answer entry: slot \(NameAnswers.Entry.slot), flags \(NameAnswers.Entry.flags), "
                + "patterns \(NameAnswers.Entry.patterns); flags: check literals \(NameAnswers.Flag.checkLiterals), "
                + "case matters \(NameAnswers.Flag.caseMatters); pattern words \(NameAnswers.patternWords), "
                + "limit \(NameAnswers.patternLimit)",
            "sources: " + sources.map { "\($0)" }.joined(separator: ", "),
            "MIME name index: " + MIMENameIndex.layoutDescription,
            "MIME content index: " + MIMEContentIndex.layoutDescription,
        ].joined(separator: "\n")
    }

    /// The most ancestors listed for one type; a type with more is flagged
    /// `ancestorsUnlisted` and its ancestors are found by walking parents.
    static let ancestorListLimit = 256
    /// What the builder gives as the ancestors of such a type.
    static let unlisted: [Int32] = [-1]

    /// Bits of a record's flags word.
    enum Flag {
        static let conformsToData: UInt32 = 1
        static let ancestorsUnlisted: UInt32 = 2
        /// Bits 8 to 23: where the type declared its first MIME type, when
        /// the registry moved that tag to the front (0: not moved).
        static let movedTagShift: UInt32 = 8
        static let movedTagLimit = 0xFFFF
    }

    /// Set in the count word of a tag's claimant list when no type declares
    /// the tag itself (only system data gives it).
    static let systemOnlyTag: UInt32 = 0x8000_0000

    static let sources: [DeclarationOrigin.Source] = [.bundled, .user, .application, .sharedMIMEInfo, .mimeTypes]

    struct Input {
        var declarations: [TypeDeclaration]
        /// The tags (`tagKey`) each declaration states itself, before system
        /// data added any; types created from system data have none here.
        var declaredTags: [Set<String>]
        /// The tags (`tagKey`) a type took from another type that has them
        /// (as its preferred MIME type), by slot: they rank below every
        /// other claimant.
        var borrowedTags: [Int: Set<String>] = [:]
        /// Where in its MIME types each type declared the one that now
        /// comes first (the system's name for its format), by slot, when
        /// that is not first already (`Flag.movedTagShift`).
        var preferredMIMEMovedFrom: [Int: Int] = [:]
        /// Further identifiers (lower-cased) the identifier table maps to a
        /// type: those of system types that joined a declared type.
        var identifierAliases: [String: Int] = [:]
        var parents: [[Int32]]
        var ancestors: [[Int32]]
        var shadowed: [[DeclarationOrigin]]
        var supplements: [[DeclarationOrigin]]
        var diagnostics: [Diagnostic]
        var mimeDatabase: MIMEDatabase?
    }

    /// The key of a tag in `Input.declaredTags`: its class and normalized form.
    static func tagKey(_ tagClass: String, _ normalized: String) -> String { tagClass + "\u{0}" + normalized }

    /// The keys of every tag `declaration` states.
    static func tagKeys(of declaration: TypeDeclaration) -> Set<String> {
        guard !declaration.origin.source.isSystem else { return [] }
        var keys: Set<String> = []
        for spec in declaration.tagSpecification {
            for tag in spec.tags { keys.insert(tagKey(spec.tagClass.identifier, spec.tagClass.normalize(tag))) }
        }
        return keys
    }

    /// Compiles a merged registry. Ranks each tag's claimants (types that
    /// declare the tag themselves before types that only received it from
    /// system data, then public, then types conforming to `public.data`,
    /// then exported, then declaration order); where any type declares a
    /// tag, types that only received it from system data are left out of
    /// its claimants. Reports every clash where the losing tag came from.
    /// `extra` is stored as is.
    static func write(_ input: Input, extra: [UInt8] = []) -> [UInt8] {
        let declarations = input.declarations
        var w = ImageWriter()
        let empty = w.append(0)

        func list(_ slots: [Int32]) -> Int {
            if slots.isEmpty { return empty }
            let at = w.append(slots.count)
            for s in slots { w.append(UInt32(bitPattern: s)) }
            return at
        }
        func strings(_ values: [String]) -> Int {
            if values.isEmpty { return empty }
            let at = w.append(values.count)
            for v in values { w.appendString(v) }
            return at
        }
        func appendOrigin(_ origin: DeclarationOrigin) {
            let (kind, value) = encode(origin.position)
            let entry = w.reserve(OriginEntry.size)
            w[entry + OriginEntry.sourceAndKind] = UInt32(sources.firstIndex(of: origin.source) ?? 0) | kind << 8
            w[entry + OriginEntry.position] = value
            w.setString(origin.file, at: entry + OriginEntry.file)
        }
        func origins(_ values: [DeclarationOrigin]) -> Int {
            if values.isEmpty { return empty }
            let at = w.append(values.count)
            for o in values { appendOrigin(o) }
            return at
        }

        var children = [[Int32]](repeating: [], count: declarations.count)
        for (child, parents) in input.parents.enumerated() {
            for parent in parents { children[Int(parent)].append(Int32(child)) }
        }
        var slotOf: [String: Int] = [:]
        for (slot, d) in declarations.enumerated() where slotOf[d.identifier.lowercased()] == nil {
            slotOf[d.identifier.lowercased()] = slot
        }
        let data = slotOf["public.data"].map { Int32($0) }
        // public.data and everything under it, in one walk down the children.
        var conformsToData = [Bool](repeating: false, count: declarations.count)
        if let data {
            var queue = [Int(data)], head = 0
            conformsToData[Int(data)] = true
            while head < queue.count {
                let next = queue[head]
                head += 1
                for child in children[next] where !conformsToData[Int(child)] {
                    conformsToData[Int(child)] = true
                    queue.append(Int(child))
                }
            }
        }

        // Tag index: every declared tag, its claimants best first.
        var classes: [String] = []
        var index: [String: [String: [Int32]]] = [:]
        var order: [String: [String]] = [:]
        for (slot, declaration) in declarations.enumerated() {
            for spec in declaration.tagSpecification {
                let c = spec.tagClass.identifier
                if index[c] == nil {
                    classes.append(c)
                    index[c] = [:]
                    order[c] = []
                }
                for tag in spec.tags {
                    let key = spec.tagClass.normalize(tag)
                    if index[c]![key] == nil { order[c]!.append(key) }
                    if index[c]![key]?.contains(Int32(slot)) == true { continue }
                    index[c]![key, default: []].append(Int32(slot))
                }
            }
        }
        var diagnostics = input.diagnostics
        for c in classes {
            for key in order[c]! {
                let claimants = index[c]![key]!
                guard claimants.count > 1 else { continue }
                let tag = tagKey(c, key)
                func fromSystem(_ slot: Int32) -> Bool { !input.declaredTags[Int(slot)].contains(tag) }
                func isBorrowed(_ slot: Int32) -> Bool { input.borrowedTags[Int(slot)]?.contains(tag) ?? false }
                func rank(_ slot: Int32) -> (Int, Int, Int, Int, Int32) {
                    let d = declarations[Int(slot)]
                    return (
                        isBorrowed(slot) ? 2 : fromSystem(slot) ? 1 : 0,
                        d.identifier.lowercased().hasPrefix("public.") ? 0 : 1,
                        conformsToData[Int(slot)] ? 0 : 1,
                        d.kind == .exported ? 0 : 1,
                        slot
                    )
                }
                let ranked = claimants.sorted { rank($0) < rank($1) }
                // A tag some type declares is answered by the types that
                // declare it; system data only answers tags nobody declares.
                let declaredOnly = fromSystem(ranked[0]) ? ranked : ranked.filter { !fromSystem($0) }
                index[c]![key] = declaredOnly
                let winner = declarations[Int(ranked[0])]
                // A borrowed tag is the borrower's preferred name, not a claim.
                for loser in ranked.dropFirst() where !isBorrowed(loser) {
                    let d = declarations[Int(loser)]
                    // A clash between sources is reported where the losing tag came from.
                    let systemOnly = fromSystem(loser) && !fromSystem(ranked[0])
                    diagnostics.append(
                        Diagnostic(
                            systemOnly ? .note : .warning, file: d.origin.file, position: d.origin.position,
                            systemOnly
                                ? "\(c) \"\(key)\" that system data gives \(d.identifier) is declared by \(winner.identifier) (\(winner.origin)), which answers it"
                                : "\(c) \"\(key)\" of \(d.identifier) is also claimed by \(winner.identifier) (\(winner.origin)), which is preferred"
                        ))
                }
            }
        }

        // Type records.
        var records: [[UInt32]] = []
        records.reserveCapacity(declarations.count)
        for (slot, d) in declarations.enumerated() {
            var r = [UInt32](repeating: 0, count: recordSize)
            func ref(_ field: Int, _ s: String?) { (r[field], r[field + 1]) = w.reference(s) }
            ref(Field.identifier, d.identifier)
            let (positionKind, positionValue) = encode(d.origin.position)
            r[Field.kind] =
                (d.kind == .exported ? 0 : 1) | UInt32(sources.firstIndex(of: d.origin.source) ?? 0)
                << KindBits.sourceShift
                | positionKind << KindBits.positionShift
            r[Field.position] = positionValue
            ref(Field.file, d.origin.file)
            ref(Field.description, d.description)
            ref(Field.referenceURL, d.referenceURL)
            ref(Field.version, d.version)
            ref(Field.iconName, d.iconName)
            r[Field.conformsTo] = UInt32(strings(d.conformsTo))
            if d.tagSpecification.isEmpty {
                r[Field.tags] = UInt32(empty)
            } else {
                let lists = d.tagSpecification.map { strings($0.tags) }
                r[Field.tags] = UInt32(w.append(d.tagSpecification.count))
                for (spec, tags) in zip(d.tagSpecification, lists) {
                    let entry = w.reserve(TagListEntry.size)
                    w.setString(spec.tagClass.identifier, at: entry + TagListEntry.tagClass)
                    w[entry + TagListEntry.tags] = UInt32(tags)
                }
            }
            r[Field.parents] = UInt32(list(input.parents[slot]))
            let unlisted = input.ancestors[slot] == unlisted
            r[Field.ancestors] = UInt32(list(unlisted ? [] : input.ancestors[slot]))
            r[Field.children] = UInt32(list(children[slot]))
            r[Field.flags] =
                (conformsToData[slot] ? Flag.conformsToData : 0) | (unlisted ? Flag.ancestorsUnlisted : 0)
                | UInt32(min(input.preferredMIMEMovedFrom[slot] ?? 0, Flag.movedTagLimit)) << Flag.movedTagShift
            r[Field.shadowed] = UInt32(origins(input.shadowed[slot]))
            r[Field.supplements] = UInt32(origins(input.supplements[slot]))
            records.append(r)
        }
        let typesStart = w.wordCount
        for r in records { for x in r { w.append(x) } }

        // A system type's identifier that joined a declared type names that type.
        var identifierSlots = slotOf
        for (identifier, slot) in input.identifierAliases where identifierSlots[identifier] == nil {
            identifierSlots[identifier] = slot
        }
        let identifiers = w.appendHashTable(identifierSlots.map { (Array($0.key.utf8), UInt32($0.value)) })
        var classTables: [(String, Int)] = []
        for c in classes {
            let entries = order[c]!.map { key in
                let claimants = index[c]![key]!
                let at = list(claimants)
                // The count word's top bit marks a tag only system data claims.
                if !input.declaredTags[Int(claimants[0])].contains(tagKey(c, key)) { w[at] |= systemOnlyTag }
                return (Array(key.utf8), UInt32(at))
            }
            classTables.append((c, w.appendHashTable(entries)))
        }
        let classesStart = w.wordCount
        for (c, table) in classTables {
            let entry = w.reserve(TagClassEntry.size)
            w.setString(c, at: entry + TagClassEntry.name)
            w[entry + TagClassEntry.table] = UInt32(table)
        }

        let diagnosticsStart = w.wordCount
        for d in diagnostics {
            let (kind, value) = encode(d.position)
            let entry = w.reserve(DiagnosticEntry.size)
            w[entry + DiagnosticEntry.severity] = d.severity == .error ? 2 : d.severity == .warning ? 1 : 0
            w[entry + DiagnosticEntry.positionKind] = kind
            w[entry + DiagnosticEntry.position] = value
            w.setString(d.file, at: entry + DiagnosticEntry.file)
            w.setString(d.message, at: entry + DiagnosticEntry.message)
        }

        var mimeFlags: UInt32 = 0
        var mimeIndex = 0
        var mimeContent = 0
        var mimeSlots = empty
        var layers: [UInt8] = []
        if let db = input.mimeDatabase {
            mimeFlags = 1 | (db.isEmpty ? 2 : 0)
            mimeIndex = db.writeNameIndex(into: &w)
            mimeContent = db.writeContentIndex(into: &w)
            layers = db.encodedLayers()
            let names = db.nameIndex.nameCount
            mimeSlots = w.append(names)
            let mimeTable = index[TagClass.mimeType.identifier] ?? [:]
            for i in 0..<names {
                let key = TagClass.mimeType.normalize(db.nameIndex.name(i))
                w.append(mimeTable[key]?.first.map { UInt32($0) } ?? ImageWriter.none)
            }
        }

        let root = w.reserve(Root.size)
        w[root + Root.count] = UInt32(declarations.count)
        w[root + Root.types] = UInt32(typesStart)
        w[root + Root.identifiers] = UInt32(identifiers)
        w[root + Root.tagClassCount] = UInt32(classTables.count)
        w[root + Root.tagClasses] = UInt32(classesStart)
        w[root + Root.diagnostics] = UInt32(diagnosticsStart)
        w[root + Root.diagnosticCount] = UInt32(diagnostics.count)
        w[root + Root.mimeFlags] = mimeFlags
        w[root + Root.mimeIndex] = UInt32(mimeIndex)
        w[root + Root.mimeContent] = UInt32(mimeContent)
        let layersAt = w.wordCount
        w.appendBlob(layers)
        w[root + Root.mimeLayers] = w[layersAt]
        w[root + Root.mimeLayers + 1] = w[layersAt + 1]
        w[root + Root.mimeNameSlots] = UInt32(mimeSlots)
        let extraAt = w.wordCount
        w.appendBlob(extra)
        w[root + Root.extra] = w[extraAt]
        w[root + Root.extra + 1] = w[extraAt + 1]
        w[root + Root.dataSlot] = data.map { UInt32($0) } ?? ImageWriter.none
        w[root + Root.nameAnswers] = ImageWriter.none
        guard input.mimeDatabase != nil else { return w.image(kind: kind, root: root) }
        // The name table holds what the registry written so far answers:
        // the words before it stay as they are, so its slots stay true.
        // An image just written is well formed.
        let written = TypeRegistry(image: try! ImageView(w.image(kind: kind, root: root), kind: kind))
        w[root + Root.nameAnswers] = NameAnswers.write(for: written, into: &w)
        return w.image(kind: kind, root: root)
    }

    static func encode(_ position: SourcePosition) -> (UInt32, UInt32) {
        switch position {
        case .unknown: (0, 0)
        case .line(let n): (1, UInt32(clamping: n))
        case .offset(let n): (2, UInt32(clamping: n))
        }
    }

    static func decode(_ kind: UInt32, _ value: UInt32) -> SourcePosition {
        switch kind {
        case 1: .line(Int(value))
        case 2: .offset(Int(value))
        default: .unknown
        }
    }
}
