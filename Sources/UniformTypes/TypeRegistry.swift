import CompiledData
import PropertyLists
import SharedMIMEInfo
import Synchronization
import SystemBase

/// An immutable set of merged type declarations with the indexes that answer
/// tag, identifier and conformance queries. Load one from the sources you
/// choose with `load(_:cache:)`, use the process's (`TypeRegistry.default`),
/// or assemble declarations in code with `RegistryBuilder`.
public final class TypeRegistry: Sendable {
    typealias Field = RegistryImage.Field

    /// The compiled registry this one reads in place.
    let image: ImageView
    /// How many declared types there are.
    public let count: Int
    private let typesStart: Int
    private let identifierTable: Int
    private let extensionTable: Int?
    private let mimeTable: Int?
    let tagClassCount: Int
    let tagClassesStart: Int
    private let mimeNameSlots: Int
    /// The name answer table (`NameAnswers`), when the image has one.
    let nameAnswerTable: Int?
    /// The globs of `mimeDatabase`, read by `nameAnswerSlot` in place.
    let nameIndex: MIMENameIndex?
    /// The slot of `public.data`, when declared.
    let dataSlot: Int32?
    /// The shared-mime-info database the registry was built with, if any:
    /// its globs and magic type files by name and content.
    public let mimeDatabase: MIMEDatabase?

    /// Declaration files and app bundles found in the search folders that
    /// could not be read and were left out, each as its error.
    public let skippedSources: [Diagnostic]

    /// False once a process asked to write the cache file this registry
    /// maps (`RegistryCache` with `.map`), or cut it short, while it was in
    /// use: answers made since may not be the file's. Check it after making
    /// an answer and before using it.
    public var isIntact: Bool { image.isIntact }

    /// Reads a compiled registry (see `RegistryImage`).
    init(image: ImageView, skippedSources: [Diagnostic] = []) {
        typealias Root = RegistryImage.Root
        let root = image.root
        self.image = image
        self.skippedSources = skippedSources
        // Counts are cut to what the image can hold, so that a damaged
        // image gives fewer answers, never a long walk outside it.
        typesStart = min(image.int(root + Root.types), image.wordCount)
        count = min(image.int(root + Root.count), (image.wordCount - typesStart) / RegistryImage.recordSize)
        identifierTable = image.int(root + Root.identifiers)
        tagClassesStart = min(image.int(root + Root.tagClasses), image.wordCount)
        tagClassCount = min(
            image.int(root + Root.tagClassCount), (image.wordCount - tagClassesStart) / RegistryImage.TagClassEntry.size
        )
        mimeNameSlots = image.int(root + Root.mimeNameSlots)
        let names = image.word(root + Root.nameAnswers)
        nameAnswerTable = names == ImageWriter.none || names == 0 ? nil : Int(names)
        let data = image.word(root + Root.dataSlot)
        dataSlot = data == ImageWriter.none || Int(data) >= count ? nil : Int32(data)
        var extensionTable: Int?, mimeTable: Int?
        for i in 0..<tagClassCount {
            let entry = tagClassesStart + i * RegistryImage.TagClassEntry.size
            let name = image.string(at: entry + RegistryImage.TagClassEntry.name)
            if name == TagClass.filenameExtension.identifier {
                extensionTable = image.int(entry + RegistryImage.TagClassEntry.table)
            }
            if name == TagClass.mimeType.identifier { mimeTable = image.int(entry + RegistryImage.TagClassEntry.table) }
        }
        self.extensionTable = extensionTable
        self.mimeTable = mimeTable
        let flags = image.word(root + Root.mimeFlags)
        if flags & 1 != 0 {
            let layersAt = root + Root.mimeLayers
            mimeDatabase = MIMEDatabase.compiled(
                view: image, indexRoot: image.int(root + Root.mimeIndex),
                contentRoot: image.int(root + Root.mimeContent), isEmpty: flags & 2 != 0,
                encodedLayers: { image.bytes(at: layersAt) })
        } else {
            mimeDatabase = nil
        }
        nameIndex = mimeDatabase?.nameIndex
    }

    /// The bytes stored with the registry when it was compiled.
    var extra: UnsafeBufferPointer<UInt8> { image.bytes(at: image.root + RegistryImage.Root.extra) }

    /// Everything found while reading and merging the sources.
    public var diagnostics: [Diagnostic] {
        answer { budget in
            let root = image.root
            let start = image.int(root + RegistryImage.Root.diagnostics)
            typealias Entry = RegistryImage.DiagnosticEntry
            let listed = image.count(at: root + RegistryImage.Root.diagnosticCount, entryWords: Entry.size, from: start)
            // The words of each entry but its two string references, which pay for themselves.
            let n = budget.take(upTo: listed, each: (Entry.size - 4) * 4)
            return (0..<n).map { i in
                let at = start + i * Entry.size
                let level = image.word(at + Entry.severity)
                let severity: Diagnostic.Severity = level == 2 ? .error : level == 1 ? .warning : .note
                return Diagnostic(
                    severity, file: image.string(at: at + Entry.file, budget: &budget) ?? "",
                    position: RegistryImage.decode(
                        image.word(at + Entry.positionKind), image.word(at + Entry.position)),
                    image.string(at: at + Entry.message, budget: &budget) ?? "")
            }
        }
    }

    // MARK: Work budgets

    /// Set once an answer stopped at its work budget.
    private let cutShort = Atomic(false)

    /// True once an answer stopped at its work budget (`WorkBudget`) or
    /// met what no sound image holds (a list longer than the registry's
    /// types, a slot or string reference outside the image): the compiled
    /// image is damaged, since a sound one never comes near its budget, and
    /// answers made since may be incomplete. From then on every answer of
    /// the registry gets an empty budget, so that a damaged image costs one
    /// budget in all, not one for each of many answers.
    public var answersWereCut: Bool { cutShort.load(ordering: .relaxed) }

    /// A fresh budget for one answer (`ImageView.workBudget()`); empty once
    /// the image proved damaged.
    func workBudget() -> WorkBudget { answersWereCut ? WorkBudget(bytes: 0) : image.workBudget() }

    /// Notes a budget an answer is done with: one that ran out, or met
    /// damage, marks the registry's answers as cut (`answersWereCut`).
    @inline(__always)
    func settle(_ budget: WorkBudget) {
        if budget.ranOut || budget.sawDamage { cutShort.store(true, ordering: .relaxed) }
    }

    /// `body`'s answer, made within one fresh budget.
    @inline(__always)
    func answer<Result>(_ body: (inout WorkBudget) -> Result) -> Result {
        var budget = workBudget()
        defer { settle(budget) }
        return body(&budget)
    }

    // MARK: Records

    @inline(__always) private func record(_ slot: Int32, _ field: Int) -> Int {
        typesStart + Int(slot) * RegistryImage.recordSize + field
    }

    /// The list of slots in `field` of `slot`, as far as `budget` covers
    /// it. A list longer than the registry's types, or naming a slot
    /// outside them, is noted as damage.
    func slotList(_ slot: Int32, _ field: Int, budget: inout WorkBudget) -> [Int32] {
        let at = image.int(record(slot, field))
        let stored = image.int(at)
        let listed = min(image.count(at: at, entryWords: 1, from: at + 1), count)
        if stored > listed || at >= image.wordCount { budget.noteDamage() }
        let n = budget.take(upTo: listed, each: 4)
        let list = (0..<n).map { Int32(bitPattern: image.word(at + 1 + $0)) }
        if list.contains(where: { $0 < 0 || Int($0) >= count }) { budget.noteDamage() }
        return list
    }

    func identifier(_ slot: Int32) -> String { image.string(at: record(slot, Field.identifier)) ?? "" }

    /// The identifier of `slot`, paid for from `budget`; nil when the
    /// budget cannot cover it.
    func identifier(_ slot: Int32, budget: inout WorkBudget) -> String? {
        image.string(at: record(slot, Field.identifier), budget: &budget)
    }

    /// The identifier's bytes in the image, valid while the registry lives.
    func identifierBytes(_ slot: Int32) -> UnsafeBufferPointer<UInt8> {
        image.bytes(at: record(slot, Field.identifier))
    }

    func conformsTo(_ slot: Int32) -> [String] { answer { conformsTo(slot, budget: &$0) } }

    func conformsTo(_ slot: Int32, budget: inout WorkBudget) -> [String] {
        strings(image.int(record(slot, Field.conformsTo)), budget: &budget)
    }

    func tagSpecification(_ slot: Int32) -> [TagSpecification] { answer { tagSpecification(slot, budget: &$0) } }

    /// The tag specification of `slot`, taking what it reads from `budget`.
    func tagSpecification(_ slot: Int32, budget: inout WorkBudget) -> [TagSpecification] {
        let at = image.int(record(slot, Field.tags))
        typealias Entry = RegistryImage.TagListEntry
        let listed = image.count(at: at, entryWords: Entry.size, from: at + 1)
        // The word naming each entry's tags; the class reference pays for itself.
        let n = budget.take(upTo: listed, each: 4)
        return (0..<n).compactMap { i in
            let entry = at + 1 + i * Entry.size
            guard let tagClass = image.string(at: entry + Entry.tagClass, budget: &budget) else { return nil }
            let tags = strings(image.int(entry + Entry.tags), budget: &budget)
            return TagSpecification(TagClass(tagClass), tags)
        }
    }

    /// The strings of the list at `at` (a count, then a reference of two
    /// words each), as far as `budget` covers them.
    private func strings(_ at: Int, budget: inout WorkBudget) -> [String] {
        var result: [String] = []
        for i in 0..<image.count(at: at, entryWords: 2, from: at + 1) {
            // Each reference pays for itself.
            guard let string = image.string(at: at + 1 + i * 2, budget: &budget) else { break }
            result.append(string)
        }
        return result
    }

    func origin(_ slot: Int32) -> DeclarationOrigin {
        let kind = image.word(record(slot, Field.kind))
        return DeclarationOrigin(
            source: source(kind >> RegistryImage.KindBits.sourceShift & 0xFF),
            file: image.string(at: record(slot, Field.file)) ?? "",
            position: RegistryImage.decode(
                kind >> RegistryImage.KindBits.positionShift,
                image.word(record(slot, Field.position))))
    }

    private func source(_ index: UInt32) -> DeclarationOrigin.Source {
        Int(index) < RegistryImage.sources.count ? RegistryImage.sources[Int(index)] : .user
    }

    func origins(_ slot: Int32, _ field: Int) -> [DeclarationOrigin] {
        answer { budget in
            let at = image.int(record(slot, field))
            typealias Entry = RegistryImage.OriginEntry
            // The words of each entry but the file reference, which pays for itself.
            let listed = image.count(at: at, entryWords: Entry.size, from: at + 1)
            let n = budget.take(upTo: listed, each: (Entry.size - 2) * 4)
            return (0..<n).map { i in
                let entry = at + 1 + i * Entry.size
                let kind = image.word(entry + Entry.sourceAndKind)
                return DeclarationOrigin(
                    source: source(kind & 0xFF), file: image.string(at: entry + Entry.file, budget: &budget) ?? "",
                    position: RegistryImage.decode(kind >> 8, image.word(entry + Entry.position)))
            }
        }
    }

    func declaration(_ slot: Int32) -> TypeDeclaration {
        answer { budget in
            TypeDeclaration(
                identifier: identifier(slot, budget: &budget) ?? "",
                kind: image.word(record(slot, Field.kind)) & RegistryImage.KindBits.declarationMask == 0
                    ? .exported : .imported,
                conformsTo: conformsTo(slot, budget: &budget),
                tagSpecification: tagSpecification(slot, budget: &budget),
                description: image.string(at: record(slot, Field.description), budget: &budget),
                referenceURL: image.string(at: record(slot, Field.referenceURL), budget: &budget),
                version: image.string(at: record(slot, Field.version), budget: &budget),
                iconName: image.string(at: record(slot, Field.iconName), budget: &budget),
                origin: origin(slot))
        }
    }

    func description(_ slot: Int32) -> String? { image.string(at: record(slot, Field.description)) }

    /// The supertypes of `slot`, nearest first: its list, or for a type
    /// with too many to list, a walk up its parents.
    /// Each supertype's identifier, which the caller will read, is paid for
    /// as it is found.
    func ancestors(_ slot: Int32) -> [Int32] {
        answer { budget in
            var found: [Int32] = []
            if ancestorsUnlisted(slot) {
                walkAncestors(of: slot, budget: &budget) {
                    found.append($0)
                    return false
                }
            } else {
                found = slotList(slot, Field.ancestors, budget: &budget)
            }
            var result: [Int32] = []
            for ancestor in found {
                guard paidIdentifier(ancestor, &budget) else { break }
                result.append(ancestor)
            }
            return result
        }
    }

    /// Whether `budget` covers reading the identifier of `slot` (a slot
    /// outside the registry has none to read); takes it.
    @inline(__always)
    private func paidIdentifier(_ slot: Int32, _ budget: inout WorkBudget) -> Bool {
        slot < 0 || Int(slot) >= count || image.pay(forStringAt: record(slot, Field.identifier), budget: &budget) != nil
    }

    /// Whether `ancestor` is among the supertypes of `slot`.
    @inline(__always)
    func hasAncestor(_ slot: Int32, _ ancestor: Int32) -> Bool {
        if ancestorsUnlisted(slot) { return answer { hasAncestor(slot, ancestor, budget: &$0) } }
        return hasListedAncestor(slot, ancestor)
    }

    /// `hasAncestor` as part of a larger answer, a walk reading from `budget`.
    func hasAncestor(_ slot: Int32, _ ancestor: Int32, budget: inout WorkBudget) -> Bool {
        if ancestorsUnlisted(slot) { return walkAncestors(of: slot, budget: &budget) { $0 == ancestor } }
        return hasListedAncestor(slot, ancestor)
    }

    @inline(__always)
    private func hasListedAncestor(_ slot: Int32, _ ancestor: Int32) -> Bool {
        // One list of at most `count` words: within any answer's budget.
        let at = image.int(record(slot, Field.ancestors))
        let list = image.wordList(at: at, limit: count)
        if list.contains(UInt32(bitPattern: ancestor)) { return true }
        // A "no" from a list the image cannot hold whole is noted as damage.
        if at >= image.wordCount || image.int(at) > list.count { cutShort.store(true, ordering: .relaxed) }
        return false
    }

    /// Visits the supertypes of `slot` breadth first, each once, until
    /// `visit` returns true (then true), reading parent lists from `budget`.
    @discardableResult @inline(never)
    private func walkAncestors(of slot: Int32, budget: inout WorkBudget, _ visit: (Int32) -> Bool) -> Bool {
        var seen: Set<Int32> = [slot]
        var queue: [Int32] = [slot]
        var head = 0
        while head < queue.count {
            let next = queue[head]
            head += 1
            for parent in slotList(next, Field.parents, budget: &budget)
            where parent >= 0 && Int(parent) < count && seen.insert(parent).inserted {
                if visit(parent) { return true }
                queue.append(parent)
            }
        }
        return false
    }

    @inline(__always)
    func ancestorsUnlisted(_ slot: Int32) -> Bool {
        image.word(record(slot, Field.flags)) & RegistryImage.Flag.ancestorsUnlisted != 0
    }

    @inline(__always)
    func conformsToData(_ slot: Int32) -> Bool {
        image.word(record(slot, Field.flags)) & RegistryImage.Flag.conformsToData != 0
    }

    /// The slot of a declared identifier (any case).
    func slot(forIdentifier identifier: String) -> Int32? {
        var identifier = identifier
        let fast: Int32?? = identifier.withUTF8 { bytes in
            guard bytes.count <= 256, !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { lower in
                for i in 0..<bytes.count { lower[i] = bytes[i].asciiLowercased }
                return .some(image.lookup(table: identifierTable, key: UnsafeBufferPointer(lower)).map { Int32($0) })
            }
        }
        if let fast { return fast }
        var lower = identifier.lowercased()
        return lower.withUTF8 { image.lookup(table: identifierTable, key: $0) }.map { Int32($0) }
    }

    /// The tag table of a class, nil when no type has tags of it.
    private func tagTable(_ tagClass: TagClass) -> Int? {
        if tagClass == .filenameExtension { return extensionTable }
        if tagClass == .mimeType { return mimeTable }
        typealias Entry = RegistryImage.TagClassEntry
        for i in 0..<tagClassCount
        where image.string(at: tagClassesStart + i * Entry.size + Entry.name) == tagClass.identifier {
            return image.int(tagClassesStart + i * Entry.size + Entry.table)
        }
        return nil
    }

    /// How many declared types claim a normalized tag.
    func claimantCount(_ normalized: String, _ tagClass: TagClass) -> Int { claimants(normalized, tagClass).count }

    /// The claimants of a normalized tag, best first: count and first word.
    private func claimants(_ normalized: String, _ tagClass: TagClass) -> (count: Int, start: Int) {
        let (n, start, _) = claimantList(normalized, tagClass)
        return (n, start)
    }

    /// The claimant list of a normalized tag, and whether only system data
    /// gives the tag (no type declares it itself).
    private func claimantList(_ normalized: String, _ tagClass: TagClass) -> (count: Int, start: Int, systemOnly: Bool)
    {
        guard let table = tagTable(tagClass) else { return (0, 0, false) }
        var key = normalized
        return key.withUTF8 { claimantList(key: $0, table: table) }
    }

    /// The claimant list of the normalized tag `key` in the tag table
    /// `table` (`hash` its `ImageHash.forward`, when known).
    private func claimantList(
        key: UnsafeBufferPointer<UInt8>, table: Int, hash: UInt32? = nil
    ) -> (count: Int, start: Int, systemOnly: Bool) {
        guard let at = image.lookup(table: table, key: key, hash: hash ?? ImageHash.forward(key)) else {
            return (0, 0, false)
        }
        let word = image.word(Int(at))
        return (
            min(Int(word & ~RegistryImage.systemOnlyTag), count), Int(at) + 1, word & RegistryImage.systemOnlyTag != 0
        )
    }

    /// The classes of the tags the registry holds, in the order first seen.
    public var tagClasses: [TagClass] {
        (0..<tagClassCount).compactMap {
            image.string(at: tagClassesStart + $0 * RegistryImage.TagClassEntry.size + RegistryImage.TagClassEntry.name)
                .map { TagClass($0) }
        }
    }

    /// Whether any declared type claims `tag` (an extension when it is not
    /// MIME syntax, else a MIME type), system data included.
    public func claims(tag: String) -> Bool {
        let tagClass: TagClass = tag.contains("/") ? .mimeType : .filenameExtension
        let normalized = tagClass.normalize(tag)
        return !normalized.isEmpty && claimantCount(normalized, tagClass) > 0
    }

    /// Whether some type declares `tag` itself (not only system data).
    public func declaresTag(_ tag: String, tagClass: TagClass) -> Bool {
        let list = claimantList(tagClass.normalize(tag), tagClass)
        return list.count > 0 && !list.systemOnly
    }

    /// The slot the registry gives the MIME type an entry of the MIME name
    /// index names (as `types(tag:tagClass:conformingTo: nil)` would), nil
    /// when no declared type claims it.
    func slot(forMIMEName index: Int) -> Int32? {
        let s = image.word(mimeNameSlots + 1 + index)
        return index < image.int(mimeNameSlots) && s != ImageWriter.none && Int(s) < count ? Int32(s) : nil
    }

    /// Bundled declarations only.
    public static let bundled: TypeRegistry = RegistryBuilder.bundled().build().madePermanent()

    /// Whether the registry lives as long as the process, so that the types
    /// it gives need not keep it (see `madePermanent()`).
    var isPermanent: Bool { permanent.load(ordering: .relaxed) }
    private let permanent = Atomic(false)

    /// Registries kept for the life of the process.
    private static let kept = Mutex<[TypeRegistry]>([])

    /// Keeps this registry for the life of the process (the process
    /// registry and `bundled`), so that the types it gives from now on
    /// hold no reference to it. Returns the registry.
    func madePermanent() -> TypeRegistry {
        Self.kept.withLock { kept in
            if !isPermanent { kept.append(self) }
            permanent.store(true, ordering: .relaxed)
        }
        return self
    }

    /// The registry of this process, loaded on first use by
    /// `load(_:cache:)` from the sources the environment names, the ones
    /// the `uti` tool reads: the system's MIME types, the bundled
    /// declarations, app bundles' declarations (`UTI_APPS` and the XDG
    /// `uti/apps` folders), those of the XDG `uti/types` folders and
    /// `UTI_DECLARATIONS`; then the program's `Info.plist` and what was
    /// added in code (`ProcessTypeDeclarations` of `UniformTypeIdentifiers`).
    /// It comes from the compiled cache the tool uses when it is current.
    /// A source that cannot be read is left out.
    public static var `default`: TypeRegistry { ProcessRegistry.registry }

    // MARK: Queries

    /// Every declared type, in declaration order.
    public var allTypes: [UniformType] { (0..<count).map { UniformType(self, Int32($0)) } }

    /// The declared type with `identifier` (any case), or nil.
    public func declaredType(_ identifier: String) -> UniformType? {
        slot(forIdentifier: identifier).map { UniformType(self, $0) }
    }

    /// The declared type with `identifier`, or the type a well-formed
    /// `dyn.a…` identifier stands for; nil otherwise.
    public func type(identifier: String) -> UniformType? {
        if let declared = declaredType(identifier) { return declared }
        guard DynamicIdentifier.isDynamic(identifier), let contents = DynamicIdentifier.decode(identifier) else {
            return nil
        }
        return UniformType(
            self,
            identifier: identifier, conformsTo: contents.conformsTo, tags: contents.tags, isDynamic: true)
    }

    /// A type that keeps `identifier` though no source declares it: no
    /// tags, conforming to `parents` (what Apple's `init(exportedAs:)` gives
    /// for a type the program does not declare). The declared type when
    /// `identifier` is declared.
    public func undeclaredType(_ identifier: String, conformingTo parents: [String] = []) -> UniformType {
        declaredType(identifier)
            ?? UniformType(
                self,
                identifier: identifier, conformsTo: parents, tags: [], isDynamic: false)
    }

    /// Every declared type that claims `tag` and conforms to `supertype`,
    /// best first; a dynamic type when none does. Empty for a MIME type
    /// that is not one (`TagClass.isMIMESyntax`).
    public func types(tag: String, tagClass: TagClass, conformingTo supertype: UniformType? = nil) -> [UniformType] {
        if tagClass == .mimeType && !TagClass.isMIMESyntax(tag) { return [] }
        let (n, start) = claimants(tagClass.normalize(tag), tagClass)
        var result: [UniformType] = []
        answer { budget in
            for i in 0..<n {
                let slot = Int32(bitPattern: image.word(start + i))
                // Each claimant's identifier, which the caller will read, is paid for.
                guard paidIdentifier(slot, &budget) else { break }
                if let supertype, !conforms(slot, to: supertype, budget: &budget) { continue }
                result.append(UniformType(self, slot))
            }
        }
        if result.isEmpty { result.append(dynamicType(tag: tag, tagClass: tagClass, conformingTo: supertype)) }
        return result
    }

    /// The preferred type for `tag`: the best declared claimant conforming to
    /// `supertype`, else a dynamic type. Nil for an empty tag and for a MIME
    /// type that is not one (`TagClass.isMIMESyntax`: `x/@`, `text/html(`).
    public func type(tag: String, tagClass: TagClass, conformingTo supertype: UniformType? = nil) -> UniformType? {
        let normalized = tagClass.normalize(tag)
        guard !normalized.isEmpty, tagClass != .mimeType || TagClass.isMIMESyntax(tag) else { return nil }
        let (n, start) = claimants(normalized, tagClass)
        for i in 0..<n {
            let slot = Int32(bitPattern: image.word(start + i))
            if let supertype, !conforms(slot, to: supertype) { continue }
            return UniformType(self, slot)
        }
        return dynamicType(tag: tag, tagClass: tagClass, conformingTo: supertype)
    }

    /// Whether the declared type in `slot` conforms to `type`.
    @inline(__always)
    private func conforms(_ slot: Int32, to type: UniformType) -> Bool {
        guard case .declared(let target) = type.storage, type.registry === self else {
            return UniformType(self, slot).conforms(to: type)
        }
        if target == dataSlot { return conformsToData(slot) }
        return slot == target || hasAncestor(slot, target)
    }

    /// `conforms(_:to:)` as part of a larger answer, reading from `budget`.
    private func conforms(_ slot: Int32, to type: UniformType, budget: inout WorkBudget) -> Bool {
        guard case .declared(let target) = type.storage, type.registry === self else {
            return UniformType(self, slot).conforms(to: type)
        }
        if target == dataSlot { return conformsToData(slot) }
        return slot == target || hasAncestor(slot, target, budget: &budget)
    }

    /// The type of a filename extension (a leading dot is accepted),
    /// conforming to `public.data` unless another supertype is given.
    public func type(filenameExtension: String, conformingTo supertype: UniformType? = nil) -> UniformType? {
        if supertype == nil, let dataSlot {
            return dataClaimant(filenameExtension, .filenameExtension, table: extensionTable, dropsDot: true, dataSlot)
        }
        return type(tag: filenameExtension, tagClass: .filenameExtension, conformingTo: supertype ?? dataType)
    }

    /// The type of a MIME type (parameters ignored), conforming to
    /// `public.data` unless another supertype is given; nil when `mimeType`
    /// is not one (`TagClass.isMIMESyntax`).
    public func type(mimeType: String, conformingTo supertype: UniformType? = nil) -> UniformType? {
        if supertype == nil, let dataSlot, let mimeTable,
            let found = mimeType.utf8.withContiguousStorageIfAvailable({
                plainMIMEClaimant(utf8: $0, table: mimeTable, dataSlot)
            }), let found
        {
            return found
        }
        guard TagClass.isMIMESyntax(mimeType) else { return nil }
        if supertype == nil, let dataSlot {
            return dataClaimant(mimeType, .mimeType, table: mimeTable, dropsDot: false, dataSlot)
        }
        return type(tag: mimeType, tagClass: .mimeType, conformingTo: supertype ?? dataType)
    }

    /// `type(tag:tagClass:conformingTo: public.data)` without making a
    /// `UniformType` for `public.data` first: the first claimant flagged as
    /// conforming to it, else the dynamic type.
    private func dataClaimant(
        _ tag: String, _ tagClass: TagClass, table: Int?, dropsDot: Bool, _ dataSlot: Int32
    ) -> UniformType? {
        let n: Int, start: Int
        switch plainASCIIClaimants(tag, table: table, dropsDot: dropsDot) {
        case .some(let found?):
            (n, start) = found
        case .some(nil):
            return nil
        case .none:
            let normalized = tagClass.normalize(tag)
            guard !normalized.isEmpty else { return nil }
            (n, start) = claimants(normalized, tagClass)
        }
        for i in 0..<n {
            let slot = Int32(bitPattern: image.word(start + i))
            if conformsToData(slot) { return UniformType(self, slot) }
        }
        return dynamicType(tag: tag, tagClass: tagClass, conformingTo: UniformType(self, dataSlot))
    }

    /// The claimant list of a tag of printable ASCII without `;` (what
    /// almost every extension and MIME type is), normalized on the stack as
    /// `TagClass.normalize` would (a leading dot dropped when `dropsDot`,
    /// letters lower-cased) and looked up in `table`: `(0, 0)` when no type
    /// claims it, `.some(nil)` when it normalizes to nothing, and nil when
    /// the tag needs `TagClass.normalize`.
    private func plainASCIIClaimants(_ tag: String, table: Int?, dropsDot: Bool) -> (count: Int, start: Int)?? {
        let found = tag.utf8.withContiguousStorageIfAvailable {
            plainASCIIClaimants(utf8: $0, table: table, dropsDot: dropsDot)
        }
        if let found { return found }
        var tag = tag
        return tag.withUTF8 { plainASCIIClaimants(utf8: $0, table: table, dropsDot: dropsDot) }
    }

    /// The first claimant conforming to `public.data` of a MIME type that
    /// is a plain type/subtype pair (`TagClass.isPlainMIMEType`), checked,
    /// lower-cased and hashed in two passes over its bytes; nil when the
    /// tag is not that plain or no such type claims it (the caller then
    /// takes the general way, which gives the dynamic type).
    private func plainMIMEClaimant(
        utf8 bytes: UnsafeBufferPointer<UInt8>, table: Int, _ dataSlot: Int32
    ) -> UniformType? {
        guard bytes.count <= 256, TagClass.isPlainMIMEType(utf8: bytes) else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count + 8) { buffer in
            guard let (hash, _) = WordBytes.lowercase(bytes, into: buffer.baseAddress!),
                let at = image.lookup(
                    table: table, key: UnsafeBufferPointer(rebasing: buffer[..<bytes.count]), hash: hash)
            else { return nil }
            let n = min(Int(image.word(Int(at)) & ~RegistryImage.systemOnlyTag), count)
            for i in 0..<n {
                let slot = Int32(bitPattern: image.word(Int(at) + 1 + i))
                if conformsToData(slot) { return UniformType(self, slot) }
            }
            return nil
        }
    }

    /// `plainASCIIClaimants` over the tag's UTF-8 bytes.
    private func plainASCIIClaimants(
        utf8: UnsafeBufferPointer<UInt8>, table: Int?, dropsDot: Bool
    ) -> (count: Int, start: Int)?? {
        var bytes = utf8[...]
        if dropsDot, bytes.first == UInt8(ascii: ".") { bytes = bytes.dropFirst() }
        guard bytes.count <= 256, bytes.allSatisfy(TagClass.isPlainTagByte) else { return .none }
        if bytes.isEmpty { return .some(nil) }
        guard let table else { return .some((0, 0)) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count + 8) { lower in
            let key = UnsafeBufferPointer(rebasing: bytes)
            guard let (hash, _) = WordBytes.lowercase(key, into: lower.baseAddress!) else { return .none }
            let (n, start, _) = claimantList(
                key: UnsafeBufferPointer(rebasing: lower[..<key.count]), table: table, hash: hash)
            return .some((n, start))
        }
    }

    /// `public.data` of this registry, when declared.
    var dataType: UniformType? { dataSlot.map { UniformType(self, $0) } }

    /// A dynamic type for `tag`, whether or not a declared type claims it.
    /// The tag is normalized first (`.SQL` and `sql` give the same type).
    public func dynamicType(tag: String, tagClass: TagClass, conformingTo supertype: UniformType? = nil) -> UniformType
    {
        let tag = tagClass.normalize(tag)
        let identifier = DynamicIdentifier.make(tag: tag, tagClass: tagClass, conformingTo: supertype?.identifier)
        return UniformType(
            self,
            identifier: identifier, conformsTo: supertype.map { [$0.identifier] } ?? [],
            tags: [TagSpecification(tagClass, [tag])], isDynamic: true)
    }

    /// Every type that conforms to `type`, excluding itself: breadth first,
    /// nearest first, no repeats.
    public func descendants(of type: UniformType) -> [UniformType] {
        answer { budget in descendantSlots(of: type, budget: &budget).map { UniformType(self, $0) } }
    }

    /// The slots of `descendants(of:)`, reading children lists from
    /// `budget` and paying for each descendant's identifier (which its
    /// caller will read) as it is found.
    func descendantSlots(of type: UniformType, budget: inout WorkBudget) -> [Int32] {
        guard let root = slot(of: type) else { return [] }
        var seen: Set<Int32> = [root]
        var queue = slotList(root, Field.children, budget: &budget)
        var head = 0
        var result: [Int32] = []
        while head < queue.count {
            let next = queue[head]
            head += 1
            guard next >= 0, Int(next) < count, seen.insert(next).inserted,
                paidIdentifier(next, &budget)
            else { continue }
            result.append(next)
            queue += slotList(next, Field.children, budget: &budget)
        }
        return result
    }

    /// The tags of `tagClass` of `type` and, when asked, of every type that
    /// conforms to it: the type's own first, then descendants nearest first;
    /// each tag once (compared as the class compares tags).
    public func tags(of type: UniformType, tagClass: TagClass, includingDescendants: Bool) -> [String] {
        tagSpecification(of: type, classes: [tagClass], includingDescendants: includingDescendants).first?.tags ?? []
    }

    /// The tags of every class of `type` and, when asked, of every type
    /// that conforms to it, in one answer: classes in the order first
    /// seen, the type's own tags first, then descendants' nearest first;
    /// each tag once in its class (compared as the class compares tags).
    public func tagSpecification(of type: UniformType, includingDescendants: Bool) -> [TagSpecification] {
        tagSpecification(of: type, classes: nil, includingDescendants: includingDescendants)
    }

    /// `tagSpecification(of:includingDescendants:)` for the classes in
    /// `classes` (in that order, each present even when empty), or all.
    private func tagSpecification(
        of type: UniformType, classes: [TagClass]?, includingDescendants: Bool
    ) -> [TagSpecification] {
        var order: [TagClass] = classes ?? []
        var found: [TagClass: (seen: Set<String>, tags: [String])] = [:]
        for tagClass in order { found[tagClass] = ([], []) }
        func add(_ spec: TagSpecification) {
            if found[spec.tagClass] == nil {
                guard classes == nil else { return }
                order.append(spec.tagClass)
                found[spec.tagClass] = ([], [])
            }
            for tag in spec.tags where found[spec.tagClass]!.seen.insert(spec.tagClass.normalize(tag)).inserted {
                found[spec.tagClass]!.tags.append(tag)
            }
        }
        guard let own = slot(of: type) else {
            type.tagSpecification.forEach(add)
            return order.map { TagSpecification($0, found[$0]!.tags) }
        }
        answer { budget in
            let slots = [own] + (includingDescendants ? descendantSlots(of: type, budget: &budget) : [])
            for slot in slots { tagSpecification(slot, budget: &budget).forEach(add) }
        }
        return order.map { TagSpecification($0, found[$0]!.tags) }
    }

    /// The declared parents of each of `types` (`UniformType.declaredParents`),
    /// in one answer.
    public func declaredParents(of types: [UniformType]) -> [[String]] {
        answer { budget in
            types.map { type in
                guard type.registry === self, let slot = type.slot else { return type.declaredParents }
                return conformsTo(slot, budget: &budget)
            }
        }
    }

    /// Every declared type with a tag of `tagClass` that `isIncluded`
    /// accepts, in declaration order, in one answer.
    public func types(withTagOf tagClass: TagClass, where isIncluded: (String) -> Bool) -> [UniformType] {
        answer { budget in
            (0..<Int32(count)).filter { slot in
                tagSpecification(slot, budget: &budget).contains {
                    $0.tagClass == tagClass && $0.tags.contains(where: isIncluded)
                }
            }.map { UniformType(self, $0) }
        }
    }

    /// Every declared type whose declaration file `isIncluded` accepts, in
    /// declaration order, in one answer.
    public func types(declaredIn isIncluded: (String) -> Bool) -> [UniformType] {
        answer { budget in
            (0..<Int32(count)).filter { slot in
                isIncluded(image.string(at: record(slot, Field.file), budget: &budget) ?? "")
            }.map { UniformType(self, $0) }
        }
    }

    /// The tags `type`'s own declaration gives, in its order, without those
    /// the system's MIME data added to it (what Apple's registry, which has
    /// no such data, would answer): a declared MIME type the registry put
    /// first, as the system's name for the format, is back in its place. A
    /// type made from system data keeps all of its tags, since they are
    /// its declaration.
    public func declaredTags(of type: UniformType) -> [TagSpecification] {
        let all = type.tagSpecification
        guard let slot = slot(of: type), !origins(slot, Field.supplements).isEmpty,
            !origin(slot).source.isSystem
        else { return all }
        let moved = Int(
            image.word(record(slot, Field.flags)) >> RegistryImage.Flag.movedTagShift
                & UInt32(RegistryImage.Flag.movedTagLimit))
        return all.compactMap { spec in
            var own = spec.tags.filter { tag in
                declaresTag(tag, tagClass: spec.tagClass)
                    && types(tag: tag, tagClass: spec.tagClass).contains { $0.slot == slot && $0.registry === self }
            }
            if spec.tagClass == .mimeType, moved > 0, own.first == spec.tags.first, own.count > 1 {
                let first = own.removeFirst()
                own.insert(first, at: min(moved, own.count))
            }
            return own.isEmpty ? nil : TagSpecification(spec.tagClass, own)
        }
    }

    /// The system sources whose tags were added to this type.
    public func supplemented(_ type: UniformType) -> [DeclarationOrigin] {
        slot(of: type).map { origins($0, Field.supplements) } ?? []
    }

    /// The declarations this type's winning declaration replaced.
    public func overridden(_ type: UniformType) -> [DeclarationOrigin] {
        slot(of: type).map { origins($0, Field.shadowed) } ?? []
    }

    /// The slot of `type` in this registry; a type from another registry is
    /// found by its identifier.
    func slot(of type: UniformType) -> Int32? {
        if type.registry === self { return type.slot }
        return slot(forIdentifier: type.identifier)
    }
}
