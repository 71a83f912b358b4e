import PropertyLists
import SystemBase

/// One type declaration as a source states it, with where it came from.
public struct TypeDeclaration: Sendable, Equatable {
    /// Exported: the source owns the type. Imported: the source describes a
    /// type someone else owns. An exported declaration beats an imported one.
    public enum Kind: String, Sendable, Equatable {
        /// `exported` when the source owns the type, `imported` when it describes a
        /// type someone else owns.
        case exported, imported
    }

    /// The type identifier (`UTTypeIdentifier`), as written.
    public var identifier: String
    /// Whether the source exports or imports the type.
    public var kind: Kind
    /// Direct parents, in declared order.
    public var conformsTo: [String]
    /// Tags by class, in declared order.
    public var tagSpecification: [TagSpecification]
    /// `UTTypeDescription`: a short human-readable name.
    public var description: String?
    /// `UTTypeReferenceURL`: where the type's format is described.
    public var referenceURL: String?
    /// `UTTypeVersion`, as text (a number is written out).
    public var version: String?
    /// The icon name or file the declaration names, if any.
    public var iconName: String?
    /// Where the declaration came from.
    public var origin: DeclarationOrigin

    /// A declaration of `identifier` found at `origin`; fields not given are
    /// empty or nil.
    public init(
        identifier: String, kind: Kind, conformsTo: [String] = [],
        tagSpecification: [TagSpecification] = [], description: String? = nil,
        referenceURL: String? = nil, version: String? = nil, iconName: String? = nil,
        origin: DeclarationOrigin
    ) {
        self.identifier = identifier
        self.kind = kind
        self.conformsTo = conformsTo
        self.tagSpecification = tagSpecification
        self.description = description
        self.referenceURL = referenceURL
        self.version = version
        self.iconName = iconName
        self.origin = origin
    }

    /// Appends the tags of `tagClass` not already declared (compared as the
    /// class compares tags), after the declared ones.
    mutating func appendTags(_ tags: [String], tagClass: TagClass) {
        guard !tags.isEmpty else { return }
        let index =
            tagSpecification.firstIndex { $0.tagClass == tagClass }
            ?? {
                tagSpecification.append(TagSpecification(tagClass, []))
                return tagSpecification.count - 1
            }()
        var seen = Set(tagSpecification[index].tags.map(tagClass.normalize))
        for tag in tags where seen.insert(tagClass.normalize(tag)).inserted {
            tagSpecification[index].tags.append(tag)
        }
    }

    /// The declared tags of `tagClass`, in order.
    public func tags(_ tagClass: TagClass) -> [String] {
        tagSpecification.first { $0.tagClass == tagClass }?.tags ?? []
    }
}

/// Where a declaration came from: which kind of source, which file, where.
public struct DeclarationOrigin: Sendable, Equatable, CustomStringConvertible {
    /// The kind of source a declaration came from; the raw value is its name
    /// in output (`app bundle`, `mime.types`).
    public enum Source: String, Sendable, Equatable {
        /// Shipped with this package (`Data/`).
        case bundled
        /// Declaration files given by the user: `--declarations`,
        /// `UTI_DECLARATIONS`, or the XDG `uti/types` folders.
        case user
        /// An app bundle's `Info.plist` (`UTExportedTypeDeclarations`,
        /// `UTImportedTypeDeclarations`).
        case application = "app bundle"
        /// The freedesktop shared-mime-info database (`mime` under the XDG data folders).
        case sharedMIMEInfo = "shared-mime-info"
        /// A `mime.types` file (`/etc/mime.types`, `~/.mime.types`).
        case mimeTypes = "mime.types"

        /// True for the system's MIME data, which ranks below declarations.
        public var isSystem: Bool { self == .sharedMIMEInfo || self == .mimeTypes }
    }

    /// The kind of source.
    public var source: Source
    /// The file's path as its source gives it (`Data/CoreTypes.plist` for a
    /// bundled declaration).
    public var file: String
    /// Where in `file` the declaration starts: a line, a byte offset (binary
    /// property lists), or unknown.
    public var position: SourcePosition

    /// The place `position` in `file`, a source of kind `source`.
    public init(source: Source, file: String, position: SourcePosition = .unknown) {
        self.source = source
        self.file = file
        self.position = position
    }

    /// `file:line` (or `file@offset N` for binary property lists).
    public var description: String { position.place(in: file) }
}

/// A problem found in a source, with its file and position (defined in
/// `SystemBase`, so that every module reports problems the same way).
public typealias Diagnostic = SystemBase.Diagnostic
/// Where something stands in a source file.
public typealias SourcePosition = SystemBase.SourcePosition
