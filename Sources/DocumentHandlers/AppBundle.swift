#if canImport(Glibc)
import Glibc
#endif
import PropertyLists
import UniformTypes

/// An application bundle: a folder holding `Contents/Info.plist` (or
/// `Info.plist`) whose property list names the app and the documents it
/// opens, and may declare types of its own.
public struct AppBundle: Sendable {
    /// How an app uses a document type (`CFBundleTypeRole`).
    public enum Role: String, Sendable, CaseIterable {
        case editor = "Editor", viewer = "Viewer", shell = "Shell", none = "None"
    }

    /// How strongly an app claims a document type (`LSHandlerRank`), best first.
    public enum Rank: String, Sendable, CaseIterable, Comparable {
        case owner = "Owner", `default` = "Default", alternate = "Alternate", none = "None"
        var order: Int { Self.allCases.firstIndex(of: self)! }
        public static func < (a: Rank, b: Rank) -> Bool { a.order < b.order }
    }

    /// One `CFBundleDocumentTypes` entry.
    public struct DocumentType: Sendable {
        public var name: String?
        /// `LSItemContentTypes`; when present, the legacy keys are ignored,
        /// as on macOS.
        public var contentTypes: [String] = []
        public var extensions: [String] = []
        public var mimeTypes: [String] = []
        public var osTypes: [String] = []
        public var role: Role = .viewer
        public var rank: Rank = .default
        public var position: SourcePosition
    }

    public let path: String
    public let infoPlistPath: String
    public var identifier: String = ""
    public var name: String = ""
    public var executable: String?
    public var documentTypes: [DocumentType] = []
    /// The bundle's `UTExportedTypeDeclarations` / `UTImportedTypeDeclarations`.
    public var declarations: DeclarationReader?
    public private(set) var diagnostics: [Diagnostic] = []

    /// The property list of the bundle at `path`, or nil when the folder is
    /// not a bundle.
    public static func infoPlist(in path: String) -> String? {
        ["\(path)/Contents/Info.plist", "\(path)/Info.plist"].first(where: PathKind.isRegularFile)
    }

    /// Reads the bundle at `path`. Throws when its property list cannot be
    /// read or lacks what every bundle needs (`CFBundleIdentifier`).
    public init(path: String) throws(HandlerSourceError) {
        self.path = path
        guard let plistPath = Self.infoPlist(in: path) else {
            throw HandlerSourceError(file: path, message: "not an app bundle (no Contents/Info.plist or Info.plist)")
        }
        infoPlistPath = plistPath
        let plist: PropertyList
        do {
            plist = try PropertyList.parse(try FileContents.read(plistPath, limit: PropertyListLimits.standard.maximumBytes))
        } catch let error as FileContents.ReadError {
            throw HandlerSourceError(file: plistPath, message: error.reason)
        } catch let error as PropertyListError {
            throw HandlerSourceError(file: plistPath, position: error.position, message: "malformed property list: \(error.message)")
        } catch {
            throw HandlerSourceError(file: plistPath, message: "\(error)")
        }
        guard plist.dictionaryValue != nil else {
            throw HandlerSourceError(file: plistPath, position: plist.location, message: "the top level is \(plist.kindPhrase), expected a dictionary")
        }
        guard let id = plist["CFBundleIdentifier"] else {
            throw HandlerSourceError(file: plistPath, position: plist.location, message: "no CFBundleIdentifier")
        }
        guard let idText = id.stringValue, !idText.isEmpty, !idText.contains(where: { $0 == "/" || $0 == " " || $0 == ";" }) else {
            throw HandlerSourceError(file: plistPath, position: id.location,
                                     message: "CFBundleIdentifier must be a non-empty string without spaces, \"/\" or \";\"")
        }
        identifier = idText
        let folderName = String(path.unicodeScalars.split(separator: "/").last.map(String.init) ?? path)
        name = string(plist, "CFBundleDisplayName") ?? string(plist, "CFBundleName")
            ?? (folderName.hasSuffix(".app") ? String(folderName.dropLast(4)) : folderName)
        executable = string(plist, "CFBundleExecutable")
        if let types = plist["CFBundleDocumentTypes"] {
            if let items = types.arrayValue {
                for item in items { readDocumentType(item) }
            } else {
                report(.error, types.location, "CFBundleDocumentTypes is \(types.kindPhrase), expected an array")
            }
        }
        if plist[DeclarationReader.exportedKey] != nil || plist[DeclarationReader.importedKey] != nil {
            let reader = DeclarationReader(plist, file: plistPath, source: .application)
            declarations = reader
        }
    }

    /// The program a document is opened with: `Contents/MacOS/NAME`,
    /// `Contents/Linux/NAME` or `NAME` in the bundle, whichever exists.
    public var executablePath: String? {
        // Bytes, not Characters: a combining mark after a / must not hide it.
        let slash = UInt8(ascii: "/")
        guard let executable, !executable.isEmpty, !executable.utf8.contains(slash) || executable.utf8.first == slash else { return nil }
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
        type.name = string(item, "CFBundleTypeName")
        type.contentTypes = strings(item, "LSItemContentTypes")
        type.extensions = strings(item, "CFBundleTypeExtensions").map { $0.hasPrefix(".") ? String($0.dropFirst()) : $0 }
        type.mimeTypes = strings(item, "CFBundleTypeMIMETypes")
        type.osTypes = strings(item, "CFBundleTypeOSTypes")
        if let value = item["CFBundleTypeRole"] {
            if let text = value.stringValue, let role = Role.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) {
                type.role = role
            } else {
                report(.error, value.location, "CFBundleTypeRole must be Editor, Viewer, Shell or None; Viewer is used")
            }
        }
        if let value = item["LSHandlerRank"] {
            if let text = value.stringValue, let rank = Rank.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) {
                type.rank = rank
            } else {
                report(.error, value.location, "LSHandlerRank must be Owner, Default, Alternate or None; Default is used")
            }
        }
        if type.contentTypes.isEmpty && type.extensions.isEmpty && type.mimeTypes.isEmpty && type.osTypes.isEmpty {
            report(.warning, item.location, "document type \(type.name.map { "\"\($0)\" " } ?? "")names no types (LSItemContentTypes or the legacy keys)")
        } else if !type.contentTypes.isEmpty && !(type.extensions.isEmpty && type.mimeTypes.isEmpty && type.osTypes.isEmpty) {
            report(.note, item.location, "LSItemContentTypes is given, so CFBundleTypeExtensions, CFBundleTypeMIMETypes and CFBundleTypeOSTypes are ignored")
        }
        documentTypes.append(type)
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
        guard let value = plist[key] else { return [] }
        if let text = value.stringValue { return [text] }
        guard let items = value.arrayValue else {
            report(.error, value.location, "\(key) is \(value.kindPhrase), expected an array of strings")
            return []
        }
        var result: [String] = []
        for item in items {
            if let text = item.stringValue, !text.isEmpty { result.append(text) } else {
                report(.error, item.location, "\(key) holds \(item.kindPhrase), expected non-empty strings")
            }
        }
        return result
    }

    private mutating func report(_ severity: Diagnostic.Severity, _ position: SourcePosition, _ message: String) {
        diagnostics.append(Diagnostic(severity, file: infoPlistPath, position: position, message))
    }
}

/// A handler source (bundle, desktop entry, list) that could not be used.
public struct HandlerSourceError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var position: SourcePosition = .unknown
    public var message: String

    public init(file: String, position: SourcePosition = .unknown, message: String) {
        self.file = file
        self.position = position
        self.message = message
    }

    public var description: String { Diagnostic(.error, file: file, position: position, message).description }
}
