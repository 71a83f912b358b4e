import PropertyLists
import SystemBase

/// Turns a property list (a declarations file or a whole app `Info.plist`)
/// into type declarations, reporting every problem with its place.
///
/// A declaration without a usable identifier is skipped; a malformed field is
/// reported and ignored, and the rest of the declaration is kept.
public struct DeclarationReader: Sendable {
    /// The property list key whose array holds exported declarations.
    public static let exportedKey = "UTExportedTypeDeclarations"
    /// The property list key whose array holds imported declarations.
    public static let importedKey = "UTImportedTypeDeclarations"

    /// `UTType…` keys that are understood or deliberately ignored.
    static let knownKeys: Set<String> = [
        "UTTypeIdentifier", "UTTypeConformsTo", "UTTypeTagSpecification", "UTTypeDescription",
        "UTTypeReferenceURL", "UTTypeVersion", "UTTypeIconFile", "UTTypeIconFiles", "UTTypeIconName",
        "UTTypeIcons", "UTTypeIsWildcard", "UTTypeGlyphName", "UTTypeSymbolName",
    ]

    /// The declarations read, in file order (those without a usable identifier
    /// left out).
    public private(set) var declarations: [TypeDeclaration] = []
    /// Every problem found, in the order found, each with its file and
    /// position; `fileError` too when the file could not be read.
    public private(set) var diagnostics: [Diagnostic] = []
    /// Set when the file itself could not be read or parsed.
    public private(set) var fileError: Diagnostic?
    private let file: String
    private let source: DeclarationOrigin.Source

    /// Reads the declarations in `plist`, which was read from `file`.
    public init(_ plist: PropertyList, file: String, source: DeclarationOrigin.Source) {
        self.file = file
        self.source = source
        guard let root = plist.dictionaryValue else {
            report(.error, plist.location, "the top level is \(plist.kindPhrase), expected a dictionary")
            return
        }
        var found = false
        for entry in root {
            let kind: TypeDeclaration.Kind
            switch entry.key {
            case Self.exportedKey: kind = .exported
            case Self.importedKey: kind = .imported
            default: continue
            }
            found = true
            guard let items = entry.value.arrayValue else {
                report(.error, entry.value.location, "\(entry.key) is \(entry.value.kindPhrase), expected an array")
                continue
            }
            for item in items { read(item, kind: kind) }
        }
        // An app's Info.plist need not declare types; any other file is read for them alone.
        if !found && plist["CFBundleIdentifier"] == nil {
            report(.warning, plist.location, "declares no types (no \(Self.exportedKey) or \(Self.importedKey))")
        }
    }

    /// Reads and parses the file at `path`.
    public static func read(
        path: String, source: DeclarationOrigin.Source,
        limits: PropertyListLimits = .standard
    ) -> DeclarationReader {
        do {
            let bytes = try FileContents.read(path, limit: limits.maximumBytes)
            let plist = try PropertyList.parse(bytes, limits: limits)
            return DeclarationReader(plist, file: path, source: source)
        } catch let error as FileContents.ReadError {
            return DeclarationReader(failure: Diagnostic(.error, file: path, error.reason), file: path, source: source)
        } catch let error as PropertyListError {
            return DeclarationReader(
                failure: Diagnostic(
                    .error, file: path, position: error.position,
                    "malformed property list: \(error.message)"),
                file: path, source: source)
        } catch {
            return DeclarationReader(failure: Diagnostic(.error, file: path, "\(error)"), file: path, source: source)
        }
    }

    private init(failure: Diagnostic, file: String, source: DeclarationOrigin.Source) {
        self.file = file
        self.source = source
        diagnostics = [failure]
        fileError = failure
    }

    private mutating func report(_ severity: Diagnostic.Severity, _ position: SourcePosition, _ message: String) {
        diagnostics.append(Diagnostic(severity, file: file, position: position, message))
    }

    private mutating func read(_ item: PropertyList, kind: TypeDeclaration.Kind) {
        guard let fields = item.dictionaryValue else {
            report(.error, item.location, "a type declaration is \(item.kindPhrase), expected a dictionary")
            return
        }
        guard let identifierValue = item["UTTypeIdentifier"] else {
            report(.error, item.location, "type declaration has no UTTypeIdentifier")
            return
        }
        guard let identifier = identifierValue.stringValue else {
            report(
                .error, identifierValue.location, "UTTypeIdentifier is \(identifierValue.kindPhrase), expected a string"
            )
            return
        }
        if let problem = IdentifierSyntax.problem(with: identifier) {
            report(.error, identifierValue.location, "invalid identifier \"\(identifier)\": \(problem)")
            return
        }
        var declaration = TypeDeclaration(
            identifier: identifier, kind: kind,
            origin: DeclarationOrigin(source: source, file: file, position: item.location))

        for field in fields {
            let value = field.value
            switch field.key {
            case "UTTypeIdentifier":
                break
            case "UTTypeConformsTo":
                guard let parents = strings(value, field.key) else { break }
                for parent in parents {
                    if let problem = IdentifierSyntax.problem(with: parent) {
                        report(
                            .error, value.location, "\(identifier): invalid parent identifier \"\(parent)\": \(problem)"
                        )
                    } else {
                        declaration.conformsTo.append(parent)
                    }
                }
            case "UTTypeTagSpecification":
                declaration.tagSpecification = tagSpecification(value, identifier: identifier)
            case "UTTypeDescription":
                declaration.description = string(value, field.key)
            case "UTTypeReferenceURL":
                declaration.referenceURL = string(value, field.key)
            case "UTTypeVersion":
                switch value.value {
                case .string(let s): declaration.version = s
                case .integer(let n): declaration.version = String(n)
                case .real(let r): declaration.version = String(r)
                default:
                    report(.error, value.location, "UTTypeVersion is \(value.kindPhrase), expected a string or number")
                }
            case "UTTypeIconName", "UTTypeIconFile":
                if let name = string(value, field.key), declaration.iconName == nil { declaration.iconName = name }
            case "UTTypeIcons":
                if let name = value["UTTypeIconName"]?.stringValue ?? value["UTTypeIconFile"]?.stringValue
                    ?? value["UTTypeSymbolName"]?.stringValue
                {
                    declaration.iconName = declaration.iconName ?? name
                }
            default:
                if field.key.hasPrefix("UTType") && !Self.knownKeys.contains(field.key) {
                    report(.warning, value.location, "\(identifier): unknown key \(field.key)")
                }
            }
        }
        declarations.append(declaration)
    }

    private mutating func string(_ value: PropertyList, _ key: String) -> String? {
        guard let s = value.stringValue else {
            report(.error, value.location, "\(key) is \(value.kindPhrase), expected a string")
            return nil
        }
        return s
    }

    /// A string or an array of strings, as Apple's keys allow.
    private mutating func strings(_ value: PropertyList, _ key: String) -> [String]? {
        switch value.value {
        case .string(let s):
            return [s]
        case .array(let items):
            var result: [String] = []
            for item in items {
                guard let s = item.stringValue else {
                    report(.error, item.location, "\(key) holds \(item.kindPhrase), expected strings")
                    continue
                }
                result.append(s)
            }
            return result
        default:
            report(.error, value.location, "\(key) is \(value.kindPhrase), expected a string or an array of strings")
            return nil
        }
    }

    private mutating func tagSpecification(_ value: PropertyList, identifier: String) -> [TagSpecification] {
        guard let entries = value.dictionaryValue else {
            report(
                .error, value.location,
                "\(identifier): UTTypeTagSpecification is \(value.kindPhrase), expected a dictionary")
            return []
        }
        var result: [TagSpecification] = []
        for entry in entries {
            let tagClass = TagClass(entry.key)
            guard let raw = strings(entry.value, "\(identifier): tag class \(entry.key)") else { continue }
            var tags: [String] = []
            for tag in raw {
                var tag = tag
                if tag.isEmpty {
                    report(.warning, entry.value.location, "\(identifier): empty \(entry.key) tag ignored")
                    continue
                }
                if tagClass == .filenameExtension && tag.hasPrefix(".") {
                    report(
                        .warning, entry.value.location,
                        "\(identifier): extension \"\(tag)\" has a leading dot; read as \"\(tag.dropFirst())\"")
                    tag.removeFirst()
                }
                if tagClass == .mimeType && !tag.contains("/") {
                    report(.warning, entry.value.location, "\(identifier): MIME type \"\(tag)\" has no \"/\"")
                }
                tags.append(tag)
            }
            result.append(TagSpecification(tagClass, tags))
        }
        return result
    }
}

/// The syntax of type identifiers: reverse-DNS labels separated by single
/// dots, of the characters Apple allows: the ASCII letters, digits and
/// hyphen, and every Unicode character above U+007F (`com.example.café`),
/// except control and format characters (C1 controls, bidirectional
/// overrides, zero-width characters), separators (U+00A0, U+2028),
/// private-use and unassigned code points, which would make an identifier
/// look like another one, or break a line, when printed.
public enum IdentifierSyntax {
    /// Why `identifier` is not a valid type identifier to declare, or nil.
    public static func problem(with identifier: String) -> String? {
        if identifier.isEmpty { return "it is empty" }
        if identifier.utf8.count > 255 { return "it is longer than 255 bytes" }
        for scalar in identifier.unicodeScalars {
            switch scalar.value {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E: continue
            case 0..<0x80: return "only ASCII letters and digits, \"-\", \".\" and characters above U+007F are allowed"
            default:
                let invisible: [Unicode.GeneralCategory] = [
                    .control, .format, .lineSeparator, .paragraphSeparator, .spaceSeparator, .privateUse,
                    .unassigned, .surrogate,
                ]
                if invisible.contains(scalar.properties.generalCategory) {
                    let code = String(scalar.value, radix: 16, uppercase: true)
                    let number = String(repeating: "0", count: max(0, 4 - code.count)) + code
                    return "control, format, separator, private-use and unassigned characters are not allowed "
                        + "(U+\(number))"
                }
            }
        }
        if identifier.hasPrefix(".") || identifier.hasSuffix(".") || identifier.contains("..") {
            return "empty label between dots"
        }
        if identifier.lowercased().hasPrefix("dyn.") { return "the dyn. prefix is reserved for dynamic identifiers" }
        return nil
    }
}
