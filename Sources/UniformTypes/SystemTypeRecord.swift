import PropertyLists
import SharedMIMEInfo
import SystemBase

/// A MIME type as the system's type data describes it (shared-mime-info or a
/// `mime.types` file). The registry builder either adds its tags to the
/// declared type that already claims the MIME type or declares a type for it.
public struct SystemTypeRecord: Sendable, Equatable {
    /// The canonical MIME type.
    public var mimeType: String
    /// Other names of the same type.
    public var aliases: [String]
    /// `sub-class-of` parents, as MIME types.
    public var parents: [String]
    /// Filename extensions from `*.ext` globs (not those with capitals that
    /// only match case-sensitively) or `mime.types`.
    public var extensions: [String]
    /// The untranslated comment, when the source carries it.
    public var description: String?
    /// shared-mime-info's `generic-icon` name (`package-x-generic`), when declared.
    public var genericIcon: String?
    /// The file and line that define the type.
    public var origin: DeclarationOrigin

    /// A record of `mimeType` defined at `origin`; fields not given are empty
    /// or nil.
    public init(
        mimeType: String, aliases: [String] = [], parents: [String] = [], extensions: [String] = [],
        description: String? = nil, genericIcon: String? = nil, origin: DeclarationOrigin
    ) {
        self.mimeType = mimeType
        self.aliases = aliases
        self.parents = parents
        self.extensions = extensions
        self.description = description
        self.genericIcon = genericIcon
        self.origin = origin
    }

    /// One record per type of `database`, in the database's order.
    public static func records(from database: MIMEDatabase) -> [SystemTypeRecord] {
        var aliases: [String: [String]] = [:]
        var extensions: [String: [String]] = [:]
        var globsDeleted: Set<String> = []
        for layer in database.layers {
            for (alias, canonical) in layer.aliases {
                aliases[TagClass.mimeType.normalize(canonical), default: []].append(alias)
            }
            for glob in layer.globs {
                let key = TagClass.mimeType.normalize(glob.mimeType)
                // `*.C` (C++) is not the extension "c"; `*.c` is.
                guard !globsDeleted.contains(key), let ext = glob.filenameExtension,
                    !glob.caseSensitive || ext == TagClass.filenameExtension.normalize(ext)
                else { continue }
                if !(extensions[key]?.contains(ext) ?? false) { extensions[key, default: []].append(ext) }
            }
            globsDeleted.formUnion(layer.globsDeleted)
        }
        return database.types.map { type in
            let key = TagClass.mimeType.normalize(type)
            let position = database.declaration(of: type)
            let origin = DeclarationOrigin(
                source: .sharedMIMEInfo, file: position?.file ?? "shared-mime-info",
                position: (position?.line ?? 0) > 0 ? .line(position!.line) : .unknown)
            let comment = database.layers.lazy.compactMap { $0.comments[key]?[""] }.first
            return SystemTypeRecord(
                mimeType: type, aliases: Array(Set(aliases[key] ?? [])).sorted(),
                parents: database.parents(of: type), extensions: extensions[key] ?? [],
                description: comment, genericIcon: database.genericIcon(for: type), origin: origin)
        }
    }
}

/// Reads `mime.types` files (`/etc/mime.types`, `~/.mime.types`): lines of
/// a MIME type followed by its extensions; `#` starts a comment line.
public enum MIMETypesFile {
    /// The files to read: `UTI_MIME_TYPES` (a `:` list; empty for none) when
    /// set, else `/etc/mime.types` and `$HOME/.mime.types`.
    public static func paths(environment: [String: String] = ProcessEnvironment.current) -> [String] {
        if let list = EnvironmentVariable.mimeTypes.value(in: environment) {
            return list.split(separator: ":").map(String.init)
        }
        var result = ["/etc/mime.types"]
        if let home = EnvironmentVariable.home.value(in: environment), home.hasPrefix("/") {
            result.append(home + "/.mime.types")
        }
        return result
    }

    /// The largest file `read(path:)` accepts, in bytes (8 MiB); a larger one
    /// gives an error instead of records.
    public static let sizeLimit = 8 << 20

    /// The records of one file; problems carry the file and line.
    public static func read(path: String) -> (records: [SystemTypeRecord], diagnostics: [Diagnostic]) {
        let bytes: [UInt8]
        do {
            bytes = try FileContents.read(path, limit: sizeLimit)
        } catch {
            return ([], [Diagnostic(.error, file: path, error.reason)])
        }
        return parse(bytes, path: path)
    }

    /// The records of a file's content `bytes`; problems name `path` and
    /// their line.
    ///
    /// One record per MIME type, in order of first appearance; a type listed
    /// again gains that line's extensions. Lines that are not UTF-8 or do not
    /// start with a MIME type, and fields that are not extensions, are skipped
    /// with a warning.
    public static func parse(_ bytes: [UInt8], path: String) -> (records: [SystemTypeRecord], diagnostics: [Diagnostic])
    {
        var records: [SystemTypeRecord] = []
        var slot: [String: Int] = [:]
        var diagnostics: [Diagnostic] = []
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            guard let text = String(validating: line, as: UTF8.self) else {
                diagnostics.append(
                    Diagnostic(.warning, file: path, position: .line(number), "line is not valid UTF-8; skipped"))
                continue
            }
            // Unicode scalars, not Characters: a combining mark after a blank
            // or a / must not hide it.
            let fields = text.unicodeScalars.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(
                String.init)
            guard let type = fields.first, type.unicodeScalars.first != "#" else { continue }
            let parts = type.unicodeScalars.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                diagnostics.append(
                    Diagnostic(
                        .warning, file: path, position: .line(number),
                        "\(type.debugDescription) is not a MIME type; line skipped"))
                continue
            }
            var extensions: [String] = []
            for field in fields.dropFirst() {
                if field.unicodeScalars.first == "#" { break }
                let ext = TagClass.filenameExtension.normalize(field)
                if ext.isEmpty || ext.unicodeScalars.contains("/") {
                    diagnostics.append(
                        Diagnostic(
                            .warning, file: path, position: .line(number),
                            "\(field.debugDescription) is not a filename extension; skipped"))
                } else if !extensions.contains(ext) {
                    extensions.append(ext)
                }
            }
            let key = TagClass.mimeType.normalize(type)
            if let existing = slot[key] {
                for ext in extensions where !records[existing].extensions.contains(ext) {
                    records[existing].extensions.append(ext)
                }
            } else {
                slot[key] = records.count
                records.append(
                    SystemTypeRecord(
                        mimeType: type, extensions: extensions,
                        origin: DeclarationOrigin(source: .mimeTypes, file: path, position: .line(number))))
            }
        }
        return (records, diagnostics)
    }
}
