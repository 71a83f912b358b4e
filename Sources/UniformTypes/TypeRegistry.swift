import PropertyLists
import SharedMIMEInfo

/// An immutable set of merged type declarations with the indexes that answer
/// tag, identifier and conformance queries. Build one with `RegistryBuilder`,
/// or use `TypeRegistry.default`.
public final class TypeRegistry: Sendable {
    struct TagKey: Hashable {
        var tagClass: String
        var tag: String
    }

    let declarations: [TypeDeclaration]
    let slotOf: [String: Int]
    let parents: [[Int32]]
    let ancestors: [[Int32]]
    let children: [[Int32]]
    let conformsToData: [Bool]
    let tagIndex: [TagKey: [Int32]]
    let shadowed: [[DeclarationOrigin]]
    let supplements: [[DeclarationOrigin]]
    /// Everything found while reading and merging the sources.
    public let diagnostics: [Diagnostic]
    /// The shared-mime-info database the registry was built with, if any:
    /// its globs and magic type files by name and content.
    public let mimeDatabase: MIMEDatabase?

    init(declarations: [TypeDeclaration], slotOf: [String: Int], parents: [[Int32]], ancestors: [[Int32]],
         shadowed: [[DeclarationOrigin]], supplements: [[DeclarationOrigin]], diagnostics: [Diagnostic],
         mimeDatabase: MIMEDatabase?) {
        self.declarations = declarations
        self.slotOf = slotOf
        self.parents = parents
        self.ancestors = ancestors
        self.shadowed = shadowed
        self.supplements = supplements
        self.mimeDatabase = mimeDatabase

        var children = [[Int32]](repeating: [], count: declarations.count)
        for (child, list) in parents.enumerated() {
            for parent in list { children[Int(parent)].append(Int32(child)) }
        }
        self.children = children

        let data = slotOf["public.data"].map { Int32($0) }
        let conformsToData = declarations.indices.map { i in
            data.map { Int32(i) == $0 || ancestors[i].contains($0) } ?? false
        }
        self.conformsToData = conformsToData

        // Tag index: every declared tag, its claimants best first.
        var index: [TagKey: [Int32]] = [:]
        index.reserveCapacity(declarations.count * 3)
        for (slot, declaration) in declarations.enumerated() {
            for spec in declaration.tagSpecification {
                for tag in spec.tags {
                    let key = TagKey(tagClass: spec.tagClass.identifier, tag: spec.tagClass.normalize(tag))
                    if index[key]?.contains(Int32(slot)) == true { continue }
                    index[key, default: []].append(Int32(slot))
                }
            }
        }
        var diagnostics = diagnostics
        func rank(_ slot: Int32) -> (Int, Int, Int, Int, Int32) {
            let d = declarations[Int(slot)]
            return (d.identifier.lowercased().hasPrefix("public.") ? 0 : 1,
                    d.origin.source.isSystem ? 1 : 0,
                    conformsToData[Int(slot)] ? 0 : 1,
                    d.kind == .exported ? 0 : 1,
                    slot)
        }
        for (key, claimants) in index where claimants.count > 1 {
            let ranked = claimants.sorted { rank($0) < rank($1) }
            index[key] = ranked
            let winner = declarations[Int(ranked[0])]
            for loser in ranked.dropFirst() {
                let d = declarations[Int(loser)]
                // A clash between sources is reported where the losing tag came from.
                let systemOnly = d.origin.source.isSystem && !winner.origin.source.isSystem
                diagnostics.append(Diagnostic(systemOnly ? .note : .warning, file: d.origin.file, position: d.origin.position,
                    "\(key.tagClass) \"\(key.tag)\" of \(d.identifier) is also claimed by \(winner.identifier) (\(winner.origin)), which is preferred"))
            }
        }
        self.tagIndex = index
        self.diagnostics = diagnostics
    }

    /// Bundled declarations only.
    public static let bundled: TypeRegistry = RegistryBuilder.bundled().build()

    /// The system's MIME types, the bundled declarations, and those of
    /// `UTI_DECLARATIONS` and the XDG `uti/types` folders. Files that cannot
    /// be read are left out and reported in `diagnostics`.
    public static let `default`: TypeRegistry = {
        var builder = RegistryBuilder.bundled()
        RegistryLoader.addSystemSources(to: &builder)
        for path in DeclarationSearchPath.environment().files() {
            builder.add(DeclarationReader.read(path: path, source: .user))
        }
        return builder.build()
    }()

    // MARK: Queries

    /// Every declared type, in declaration order.
    public var allTypes: [UTType] { declarations.indices.map { UTType(self, Int32($0)) } }

    public var count: Int { declarations.count }

    /// The declared type with `identifier` (any case), or nil.
    public func declaredType(_ identifier: String) -> UTType? {
        slotOf[identifier.lowercased()].map { UTType(self, Int32($0)) }
    }

    /// The declared type with `identifier`, or the type a well-formed
    /// `dyn.a…` identifier stands for; nil otherwise.
    public func type(identifier: String) -> UTType? {
        if let declared = declaredType(identifier) { return declared }
        guard DynamicIdentifier.isDynamic(identifier), let contents = DynamicIdentifier.decode(identifier) else {
            return nil
        }
        return UTType(self, undeclared: UTType.Undeclared(
            identifier: identifier, conformsTo: contents.conformsTo, tags: contents.tags, isDynamic: true))
    }

    /// Every declared type that claims `tag` and conforms to `supertype`,
    /// best first; a dynamic type when none does.
    public func types(tag: String, tagClass: TagClass, conformingTo supertype: UTType? = nil) -> [UTType] {
        let normalized = tagClass.normalize(tag)
        let claimants = tagIndex[TagKey(tagClass: tagClass.identifier, tag: normalized)] ?? []
        var result: [UTType] = []
        for slot in claimants {
            let candidate = UTType(self, slot)
            if supertype.map({ candidate.conforms(to: $0) }) ?? true { result.append(candidate) }
        }
        if result.isEmpty { result.append(dynamicType(tag: tag, tagClass: tagClass, conformingTo: supertype)) }
        return result
    }

    /// The preferred type for `tag`: the best declared claimant conforming to
    /// `supertype`, else a dynamic type. Nil for an empty tag.
    public func type(tag: String, tagClass: TagClass, conformingTo supertype: UTType? = nil) -> UTType? {
        guard !tagClass.normalize(tag).isEmpty else { return nil }
        return types(tag: tag, tagClass: tagClass, conformingTo: supertype).first
    }

    /// The type of a filename extension (a leading dot is accepted),
    /// conforming to `public.data` unless another supertype is given.
    public func type(filenameExtension: String, conformingTo supertype: UTType? = nil) -> UTType? {
        type(tag: filenameExtension, tagClass: .filenameExtension, conformingTo: supertype ?? declaredType("public.data"))
    }

    /// The type of a MIME type (parameters ignored), conforming to
    /// `public.data` unless another supertype is given.
    public func type(mimeType: String, conformingTo supertype: UTType? = nil) -> UTType? {
        type(tag: mimeType, tagClass: .mimeType, conformingTo: supertype ?? declaredType("public.data"))
    }

    /// A dynamic type for `tag`, whether or not a declared type claims it.
    /// The tag is normalized first (`.SQL` and `sql` give the same type).
    public func dynamicType(tag: String, tagClass: TagClass, conformingTo supertype: UTType? = nil) -> UTType {
        let tag = tagClass.normalize(tag)
        let identifier = DynamicIdentifier.make(tag: tag, tagClass: tagClass, conformingTo: supertype?.identifier)
        return UTType(self, undeclared: UTType.Undeclared(
            identifier: identifier, conformsTo: supertype.map { [$0.identifier] } ?? [],
            tags: [TagSpecification(tagClass, [tag])], isDynamic: true))
    }

    /// Every type that conforms to `type`, excluding itself: breadth first,
    /// nearest first, no repeats.
    public func descendants(of type: UTType) -> [UTType] {
        guard let root = slot(of: type) else { return [] }
        var seen: Set<Int32> = [root]
        var queue = children[Int(root)]
        var head = 0
        var result: [UTType] = []
        while head < queue.count {
            let next = queue[head]; head += 1
            guard seen.insert(next).inserted else { continue }
            result.append(UTType(self, next))
            queue.append(contentsOf: children[Int(next)])
        }
        return result
    }

    /// The tags of `tagClass` of `type` and, when asked, of every type that
    /// conforms to it: the type's own first, then descendants nearest first;
    /// each tag once (compared as the class compares tags).
    public func tags(of type: UTType, tagClass: TagClass, includingDescendants: Bool) -> [String] {
        var seen: Set<String> = []
        var result: [String] = []
        let own = slot(of: type).map { UTType(self, $0) } ?? type
        for t in [own] + (includingDescendants ? descendants(of: own) : []) {
            for tag in t.tags(tagClass) where seen.insert(tagClass.normalize(tag)).inserted {
                result.append(tag)
            }
        }
        return result
    }

    /// The system sources whose tags were added to this type.
    public func supplemented(_ type: UTType) -> [DeclarationOrigin] {
        slot(of: type).map { supplements[Int($0)] } ?? []
    }

    /// The declarations this type's winning declaration replaced.
    public func overridden(_ type: UTType) -> [DeclarationOrigin] {
        slot(of: type).map { shadowed[Int($0)] } ?? []
    }

    /// The slot of `type` in this registry; a type from another registry is
    /// found by its identifier.
    func slot(of type: UTType) -> Int32? {
        if type.registry === self { return type.slot }
        return slotOf[type.identifier.lowercased()].map { Int32($0) }
    }
}
