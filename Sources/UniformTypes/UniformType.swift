/// A uniform type: a declared type of a registry, or an undeclared one (a
/// dynamic `dyn.a…` type, or an identifier no source declares).
///
/// Names follow Apple's `UTType` where Apple has them. Two types are equal
/// when their identifiers are equal, compared case-insensitively.
public struct UniformType: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// What an undeclared type carries, boxed: a `UniformType` stays three
    /// words.
    final class Undeclared: Sendable {
        let identifier: String
        let conformsTo: [String]
        let tags: [TagSpecification]
        let isDynamic: Bool
        /// The registry of the type, when it is not permanent.
        let keeper: TypeRegistry?

        init(
            identifier: String, conformsTo: [String], tags: [TagSpecification], isDynamic: Bool,
            keeping keeper: TypeRegistry?
        ) {
            self.identifier = identifier
            self.conformsTo = conformsTo
            self.tags = tags
            self.isDynamic = isDynamic
            self.keeper = keeper
        }
    }

    enum Storage: Sendable {
        case declared(Int32)
        case undeclared(Undeclared)
    }

    /// The registry that answers this type's questions.
    public var registry: TypeRegistry { unretainedRegistry.takeUnretainedValue() }

    /// The registry, not retained.
    private var unretainedRegistry: Unmanaged<TypeRegistry> {
        .fromOpaque(UnsafeRawPointer(bitPattern: registryAddress).unsafelyUnwrapped)
    }

    /// The registry's address, not retained: the registry lives as long as
    /// the process (`TypeRegistry.isPermanent`) or `owner` keeps it. A
    /// declared type of the process registry is thereby three plain words,
    /// copied without touching a reference count.
    private let registryAddress: UInt
    /// The slot of a declared type; -1 for an undeclared one.
    private let declaredSlot: Int32
    /// An undeclared type's `Undeclared` (which keeps the registry); the
    /// registry of a declared type when it is not permanent; else nil.
    /// Both are immutable and `Sendable`.
    private let owner: AnyObject?

    init(_ registry: TypeRegistry, _ slot: Int32) {
        let unretained = Unmanaged.passUnretained(registry)
        registryAddress = UInt(bitPattern: unretained.toOpaque())
        // A damaged image can name a negative slot; it stays a declared
        // slot (outside every image, so it reads as empty), since only an
        // undeclared type's slot is negative.
        declaredSlot = slot < 0 ? .max : slot
        // Counted only when kept, so that a permanent registry's type is
        // made without touching the count.
        owner = registry.isPermanent ? nil : unretained.takeUnretainedValue()
    }

    /// An undeclared type of `registry`.
    init(_ registry: TypeRegistry, identifier: String, conformsTo: [String], tags: [TagSpecification], isDynamic: Bool)
    {
        registryAddress = UInt(bitPattern: Unmanaged.passUnretained(registry).toOpaque())
        declaredSlot = -1
        owner = Undeclared(
            identifier: identifier, conformsTo: conformsTo, tags: tags, isDynamic: isDynamic,
            keeping: registry.isPermanent ? nil : registry)
    }

    /// Which kind of type this is, with what it carries.
    var storage: Storage {
        guard declaredSlot < 0, let owner else { return .declared(declaredSlot) }
        return .undeclared(unsafeDowncast(owner, to: Undeclared.self))
    }

    var slot: Int32? { declaredSlot >= 0 ? declaredSlot : nil }

    // MARK: Apple's initializers, over `TypeRegistry.default`

    /// The declared or dynamic type with `identifier`.
    public init?(_ identifier: String) {
        guard let type = TypeRegistry.default.type(identifier: identifier) else { return nil }
        self = type
    }

    /// The type of a filename extension (a leading dot is accepted) conforming
    /// to `supertype`: the best declared claimant, else a dynamic type; nil for
    /// an empty extension.
    public init?(filenameExtension: String, conformingTo supertype: UniformType = .data) {
        guard let type = TypeRegistry.default.type(filenameExtension: filenameExtension, conformingTo: supertype) else {
            return nil
        }
        self = type
    }

    /// The type of a MIME type (parameters ignored) conforming to `supertype`:
    /// the best declared claimant, else a dynamic type; nil when `mimeType` is
    /// not one (`TagClass.isMIMESyntax`).
    public init?(mimeType: String, conformingTo supertype: UniformType = .data) {
        guard let type = TypeRegistry.default.type(mimeType: mimeType, conformingTo: supertype) else { return nil }
        self = type
    }

    /// The preferred type for `tag` of `tagClass`, conforming to `supertype`
    /// when given: the best declared claimant, else a dynamic type. Nil for an
    /// empty tag and for a MIME type that is not one (`TagClass.isMIMESyntax`).
    public init?(tag: String, tagClass: TagClass, conformingTo supertype: UniformType?) {
        guard let type = TypeRegistry.default.type(tag: tag, tagClass: tagClass, conformingTo: supertype) else {
            return nil
        }
        self = type
    }

    /// The declared type `identifier`, or, when no source declares it, an
    /// undeclared type with that identifier conforming to `parentType`.
    public init(exportedAs identifier: String, conformingTo parentType: UniformType? = nil) {
        self = UniformType.declaredOrPlaceholder(identifier, parentType, in: .default)
    }

    /// As `init(exportedAs:conformingTo:)`, for a type owned by someone else.
    public init(importedAs identifier: String, conformingTo parentType: UniformType? = nil) {
        self = UniformType.declaredOrPlaceholder(identifier, parentType, in: .default)
    }

    static func declaredOrPlaceholder(
        _ identifier: String, _ parent: UniformType?, in registry: TypeRegistry
    ) -> UniformType {
        registry.declaredType(identifier)
            ?? UniformType(
                registry,
                identifier: identifier, conformsTo: parent.map { [$0.identifier] } ?? [], tags: [], isDynamic: false)
    }

    /// Every declared type that claims `tag` of `tagClass` and conforms to
    /// `supertype` when given, best first; a dynamic type when none does.
    /// Empty for a MIME type that is not one (`TagClass.isMIMESyntax`).
    public static func types(tag: String, tagClass: TagClass, conformingTo supertype: UniformType?) -> [UniformType] {
        TypeRegistry.default.types(tag: tag, tagClass: tagClass, conformingTo: supertype)
    }

    // MARK: Properties

    /// The type identifier (`public.jpeg`), spelled as declared or as given.
    public var identifier: String {
        switch storage {
        case .declared(let s): registry.identifier(s)
        case .undeclared(let u): u.identifier
        }
    }

    /// Calls `body` with the identifier's UTF-8 bytes, without making a
    /// `String` of a declared one (for output of many answers).
    public func withIdentifierUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        switch storage {
        case .declared(let s): return try body(registry.identifierBytes(s))
        case .undeclared(let u):
            var text = u.identifier
            return try text.withUTF8(body)
        }
    }

    /// The declaration that defines this type, nil for undeclared types.
    public var declaration: TypeDeclaration? {
        slot.map { registry.declaration($0) }
    }

    /// The declared description (`UTTypeDescription`); for a type only the
    /// shared-mime-info database knows, its untranslated comment.
    public var localizedDescription: String? { localizedDescription(language: nil) }

    /// The description in `language` (`de`, `pt_BR`) where the
    /// shared-mime-info database has a translation of a type it declares;
    /// otherwise the declared description.
    public func localizedDescription(language: String?) -> String? {
        guard let slot else { return nil }
        if let language, !language.isEmpty, let db = registry.mimeDatabase {
            for mime in tags(.mimeType) where db.isKnown(mime) {
                if let text = db.comment(for: mime, language: language) { return text }
            }
        }
        if let description = registry.description(slot) { return description }
        guard registry.origin(slot).source == .sharedMIMEInfo, let db = registry.mimeDatabase,
            let mime = preferredMIMEType
        else { return nil }
        return db.comment(for: mime, language: nil)
    }

    /// `UTTypeReferenceURL` as declared: where the type's format is described.
    public var referenceURL: String? { declaration?.referenceURL }

    /// `UTTypeVersion` as declared.
    public var version: String? { declaration?.version }

    /// Whether a source of the registry declares the type (false for dynamic
    /// types and for identifiers no source declares).
    public var isDeclared: Bool { slot != nil }

    /// Whether the type is a dynamic one (`dyn.a…`): made for a tag no declared
    /// type claims, or decoded from such an identifier.
    public var isDynamic: Bool {
        if case .undeclared(let u) = storage { return u.isDynamic }
        return false
    }

    /// Whether the identifier is in the reserved `public` domain.
    public var isPublic: Bool { identifier.lowercased().hasPrefix("public.") }

    /// Tags by class, each list in declared order.
    public var tagSpecification: [TagSpecification] {
        switch storage {
        case .declared(let s): registry.tagSpecification(s)
        case .undeclared(let u): u.tags
        }
    }

    /// The tags of each class, in declared order.
    public var tags: [TagClass: [String]] {
        var result: [TagClass: [String]] = [:]
        for spec in tagSpecification { result[spec.tagClass, default: []].append(contentsOf: spec.tags) }
        return result
    }

    /// The tags of `tagClass`, in declared order (the first is the preferred
    /// one).
    public func tags(_ tagClass: TagClass) -> [String] {
        tagSpecification.filter { $0.tagClass == tagClass }.flatMap(\.tags)
    }

    /// The first filename extension, or nil when the type has none.
    public var preferredFilenameExtension: String? { tags(.filenameExtension).first }
    /// The first MIME type, or nil when the type has none: the name the
    /// system's MIME database gives the format where it names it (the one
    /// desktop entries register: `text/x-python` for
    /// `public.python-script`), else the first the declaration gives.
    public var preferredMIMEType: String? { tags(.mimeType).first }

    /// The identifiers of the direct parents, as declared.
    public var declaredParents: [String] {
        switch storage {
        case .declared(let s): registry.conformsTo(s)
        case .undeclared(let u): u.conformsTo
        }
    }

    /// Every type this one conforms to, excluding itself, nearest first,
    /// without repeats.
    public var orderedSupertypes: [UniformType] {
        switch storage {
        case .declared(let s):
            return registry.ancestors(s).map { UniformType(registry, $0) }
        case .undeclared(let u):
            var result: [UniformType] = []
            var seen: Set<String> = [identifier.lowercased()]
            for parent in u.conformsTo {
                let type = UniformType.declaredOrPlaceholder(parent, nil, in: registry)
                for t in [type] + type.orderedSupertypes where seen.insert(t.identifier.lowercased()).inserted {
                    result.append(t)
                }
            }
            return result
        }
    }

    /// Every type this one conforms to, excluding itself (`orderedSupertypes`
    /// as a set).
    public var supertypes: Set<UniformType> { Set(orderedSupertypes) }

    /// Conformance is reflexive and transitive.
    public func conforms(to other: UniformType) -> Bool {
        // Two declared types of one registry: its ancestor lists answer,
        // without copying either type's storage.
        let a = declaredSlot, b = other.declaredSlot
        if a >= 0, b >= 0, registryAddress == other.registryAddress {
            return a == b
                || unretainedRegistry._withUnsafeGuaranteedRef { registry in
                    b == registry.dataSlot ? registry.conformsToData(a) : registry.hasAncestor(a, b)
                }
        }
        return self == other || orderedSupertypes.contains(other)
    }

    /// Whether this type conforms to `other` and is not `other`.
    public func isSubtype(of other: UniformType) -> Bool { self != other && conforms(to: other) }
    /// Whether `other` conforms to this type and is not this type.
    public func isSupertype(of other: UniformType) -> Bool { self != other && other.conforms(to: self) }

    /// Where the winning declaration came from.
    public var origin: DeclarationOrigin? { slot.map { registry.origin($0) } }

    /// The identifier.
    public var description: String { identifier }

    /// Whether `a` and `b` are the same type: their identifiers are equal,
    /// compared case-insensitively.
    public static func == (a: UniformType, b: UniformType) -> Bool {
        if a.declaredSlot >= 0, b.declaredSlot >= 0,
            a.registryAddress == b.registryAddress
        {
            return a.declaredSlot == b.declaredSlot
        }
        return a.identifier.lowercased() == b.identifier.lowercased()
    }

    /// Hashes the lower-cased identifier, as `==` compares it.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier.lowercased())
    }
}

extension UniformType {
    private static func system(_ identifier: String) -> UniformType {
        declaredOrPlaceholder(identifier, nil, in: .default)
    }

    /// `public.item`: the base type of files, folders and everything else a
    /// file system holds.
    public static var item: UniformType { system("public.item") }
    /// `public.content`: the base type of anything a user views or edits as a
    /// document.
    public static var content: UniformType { system("public.content") }
    /// `public.data`: the base type of byte streams, such as files and
    /// in-memory data.
    public static var data: UniformType { system("public.data") }
    /// `public.directory`: a file system folder, including packages.
    public static var directory: UniformType { system("public.directory") }
    /// `public.folder`: a folder the user browses (not a package).
    public static var folder: UniformType { system("public.folder") }
    /// `com.apple.package`: a folder presented as a single file, such as an app
    /// bundle.
    public static var package: UniformType { system("com.apple.package") }
    /// `public.text`: the base type of text, including text with markup.
    public static var text: UniformType { system("public.text") }
    /// `public.plain-text`: text without markup, in an unspecified encoding.
    public static var plainText: UniformType { system("public.plain-text") }
    /// `public.utf8-plain-text`: plain text in UTF-8.
    public static var utf8PlainText: UniformType { system("public.utf8-plain-text") }
    /// `public.source-code`: the base type of program source code.
    public static var sourceCode: UniformType { system("public.source-code") }
    /// `public.json`: JSON text.
    public static var json: UniformType { system("public.json") }
    /// `public.xml`: XML text.
    public static var xml: UniformType { system("public.xml") }
    /// `public.image`: the base type of images.
    public static var image: UniformType { system("public.image") }
    /// `public.jpeg`: a JPEG image.
    public static var jpeg: UniformType { system("public.jpeg") }
    /// `public.png`: a PNG image.
    public static var png: UniformType { system("public.png") }
    /// `com.adobe.pdf`: a PDF document.
    public static var pdf: UniformType { system("com.adobe.pdf") }
    /// `public.audio`: the base type of audio without video.
    public static var audio: UniformType { system("public.audio") }
    /// `public.movie`: the base type of media with video, with or without sound.
    public static var movie: UniformType { system("public.movie") }
    /// `public.archive`: the base type of archives that hold files.
    public static var archive: UniformType { system("public.archive") }
    /// `public.zip-archive`: a zip archive.
    public static var zip: UniformType { system("public.zip-archive") }
    /// `public.executable`: the base type of programs and other executable
    /// files.
    public static var executable: UniformType { system("public.executable") }
}
