import SystemBase
import UniformTypes

/// How a command-line query names a type.
enum QueryKind: String {
    case identifier, filenameExtension = "extension", mimeType = "mime-type", tag
}

/// A query resolved to a type, with the other claimants of its tag.
struct Resolution {
    var query: String
    var kind: QueryKind
    var type: UniformType
    /// Other declared types that claim the same tag, best first.
    var alternatives: [UniformType]
}

/// A query that names nothing.
struct QueryError: Error, CustomStringConvertible {
    var description: String
    /// The query is no type query at all (a path, a word no extension
    /// could be): an error (exit 2) even where an unknown type is a "no".
    var isMisread = false
}

/// Reads a query the way `uti` documents: a `/` makes it a MIME type, a
/// declared or `dyn.` identifier is an identifier, anything else is a
/// filename extension. A forced kind overrides the guess.
struct QueryResolver {
    let registry: TypeRegistry
    var forcedKind: QueryKind?
    var tagClass: TagClass?
    var conformingTo: UniformType?
    /// No conformance filter at all (Apple's `conformingTo: nil`): the best
    /// claimant of any kind, else a dynamic identifier carrying no conformance.
    var unfiltered = false
    /// The command a message suggests for a query that is a file: the
    /// words before the path and after it (`uti conforms --file PATH TYPE`).
    var fileCommand: (before: [String], after: [String]) = (["uti", "file"], [])

    /// `fileCommand` for `path`, quoted for the shell.
    func fileSuggestion(_ path: String) -> String {
        Escaping.command(fileCommand.before + [path] + fileCommand.after)
    }

    func kind(of query: String) -> QueryKind {
        if let forcedKind { return forcedKind }
        if tagClass != nil { return .tag }
        if query.contains("/") { return .mimeType }
        if registry.declaredType(query) != nil || DynamicIdentifier.isDynamic(query) { return .identifier }
        return .filenameExtension
    }

    func resolve(_ query: String) throws(QueryError) -> Resolution {
        if query.isEmpty { throw QueryError(description: "empty query") }
        if PathText.isRaw(query) {
            throw QueryError(
                description: "is not UTF-8 text"
                    + (forcedKind == nil ? "; for a file: \(fileSuggestion(query))" : ""))
        }
        if forcedKind == nil && tagClass == nil, let problem = pathProblem(query) {
            throw QueryError(description: problem, isMisread: true)
        }
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
            // A dotted one is refused below unless claimed (`undeclaredDottedName`).
            if forcedKind == nil, self.tagClass == nil, !query.dropFirst().contains("."), !registry.claims(tag: query),
                let odd = query.unicodeScalars.first(where: Self.neverInExtension)
            {
                let hex = String(odd.value, radix: 16, uppercase: true)
                let what =
                    odd == " "
                    ? "a space" : "the character U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                throw QueryError(
                    description: "has \(what), which no filename extension has; for a file: "
                        + "\(fileSuggestion(query)); --as-extension reads it as an extension",
                    isMisread: true)
            }
        case .mimeType:
            if let problem = TagClass.mimeSyntaxProblem(query) {
                throw QueryError(
                    description: "is not a MIME type (TYPE/SUBTYPE): \(problem)"
                        + (kind == forcedKind ? "" : "; for a file: \(fileSuggestion(query))"))
            }
            tagClass = .mimeType
        case .tag:
            tagClass = self.tagClass ?? .filenameExtension
            if tagClass == .mimeType, let problem = TagClass.mimeSyntaxProblem(query) {
                throw QueryError(description: "is not a MIME type (TYPE/SUBTYPE): \(problem)")
            }
        }
        let filter =
            unfiltered
            ? nil
            : conformingTo
                ?? ((tagClass == .filenameExtension || tagClass == .mimeType)
                    ? registry.declaredType("public.data") : nil)
        let all = registry.types(tag: query, tagClass: tagClass, conformingTo: filter)
        guard let first = all.first else { throw QueryError(description: "no type for \"\(query)\"") }
        if first.isDynamic && forcedKind == nil && self.tagClass == nil && kind == .filenameExtension
            && query.dropFirst(query.hasPrefix(".") ? 1 : 0).contains(".") && !registry.claims(tag: query)
        {
            throw undeclaredDottedName(query)
        }
        return Resolution(query: query, kind: kind, type: first, alternatives: Array(all.dropFirst()))
    }

    /// Why `query` is read as a path rather than a type, with how to ask
    /// about the file, or nil when it may be a type. A path: a query that
    /// starts with `/`, `./`, `../` or `~/`; one that holds a `/` yet is no
    /// MIME type and either names an existing file or is no near miss of a
    /// MIME type (more than one `/`, a trailing `/`); a MIME type no type
    /// claims that names an existing file (`dir/pic.jpg`). A one-slash near
    /// miss that names nothing (`text/html(`) stays a malformed MIME type,
    /// an unclaimed well-formed one (`dir/pic.jpg`) a dynamic type.
    func pathProblem(_ query: String) -> String? {
        let prefixed = ["/", "./", "../", "~/"].contains(where: query.hasPrefix) || query == "." || query == ".."
        guard prefixed || query.contains("/") else { return nil }
        let exists = FileStatus.exists(PathText.bytes(query))
        if !prefixed {
            if TagClass.isMIMESyntax(query) {
                guard exists && !registry.claims(tag: query) else { return nil }
            } else if !exists && query.utf8.count(where: { $0 == UInt8(ascii: "/") }) == 1 && !query.hasSuffix("/") {
                return nil
            }
        }
        return exists
            ? "is a path, not a type; for the type of the file: \(fileSuggestion(query))"
            : "looks like a path, and no file is there; a type is written as an identifier, extension or "
                + "MIME type (public.jpeg, jpg, image/jpeg); for a file that exists: \(fileSuggestion(query))"
    }

    /// Characters no filename extension a type claims has: white space
    /// (a `/` makes a query a MIME type or a path).
    static func neverInExtension(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace
    }

    /// A dotted name that is neither a declared identifier nor a claimed
    /// extension is most likely a mistyped identifier (`public.imgae`) or a
    /// file name, never silently an extension.
    private func undeclaredDottedName(_ query: String) -> QueryError {
        var message = "no type is declared with this identifier and none claims it as an extension"
        let near = registry.suggestions(for: query)
        if !near.isEmpty { message += " (did you mean \(near.joined(separator: ", "))?)" }
        if let last = FileTyping.extensions(of: query).last, registry.claims(tag: last) {
            message += "; for a file name: \(fileSuggestion(query))"
        }
        return QueryError(description: message + "; --as-extension reads it as an extension")
    }

    /// A command-line word for a type that must be declared (the supertype
    /// of `conforms`, the root of `descendants` and `graph`): the error for
    /// one that only gives a dynamic type, with the identifiers it may mean.
    func undeclared(_ query: String, _ type: UniformType) -> QueryError? {
        guard type.isDynamic, !DynamicIdentifier.isDynamic(query) else { return nil }
        var message = "names no declared type (it only gives \(type.identifier))"
        let near = registry.suggestions(for: query)
        if !near.isEmpty { message += "; did you mean \(near.joined(separator: ", "))?" }
        return QueryError(description: message)
    }

    /// Whether `query` names a type as written: a declared or dynamic
    /// identifier, or a MIME type or other tag some type claims (an
    /// unclaimed one, `dir/pic.dat`, names only a dynamic type).
    func knows(_ query: String) -> Bool {
        switch kind(of: query) {
        case .identifier: true
        case .mimeType: TagClass.isMIMESyntax(query) && registry.claims(tag: query)
        case .filenameExtension: registry.claims(tag: query)
        case .tag: true
        }
    }

    /// Resolves a type argument of a command (`conforms`, `tags`, …).
    func type(_ query: String) throws(QueryError) -> UniformType {
        try resolve(query).type
    }
}

extension TagClass {
    /// Short names accepted on the command line, and what they stand for.
    static let shortNames: [(String, TagClass)] = [
        ("extension", .filenameExtension), ("ext", .filenameExtension), ("filename-extension", .filenameExtension),
        ("mime", .mimeType), ("mime-type", .mimeType), ("ostype", .osType), ("os-type", .osType),
        ("pasteboard", .pasteboardType), ("pboard", .pasteboardType), ("url-scheme", .urlScheme),
        ("scheme", .urlScheme),
    ]

    /// A tag class named on the command line: a short name, one of Apple's
    /// class identifiers, or the identifier of a class `registry` holds
    /// tags of. Anything else is refused with the accepted values.
    static func parse(_ text: String, registry: TypeRegistry) throws(QueryError) -> TagClass {
        if let (_, tagClass) = shortNames.first(where: { $0.0 == text.lowercased() }) { return tagClass }
        var identifiers = [TagClass.filenameExtension, .mimeType, .osType, .pasteboardType, .urlScheme].map(
            \.identifier)
        for tagClass in registry.tagClasses where !identifiers.contains(tagClass.identifier) {
            identifiers.append(tagClass.identifier)
        }
        if let known = identifiers.first(where: { $0.lowercased() == text.lowercased() }) { return TagClass(known) }
        let names = ["extension", "mime", "ostype", "pasteboard", "url-scheme"]
        let near = Spelling.nearest(text, among: shortNames.map(\.0) + identifiers, limit: 1)
        throw QueryError(
            description: "\"\(text)\" is not a tag class"
                + (near.isEmpty ? "" : " (did you mean \(near[0])?)")
                + "; use \(names.joined(separator: ", ")) or a class identifier: \(identifiers.joined(separator: ", "))"
        )
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
