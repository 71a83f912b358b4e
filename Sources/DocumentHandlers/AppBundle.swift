import PropertyLists
import SystemBase
import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

/// An application bundle: a folder holding `Contents/Info.plist` (or
/// `Info.plist`) whose property list names the app and the documents it
/// opens, and may declare types of its own.
public struct AppBundle: Sendable {
    /// How an app uses a document type (`CFBundleTypeRole`).
    public enum Role: String, Sendable, CaseIterable {
        /// The roles Apple defines: Editor reads and changes the document, Viewer
        /// only reads and shows it, Shell gives it a runtime (as an interpreter
        /// does a script), and None does not open it at all.
        case editor = "Editor", viewer = "Viewer", shell = "Shell", none = "None"
        /// A Quick Look generator: it makes previews and never opens the document.
        case qlGenerator = "QLGenerator"

        /// Whether the app opens documents in this role (not None or QLGenerator).
        public var opens: Bool { self != .none && self != .qlGenerator }
    }

    /// How strongly an app claims a document type (`LSHandlerRank`), best first.
    public enum Rank: String, Sendable, CaseIterable, Comparable {
        /// The ranks Apple defines: Owner for the app that creates the type,
        /// Default for an ordinary claim (and a missing `LSHandlerRank`),
        /// Alternate for a secondary viewer or editor, and None for an app that
        /// must never open the type.
        case owner = "Owner", `default` = "Default", alternate = "Alternate", none = "None"
        var order: Int { Self.allCases.firstIndex(of: self)! }
        /// Whether `a` is the stronger claim: Owner, then Default, then Alternate, then None.
        public static func < (a: Rank, b: Rank) -> Bool { a.order < b.order }
    }

    /// One `CFBundleDocumentTypes` entry.
    public struct DocumentType: Sendable {
        /// `CFBundleTypeName`.
        public var name: String?
        /// `LSItemContentTypes`; when present, the legacy keys are ignored,
        /// as on macOS.
        public var contentTypes: [String] = []
        /// Where each of `contentTypes` is written.
        public var contentTypePositions: [SourcePosition] = []
        /// `CFBundleTypeExtensions`, each without a leading dot.
        public var extensions: [String] = []
        /// `CFBundleTypeMIMETypes`.
        public var mimeTypes: [String] = []
        /// `CFBundleTypeOSTypes`: four-character codes, `****` for any data.
        public var osTypes: [String] = []
        /// `CFBundleTypeRole`; Viewer when it is missing or names no role.
        public var role: Role = .viewer
        /// `LSHandlerRank`; Default when it is missing or names no rank.
        public var rank: Rank = .default
        /// Where the entry is written in the property list.
        public var position: SourcePosition
    }

    /// One `CFBundleURLTypes` entry: URL schemes the app opens.
    public struct URLType: Sendable {
        /// `CFBundleURLName`.
        public var name: String?
        /// `CFBundleURLSchemes`, lower case; entries that are not schemes are left out.
        public var schemes: [URLScheme] = []
        /// `CFBundleTypeRole` (QLGenerator is not accepted here); Viewer when it is missing or names no role.
        public var role: Role = .viewer
        /// `LSHandlerRank`; Default when it is missing or names no rank.
        public var rank: Rank = .default
        /// Where the entry is written in the property list.
        public var position: SourcePosition
    }

    /// The bundle folder, as given.
    public let path: String
    /// The bundle's property list: `Contents/Info.plist` or `Info.plist` in the folder.
    public let infoPlistPath: String
    /// `CFBundleIdentifier`: a non-empty string without spaces, `/` or `;`.
    public var identifier: String = ""
    /// `CFBundleDisplayName`, else `CFBundleName`, else the folder's name without `.app`.
    public var name: String = ""
    /// `CFBundleExecutable` as written; `executablePath` is the program it names.
    public var executable: String?
    /// The `CFBundleDocumentTypes` entries, in order; an entry that is not a dictionary is left out.
    public var documentTypes: [DocumentType] = []
    /// The `CFBundleURLTypes` entries, in order; an entry that is not a dictionary is left out.
    public var urlTypes: [URLType] = []
    /// The bundle's `UTExportedTypeDeclarations` / `UTImportedTypeDeclarations`.
    public var declarations: DeclarationReader?
    /// Problems in the document and URL types (unknown keys, values of the wrong kind); what could be read is kept.
    public private(set) var diagnostics: [Diagnostic] = []

    /// The property list of the bundle at `path`, or nil when the folder is
    /// not a bundle.
    public static func infoPlist(in path: String) -> String? { AppBundleSearchPath.infoPlist(in: path) }

    /// Reads the bundle at `path`. Throws when its property list cannot be
    /// read or lacks what every bundle needs (`CFBundleIdentifier`).
    public init(path: String) throws(Diagnostic) {
        let plistPath = try AppBundleDeclarations.infoPlist(of: path)
        try self.init(path: path, infoPlistPath: plistPath, plist: try Self.readPropertyList(plistPath))
    }

    /// Reads a property list file (binary or XML).
    public static func readPropertyList(_ plistPath: String) throws(Diagnostic) -> PropertyList {
        try AppBundleDeclarations.readPropertyList(plistPath)
    }

    /// The bundle at `path` whose property list, read from
    /// `infoPlistPath`, is `plist`.
    public init(path: String, infoPlistPath plistPath: String, plist: PropertyList) throws(Diagnostic) {
        self.path = path
        infoPlistPath = plistPath
        // The identifier and the type declarations are read as the registry reads them.
        let registryPart = try AppBundleDeclarations(path: path, infoPlistPath: plistPath, plist: plist)
        identifier = registryPart.identifier
        declarations = registryPart.declarations
        let folderName = String(path.unicodeScalars.split(separator: "/").last.map(String.init) ?? path)
        name =
            string(plist, "CFBundleDisplayName") ?? string(plist, "CFBundleName")
            ?? (folderName.hasSuffix(".app") ? String(folderName.dropLast(4)) : folderName)
        executable = string(plist, "CFBundleExecutable")
        if let types = plist["CFBundleDocumentTypes"] {
            if let items = types.arrayValue {
                for item in items { readDocumentType(item) }
            } else {
                report(.error, types.location, "CFBundleDocumentTypes is \(types.kindPhrase), expected an array")
            }
        }
        if let types = plist["CFBundleURLTypes"] {
            if let items = types.arrayValue {
                for item in items { readURLType(item) }
            } else {
                report(.error, types.location, "CFBundleURLTypes is \(types.kindPhrase), expected an array")
            }
        }
    }

    /// The program a document is opened with: `Contents/MacOS/NAME`,
    /// `Contents/Linux/NAME` or `NAME` in the bundle, whichever exists.
    public var executablePath: String? {
        // Bytes, not Characters: a combining mark after a / must not hide it.
        let slash = UInt8(ascii: "/")
        guard let executable, !executable.isEmpty, !executable.utf8.contains(slash) || executable.utf8.first == slash
        else { return nil }
        if executable.utf8.first == slash { return access(executable, X_OK) == 0 ? executable : nil }
        for folder in ["Contents/MacOS", "Contents/Linux", ""] {
            let candidate = folder.isEmpty ? "\(path)/\(executable)" : "\(path)/\(folder)/\(executable)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    private mutating func readDocumentType(_ item: PropertyList) {
        guard item.dictionaryValue != nil else {
            report(.error, item.location, "a CFBundleDocumentTypes entry is \(item.kindPhrase), expected a dictionary")
            return
        }
        var type = DocumentType(position: item.location)
        warnAboutUnknownKeys(in: item, known: Self.documentTypeKeys, of: "CFBundleDocumentTypes")
        type.name = string(item, "CFBundleTypeName")
        let contentTypes = strings(item, "LSItemContentTypes", positions: true)
        type.contentTypes = contentTypes.map(\.0)
        type.contentTypePositions = contentTypes.map(\.1)
        type.extensions = strings(item, "CFBundleTypeExtensions").map {
            $0.hasPrefix(".") ? String($0.dropFirst()) : $0
        }
        type.mimeTypes = strings(item, "CFBundleTypeMIMETypes")
        type.osTypes = strings(item, "CFBundleTypeOSTypes")
        type.role = value(item, "CFBundleTypeRole", among: Role.allCases, default: .viewer)
        type.rank = value(item, "LSHandlerRank", among: Rank.allCases, default: .default)
        if type.contentTypes.isEmpty && type.extensions.isEmpty && type.mimeTypes.isEmpty && type.osTypes.isEmpty {
            report(
                .warning, item.location,
                "document type \(type.name.map { "\"\($0)\" " } ?? "")names no types (LSItemContentTypes or the legacy keys)"
            )
        } else if !type.contentTypes.isEmpty {
            let legacy = ["CFBundleTypeExtensions", "CFBundleTypeMIMETypes", "CFBundleTypeOSTypes"].filter {
                item[$0] != nil
            }
            if !legacy.isEmpty {
                report(
                    .warning, item.location,
                    "\(legacy.joined(separator: ", ")) \(legacy.count == 1 ? "is" : "are") ignored because LSItemContentTypes is given; "
                        + "declare the types and list them in LSItemContentTypes")
            }
        }
        documentTypes.append(type)
    }

    private mutating func readURLType(_ item: PropertyList) {
        guard item.dictionaryValue != nil else {
            report(.error, item.location, "a CFBundleURLTypes entry is \(item.kindPhrase), expected a dictionary")
            return
        }
        var type = URLType(position: item.location)
        warnAboutUnknownKeys(in: item, known: Self.urlTypeKeys, of: "CFBundleURLTypes")
        type.name = string(item, "CFBundleURLName")
        if item["CFBundleTypeRole"] == nil {
            report(
                .warning, item.location,
                "URL type \(type.name.map { "\"\($0)\" " } ?? "")has no CFBundleTypeRole (Editor, Viewer, Shell or None); Viewer is used"
            )
        }
        type.role = value(
            item, "CFBundleTypeRole", among: Role.allCases.filter { $0 != .qlGenerator }, default: .viewer)
        type.rank = value(item, "LSHandlerRank", among: Rank.allCases, default: .default)
        for (text, position) in strings(item, "CFBundleURLSchemes", positions: true) {
            if let scheme = URLScheme(text) {
                type.schemes.append(scheme)
            } else if let scheme = URLScheme(urlString: text) {
                report(
                    .error, position,
                    "CFBundleURLSchemes: \"\(text)\" is a URL; write the scheme alone: \"\(scheme.name)\"")
            } else {
                report(
                    .error, position,
                    "CFBundleURLSchemes: \"\(text)\" is not a URL scheme (a letter, then letters, digits, \"+\", \"-\" or \".\")"
                )
            }
        }
        if item["CFBundleURLSchemes"] == nil {
            report(.error, item.location, "URL type \(type.name.map { "\"\($0)\" " } ?? "")has no CFBundleURLSchemes")
        }
        urlTypes.append(type)
    }

    /// The keys Apple documents for a `CFBundleDocumentTypes` entry.
    static let documentTypeKeys = [
        "CFBundleTypeName", "CFBundleTypeRole", "LSHandlerRank", "LSItemContentTypes", "CFBundleTypeExtensions",
        "CFBundleTypeMIMETypes", "CFBundleTypeOSTypes", "CFBundleTypeIconFile", "CFBundleTypeIconFiles",
        "CFBundleTypeIconSystemGenerated", "LSIsAppleDefaultForType", "LSTypeIsPackage", "NSDocumentClass",
        "NSExportableTypes", "NSUbiquitousDocumentUserActivityType", "LSSupportsOpeningDocumentsInPlace",
    ]
    /// The keys Apple documents for a `CFBundleURLTypes` entry (and `LSHandlerRank`, which Launch Services reads there too).
    static let urlTypeKeys = [
        "CFBundleURLName", "CFBundleURLSchemes", "CFBundleTypeRole", "CFBundleURLIconFile", "LSHandlerRank",
    ]

    /// A warning for each key that is not among `known` but is one edit or
    /// a case change away from one (`LSHandlerRanks`): a key that is
    /// misspelled is silently ignored by every reader.
    private mutating func warnAboutUnknownKeys(in item: PropertyList, known: [String], of array: String) {
        guard let entries = item.dictionaryValue else { return }
        for entry in entries where !known.contains(entry.key) {
            let key = entry.key
            if let near = Spelling.nearest(key, among: known, limit: 1).first {
                report(
                    .warning, entry.value.location,
                    "\(array) entry: unknown key \(key), which is ignored (did you mean \(near)?)")
            }
        }
    }

    /// The value of `key`, one of `cases` as Apple spells them. Another
    /// case is accepted with a warning; anything else is an error naming
    /// the accepted values, and `fallback` is used.
    private mutating func value<Value: RawRepresentable<String>>(
        _ item: PropertyList, _ key: String, among cases: [Value],
        default fallback: Value
    ) -> Value {
        guard let value = item[key] else { return fallback }
        let names = cases.map(\.rawValue)
        let accepted = names.dropLast().joined(separator: ", ") + " or " + names.last!
        guard let text = value.stringValue else {
            report(
                .error, value.location,
                "\(key) is \(value.kindPhrase), expected \(accepted); \(fallback.rawValue) is used")
            return fallback
        }
        if let exact = cases.first(where: { $0.rawValue == text }) { return exact }
        if let folded = cases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) {
            report(.warning, value.location, "\(key) \"\(text)\" is spelled \"\(folded.rawValue)\" by Apple")
            return folded
        }
        let near =
            Spelling.nearest(text, among: names, limit: 1)
            + names.filter { !text.isEmpty && $0.lowercased().hasPrefix(text.lowercased()) }
        report(
            .error, value.location,
            "\(key) \"\(text)\" is not one of \(accepted)"
                + (near.isEmpty ? "" : " (did you mean \(near[0])?)") + "; \(fallback.rawValue) is used")
        return fallback
    }

    private mutating func string(_ plist: PropertyList, _ key: String) -> String? {
        guard let value = plist[key] else { return nil }
        guard let text = value.stringValue else {
            report(.error, value.location, "\(key) is \(value.kindPhrase), expected a string")
            return nil
        }
        return text
    }

    private mutating func strings(_ plist: PropertyList, _ key: String) -> [String] {
        strings(plist, key, positions: true).map(\.0)
    }

    /// The strings of `key` (one string or an array of them), each with
    /// where it is written.
    private mutating func strings(_ plist: PropertyList, _ key: String, positions: Bool) -> [(String, SourcePosition)] {
        guard let value = plist[key] else { return [] }
        if let text = value.stringValue { return [(text, value.location)] }
        guard let items = value.arrayValue else {
            report(.error, value.location, "\(key) is \(value.kindPhrase), expected an array of strings")
            return []
        }
        var result: [(String, SourcePosition)] = []
        for item in items {
            if let text = item.stringValue, !text.isEmpty {
                result.append((text, item.location))
            } else {
                report(.error, item.location, "\(key) holds \(item.kindPhrase), expected non-empty strings")
            }
        }
        return result
    }

    private mutating func report(_ severity: Diagnostic.Severity, _ position: SourcePosition, _ message: String) {
        diagnostics.append(Diagnostic(severity, file: infoPlistPath, position: position, message))
    }
}

/// A problem in a source, with its file and position (defined in
/// `SystemBase`, so that every module reports problems the same way).
public typealias Diagnostic = SystemBase.Diagnostic

/// A handler source (bundle, desktop entry, list) that could not be used:
/// now a `Diagnostic` of severity `.error`, which every module shares.
@available(*, deprecated, renamed: "Diagnostic")
public typealias HandlerSourceError = Diagnostic

extension Diagnostic {
    /// A handler source that could not be used (an error).
    @available(*, deprecated, message: "use Diagnostic(.error, file:position:_:)")
    public init(file: String, position: SourcePosition = .unknown, message: String) {
        self.init(.error, file: file, position: position, message)
    }
}

extension AppBundle {
    /// Problems with the types `CFBundleDocumentTypes` names that need the
    /// registry to see: an `LSItemContentTypes` entry that no source
    /// declares (an error when a declared identifier is near it, which is
    /// most likely what was meant; else a warning, as another app may
    /// declare it), a malformed `dyn.` identifier, or a MIME type or
    /// extension written where an identifier belongs.
    public func contentTypeDiagnostics(registry: TypeRegistry) -> [Diagnostic] {
        var result: [Diagnostic] = []
        for type in documentTypes {
            for (name, position) in zip(type.contentTypes, type.contentTypePositions)
            where registry.type(identifier: name) == nil {
                let message: String
                var severity = Diagnostic.Severity.error
                if DynamicIdentifier.isDynamic(name) {
                    message = "\"\(name)\" is not a well-formed dynamic identifier"
                } else if TagClass.isMIMESyntax(name) {
                    let meant = registry.types(tag: name, tagClass: .mimeType).filter(\.isDeclared).map(\.identifier)
                    message =
                        "\"\(name)\" is a MIME type; LSItemContentTypes takes type identifiers"
                        + (meant.isEmpty
                            ? " (or list it in CFBundleTypeMIMETypes)" : " (\(meant.joined(separator: ", ")))")
                } else if let near = Optional(registry.suggestions(for: name)), !near.isEmpty {
                    message = "\"\(name)\" names no declared type (did you mean \(near.joined(separator: ", "))?)"
                } else {
                    severity = .warning
                    message =
                        "\"\(name)\" is declared by no source uti reads; the document type applies only where some app declares it"
                }
                result.append(
                    Diagnostic(severity, file: infoPlistPath, position: position, "LSItemContentTypes: " + message))
            }
        }
        return result
    }
}
