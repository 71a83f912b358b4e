import UniformTypes

/// How a command-line query names a type.
enum QueryKind: String {
    case identifier, filenameExtension = "extension", mimeType = "mime-type", tag
}

/// A query resolved to a type, with the other claimants of its tag.
struct Resolution {
    var query: String
    var kind: QueryKind
    var type: UTType
    /// Other declared types that claim the same tag, best first.
    var alternatives: [UTType]
}

/// A query that names nothing.
struct QueryError: Error, CustomStringConvertible {
    var description: String
}

/// Reads a query the way `uti` documents: a `/` makes it a MIME type, a
/// declared or `dyn.` identifier is an identifier, anything else is a
/// filename extension. A forced kind overrides the guess.
struct QueryResolver {
    let registry: TypeRegistry
    var forcedKind: QueryKind?
    var tagClass: TagClass?
    var conformingTo: UTType?

    func kind(of query: String) -> QueryKind {
        if let forcedKind { return forcedKind }
        if tagClass != nil { return .tag }
        if query.contains("/") { return .mimeType }
        if registry.declaredType(query) != nil || DynamicIdentifier.isDynamic(query) { return .identifier }
        return .filenameExtension
    }

    func resolve(_ query: String) throws(QueryError) -> Resolution {
        if query.isEmpty { throw QueryError(description: "empty query") }
        let kind = kind(of: query)
        let tagClass: TagClass
        switch kind {
        case .identifier:
            guard let type = registry.type(identifier: query) else {
                if DynamicIdentifier.isDynamic(query) {
                    throw QueryError(description: "\"\(query)\" is not a well-formed dynamic identifier")
                }
                throw QueryError(description: "no type is declared with identifier \"\(query)\"")
            }
            return Resolution(query: query, kind: kind, type: type, alternatives: [])
        case .filenameExtension:
            if query.dropFirst(query.hasPrefix(".") ? 1 : 0).isEmpty {
                throw QueryError(description: "empty filename extension")
            }
            tagClass = .filenameExtension
        case .mimeType:
            tagClass = .mimeType
        case .tag:
            tagClass = self.tagClass ?? .filenameExtension
        }
        let filter = conformingTo ?? ((tagClass == .filenameExtension || tagClass == .mimeType) ? registry.declaredType("public.data") : nil)
        let all = registry.types(tag: query, tagClass: tagClass, conformingTo: filter)
        guard let first = all.first else { throw QueryError(description: "no type for \"\(query)\"") }
        return Resolution(query: query, kind: kind, type: first, alternatives: Array(all.dropFirst()))
    }

    /// Resolves a type argument of a command (`conforms`, `tags`, …).
    func type(_ query: String) throws(QueryError) -> UTType {
        try resolve(query).type
    }
}

extension TagClass {
    /// Short names accepted on the command line.
    static func parse(_ text: String) -> TagClass {
        switch text.lowercased() {
        case "extension", "ext", "filename-extension": .filenameExtension
        case "mime", "mime-type": .mimeType
        case "ostype", "os-type": .osType
        case "pasteboard", "pboard": .pasteboardType
        case "url-scheme", "scheme": .urlScheme
        default: TagClass(text)
        }
    }

    /// The label `uti` prints for the class.
    var label: String {
        switch self {
        case .filenameExtension: "extensions"
        case .mimeType: "MIME types"
        case .osType: "OSTypes"
        case .pasteboardType: "pasteboard types"
        default: identifier
        }
    }
}
