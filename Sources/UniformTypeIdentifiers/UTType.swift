import Foundation
import UniformTypes

/// A type of data: a file format, an abstract kind such as
/// `public.image`, a folder, or anything else a type identifier names.
///
/// The API is that of Apple's `UTType`. The answers come from the process
/// registry (`ProcessTypeDeclarations`): the bundled declarations (Apple's
/// own CoreTypes data and a few additions), the system's shared-mime-info
/// database and `mime.types` files, the declaration files of
/// `UTI_DECLARATIONS` and the XDG `uti/types` folders, and the program's own
/// `Info.plist`.
///
/// Two types are equal when their identifiers are, compared
/// case-insensitively.
public struct UTType: Sendable {
    /// The same type as the `UniformTypes` module gives it, for its APIs
    /// (`FileTyping`, `TypeRegistry`): both modules answer from one registry.
    public let base: UniformTypes.UniformType

    /// The type a `UniformTypes` API gave (`FileTyping`, `TypeRegistry`).
    public init(_ base: UniformTypes.UniformType) { self.base = base }

    static var registry: TypeRegistry { ProcessTypeDeclarations.registry }

    // MARK: Creating a type

    /// The declared type with `identifier`, or the type a `dyn.a…`
    /// identifier stands for; nil when no source declares `identifier`.
    public init?(_ identifier: String) {
        guard let type = Self.registry.type(identifier: identifier) else { return nil }
        self.init(type)
    }

    /// As `init(_:)`, but when `allowUndeclared` is true an identifier no
    /// source declares still gives a type: one with that identifier and no
    /// conformances or tags, neither declared nor dynamic. Nil when
    /// `identifier` is not a well-formed type identifier.
    public init?(identifier: String, allowUndeclared: Bool) {
        let registry = Self.registry
        if let type = registry.type(identifier: identifier) {
            self.init(type)
            return
        }
        guard allowUndeclared, IdentifierSyntax.problem(with: identifier) == nil else { return nil }
        self.init(registry.undeclaredType(identifier))
    }

    /// The preferred type for a filename extension (without the dot) among
    /// those conforming to `supertype`; a dynamic type when no declared type
    /// claims it. Nil for an empty extension.
    public init?(filenameExtension: String, conformingTo supertype: UTType = .data) {
        self.init(tag: filenameExtension, tagClass: .filenameExtension, conformingTo: supertype)
    }

    /// The preferred type for a MIME type (parameters are ignored) among
    /// those conforming to `supertype`; a dynamic type when no declared type
    /// claims it. Nil for an empty MIME type and for text that is not one
    /// (a type and subtype of RFC 9110 tokens: `x/@`, `x/{` and `text/html(` are not).
    public init?(mimeType: String, conformingTo supertype: UTType = .data) {
        self.init(tag: mimeType, tagClass: .mimeType, conformingTo: supertype)
    }

    /// The preferred type for `tag` of `tagClass` among those conforming to
    /// `supertype` (any type when nil); a dynamic type when no declared type
    /// claims it. Nil for an empty tag.
    public init?(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) {
        guard
            let type = Self.registry.type(
                tag: tag, tagClass: TagClass(tagClass.rawValue),
                conformingTo: supertype?.base)
        else { return nil }
        self.init(type)
    }

    /// Every type that claims `tag` of `tagClass` and conforms to
    /// `supertype` (any type when nil), best first; a dynamic type when no
    /// declared type does. Empty for an empty tag.
    public static func types(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) -> [UTType] {
        let tagClass = TagClass(tagClass.rawValue)
        guard !tagClass.normalize(tag).isEmpty else { return [] }
        return registry.types(tag: tag, tagClass: tagClass, conformingTo: supertype?.base).map(UTType.init)
    }

    /// The type the program exports as `identifier` (in its `Info.plist`,
    /// or a file `ProcessTypeDeclarations` reads).
    ///
    /// When no source declares `identifier`, the result keeps the
    /// identifier, conforms to `parentType` (`public.data` when nil) and has
    /// no tags, and a warning naming the identifier is given once (kept in
    /// `ProcessTypeDeclarations.warnings` and passed to the warning handler
    /// the program set, if any).
    public init(exportedAs identifier: String, conformingTo parentType: UTType? = nil) {
        self.init(Self.declaredOrPlaceholder(identifier, parentType, role: "exported"))
    }

    /// The type the program imports as `identifier`: a type another program
    /// owns. When that type's preferred filename extension prefers another
    /// declared type, that type is given instead, as Apple does. An
    /// undeclared identifier is handled as `init(exportedAs:conformingTo:)`
    /// handles it.
    public init(importedAs identifier: String, conformingTo parentType: UTType? = nil) {
        let type = Self.declaredOrPlaceholder(identifier, parentType, role: "imported")
        if type.isDeclared, let ext = type.preferredFilenameExtension,
            let preferred = Self.registry.type(filenameExtension: ext, conformingTo: nil),
            preferred.isDeclared, preferred != type
        {
            self.init(preferred)
        } else {
            self.init(type)
        }
    }

    private static func declaredOrPlaceholder(
        _ identifier: String, _ parent: UTType?, role: String
    ) -> UniformTypes.UniformType {
        let registry = self.registry
        if let declared = registry.declaredType(identifier) { return declared }
        ProcessTypeDeclarations.warnUndeclared(identifier, role: role)
        return registry.undeclaredType(identifier, conformingTo: [parent?.identifier ?? "public.data"])
    }

    // MARK: Identifying a type

    /// The type identifier: `public.jpeg`, `com.adobe.pdf`, `dyn.a…`.
    public var identifier: String { base.identifier }

    // MARK: Obtaining tags

    /// The first filename extension the type declares; when it declares
    /// none, the first the system's MIME data gives it (where a Mac would
    /// answer nil). The same answer as `UniformTypes.UniformType`'s.
    public var preferredFilenameExtension: String? {
        ownTags(.filenameExtension).first ?? base.preferredFilenameExtension
    }

    /// The MIME type Linux applications know the format by: the name the
    /// system's MIME database gives it, where it names the format
    /// (`public.python-script`: `text/x-python`, where a Mac answers
    /// `text/x-python-script`; `public.mpeg-2-transport-stream`:
    /// `video/mp2t`, where a Mac answers nil); else the first the type
    /// declares. The same answer as `UniformTypes.UniformType`'s; `tags`
    /// lists what the declaration gives.
    public var preferredMIMEType: String? { base.preferredMIMEType }

    /// The type's tags by class, each list in declared order: those its
    /// declaration gives. Tags the system's MIME data adds to a declared
    /// type (`jfif` to `public.jpeg`) still find the type in lookups but
    /// are not listed, so the answers are those of Apple's registry.
    public var tags: [UTTagClass: [String]] {
        var result: [UTTagClass: [String]] = [:]
        for spec in base.registry.declaredTags(of: base) {
            result[UTTagClass(rawValue: spec.tagClass.identifier), default: []].append(contentsOf: spec.tags)
        }
        return result
    }

    private func ownTags(_ tagClass: TagClass) -> [String] {
        base.registry.declaredTags(of: base).first { $0.tagClass == tagClass }?.tags ?? []
    }

    // MARK: Obtaining additional type information

    /// Whether a source declares the type.
    public var isDeclared: Bool { base.isDeclared }

    /// Whether the type is a dynamic `dyn.a…` type made for an unclaimed tag.
    public var isDynamic: Bool { base.isDynamic }

    /// Whether the identifier is in the reserved `public` domain.
    public var isPublic: Bool { base.isPublic }

    /// The declaration's `UTTypeReferenceURL`, when it is a URL.
    public var referenceURL: URL? { base.referenceURL.flatMap { URL(string: $0) } }

    /// The declaration's `UTTypeVersion`, when it is a whole number.
    public var version: Int? { base.version.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }

    // MARK: Describing a type

    /// The type's description in the user's language (`LC_ALL`,
    /// `LC_MESSAGES`, `LANG`) where shared-mime-info translates it, else as
    /// declared; a declared type without one takes its nearest
    /// supertype's. Undeclared and dynamic types have none.
    public var localizedDescription: String? {
        guard base.isDeclared else { return nil }
        let language = ProcessTypeDeclarations.language
        if let text = base.localizedDescription(language: language) { return text }
        for supertype in base.orderedSupertypes {
            if let text = supertype.localizedDescription(language: language) { return text }
        }
        return nil
    }

    // MARK: Checking a type's relationship to another type

    /// Every type this one conforms to, directly or indirectly, itself
    /// excluded.
    public var supertypes: Set<UTType> { Set(base.orderedSupertypes.map(UTType.init)) }

    /// Whether this type is `type` or conforms to it, directly or indirectly.
    public func conforms(to type: UTType) -> Bool { base.conforms(to: type.base) }

    /// Whether this type conforms to `type` and is not `type`.
    public func isSubtype(of type: UTType) -> Bool { base.isSubtype(of: type.base) }

    /// Whether `type` conforms to this type and is not this type.
    public func isSupertype(of type: UTType) -> Bool { base.isSupertype(of: type.base) }
}

extension UTType: Hashable {
    /// Whether the two are the same type: their identifiers are equal,
    /// compared case-insensitively.
    public static func == (lhs: UTType, rhs: UTType) -> Bool { lhs.base == rhs.base }
    /// Hashes the identifier, lowercased, so that equal types hash alike.
    public func hash(into hasher: inout Hasher) { base.hash(into: &hasher) }
}

extension UTType: CustomStringConvertible, CustomDebugStringConvertible {
    /// The identifier.
    public var description: String { identifier }

    /// The identifier and whether it is declared, dynamic, or neither.
    public var debugDescription: String {
        "\(identifier) (\(isDeclared ? "declared" : isDynamic ? "dynamic" : "undeclared"))"
    }
}

extension UTType: Codable {
    /// Encodes the identifier as a single string, as Apple's `UTType` does.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(identifier)
    }

    /// Decodes an identifier written as a single string. An identifier no
    /// source declares keeps its identity (see
    /// `init(identifier:allowUndeclared:)`); a string that is not a type
    /// identifier is a `DecodingError.dataCorrupted`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let identifier = try container.decode(String.self)
        guard let type = UTType(identifier: identifier, allowUndeclared: true) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(identifier)\" is not a uniform type identifier")
        }
        self = type
    }
}
