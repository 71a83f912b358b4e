import SystemBase

/// What one `mime` directory of the XDG data directories contributes:
/// its types, aliases, parents, globs and content rules.
public struct MIMELayer: Sendable {
    /// Where the data was read from.
    public enum Format: String, Sendable {
        /// The compiled, memory-mapped `mime.cache`.
        case cache = "mime.cache"
        /// The `packages/*.xml` sources.
        case packages = "packages"
    }

    /// The `mime` directory (`/usr/share/mime`).
    public var directory: String
    /// Whether the layer was read from `mime.cache` or from `packages/*.xml`.
    public var format: Format
    /// Every type the directory defines, as written.
    public var types: [String] = []
    /// Lower-cased alias -> canonical type.
    public var aliases: [String: String] = [:]
    /// Lower-cased type -> its `sub-class-of` parents, in order.
    public var parents: [String: [String]] = [:]
    /// Literal globs first, then suffix globs, then other patterns, each in source order.
    public var globs: [GlobRule] = []
    /// Sorted by priority, highest first; ties by type name.
    public var magic: [MagicRule] = []
    /// Tree magic (from `<treemagic>`, or the `treemagic` file beside a cache), sorted like `magic`.
    public var treeMagic: [TreeMagicRule] = []
    /// Lower-cased type -> language ("" for the untranslated text) -> comment.
    /// Empty for a cache, whose comments live in per-type XML files.
    public var comments: [String: [String: String]] = [:]
    /// Lower-cased type -> generic icon name.
    public var genericIcons: [String: String] = [:]
    /// Lower-cased types whose globs from lower-precedence directories are
    /// dropped (`glob-deleteall`).
    public var globsDeleted: Set<String> = []
    /// Lower-cased types whose magic from lower-precedence directories is
    /// dropped (`magic-deleteall`).
    public var magicDeleted: Set<String> = []
    /// Lower-cased type -> file and line that declared it (XML sources only).
    public var declaredAt: [String: MIMESourcePosition] = [:]

    /// An empty layer of `directory`, for a reader to fill.
    public init(directory: String, format: Format) {
        self.directory = directory
        self.format = format
    }

    /// Orders magic rules the way `update-mime-database` writes them:
    /// priority descending, then by type name.
    mutating func sortMagic() {
        magic.sort { a, b in
            if a.priority != b.priority { return a.priority > b.priority }
            return Array(a.mimeType.utf8).lexicographicallyPrecedes(Array(b.mimeType.utf8))
        }
        treeMagic.sort { a, b in
            if a.priority != b.priority { return a.priority > b.priority }
            return Array(a.mimeType.utf8).lexicographicallyPrecedes(Array(b.mimeType.utf8))
        }
    }

    /// Globs in lookup order: literals, suffixes, other patterns.
    mutating func orderGlobs() {
        globs =
            globs.filter { $0.kind == .literal } + globs.filter { $0.kind == .suffix }
            + globs.filter { $0.kind == .pattern }
    }
}

/// A file and line in a shared-mime-info source.
public struct MIMESourcePosition: Sendable, Equatable, CustomStringConvertible {
    /// The path of the source file.
    public var file: String
    /// 0 when unknown (binary files).
    public var line: Int

    /// Line `line` of `file` (0: unknown).
    public init(file: String, line: Int = 0) {
        self.file = file
        self.line = line
    }

    /// `file:line`, or the file alone when the line is unknown.
    public var description: String { line > 0 ? "\(file):\(line)" : file }
}

/// A problem in a source, with its file and position (defined in
/// `SystemBase`, so that every module reports problems the same way).
public typealias Diagnostic = SystemBase.Diagnostic
/// Where something stands in a source file.
public typealias SourcePosition = SystemBase.SourcePosition

/// A problem in a shared-mime-info or mime.types source: now `Diagnostic`,
/// which every module shares.
@available(*, deprecated, renamed: "Diagnostic")
public typealias MIMEDiagnostic = Diagnostic

extension Diagnostic {
    /// A problem at a shared-mime-info position (line 0: unknown).
    @available(*, deprecated, message: "use init(_:file:position:_:)")
    public init(_ severity: Severity, _ position: MIMESourcePosition, _ message: String) {
        self.init(severity, file: position.file, position: SourcePosition(line: position.line), message)
    }
}

/// MIME type names compare case-insensitively; keys are lower-cased ASCII.
@inline(__always)
func mimeKey(_ type: String) -> String { type.asciiLowercased }

/// True for `media/subtype` with both parts non-empty and no spaces.
func isWellFormedMIMEType(_ type: String) -> Bool {
    let bytes = Array(type.utf8)
    guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")), slash > 0, slash + 1 < bytes.count else { return false }
    if bytes[(slash + 1)...].contains(UInt8(ascii: "/")) { return false }
    return !bytes.contains { $0 <= 32 || $0 == 127 }
}
