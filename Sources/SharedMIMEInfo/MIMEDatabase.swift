import CompiledData
import SystemBase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The shared-mime-info database of every `mime` directory in XDG order,
/// answering the questions GIO's content-type functions answer: the types a
/// file name implies, the type content implies, and which type is a
/// sub-class of which.
public final class MIMEDatabase: Sendable {
    /// What the layers say beyond names and content rules: the layers
    /// themselves, declarations, tree magic, comments. Built from the
    /// layers when they are read from their sources, or decoded on first
    /// use when the database comes from a compiled registry.
    struct Contents: Sendable {
        var layers: [MIMELayer]
        var diagnostics: [Diagnostic]
        var treeMagic: [TreeMagicRule] = []
        var declaredIn: [String: Int] = [:]
        var types: [String] = []

        init(layers: [MIMELayer], diagnostics: [Diagnostic]) {
            self.layers = layers
            self.diagnostics = diagnostics
            for layer in layers { treeMagic += layer.treeMagic }
            treeMagic.sort { $0.priority > $1.priority }
            var aliases: Set<String> = []
            var declaredIn: [String: Int] = [:]
            var types: [String] = []
            for (index, layer) in layers.enumerated() {
                aliases.formUnion(layer.aliases.keys)
                for type in layer.types where declaredIn[mimeKey(type)] == nil {
                    declaredIn[mimeKey(type)] = index
                    types.append(type)
                }
            }
            // An alias that is also declared as a type of its own stays a type.
            self.types = types.filter { !aliases.contains(mimeKey($0)) }
            self.declaredIn = declaredIn
        }
    }

    /// The globs of every layer, compiled for matching names.
    public let nameIndex: MIMENameIndex
    /// The magic rules, aliases and parents, compiled for typing content.
    private let contentIndex: LazyValue<MIMEContentIndex>
    private let contents: LazyValue<Contents>
    /// Whether the database has any layer (any `mime` folder was readable).
    public let isEmpty: Bool

    /// Highest precedence first (`$XDG_DATA_HOME/mime` before the system).
    public var layers: [MIMELayer] { contents.value.layers }
    /// Problems found while reading; unreadable sources are left out.
    public var diagnostics: [Diagnostic] { contents.value.diagnostics }
    /// Every type, canonical names, in order of first appearance.
    public var types: [String] { contents.value.types }
    /// How many leading bytes content sniffing reads (GIO caps it at 4096).
    public var sniffLength: Int { contentIndex.value.sniffLength }
    /// The tree magic rules of every layer, highest priority first.
    public var treeMagic: [TreeMagicRule] { contents.value.treeMagic }

    private var declaredIn: [String: Int] { contents.value.declaredIn }

    /// A database of `layers`, highest precedence first, with the problems found while reading them.
    public init(layers: [MIMELayer], diagnostics: [Diagnostic] = []) {
        nameIndex = MIMENameIndex(layers: layers)
        contentIndex = LazyValue(MIMEContentIndex(layers: layers))
        isEmpty = layers.isEmpty
        contents = LazyValue(Contents(layers: layers, diagnostics: diagnostics))
    }

    /// A database whose name index lives in a compiled image and whose
    /// layers are decoded from `encodedLayers` when first needed. Layers
    /// that cannot be decoded leave an empty database with an error.
    init(
        nameIndex: MIMENameIndex, contentIndex: MIMEContentIndex?, isEmpty: Bool,
        encodedLayers: @escaping @Sendable () -> UnsafeBufferPointer<UInt8>
    ) {
        self.nameIndex = nameIndex
        self.isEmpty = isEmpty
        let contents = LazyValue {
            do {
                let (layers, diagnostics) = try MIMELayerCoding.decode(encodedLayers())
                return Contents(layers: layers, diagnostics: diagnostics)
            } catch {
                return Contents(
                    layers: [],
                    diagnostics: [
                        Diagnostic(
                            .error, file: "compiled registry",
                            "MIME layers cannot be decoded: \(error)")
                    ])
            }
        }
        self.contents = contents
        self.contentIndex =
            contentIndex.map { LazyValue($0) } ?? LazyValue { MIMEContentIndex(layers: contents.value.layers) }
    }

    /// The layers and diagnostics as bytes, for a compiled registry.
    public func encodedLayers() -> [UInt8] {
        MIMELayerCoding.encode(layers, diagnostics)
    }

    /// Writes the name index into `writer` and returns its root word.
    public func writeNameIndex(into writer: inout ImageWriter) -> Int {
        MIMENameIndex.write(layers: layers, into: &writer)
    }

    /// Writes the content index (`MIMEContentIndex`) into `writer` and
    /// returns its root word.
    public func writeContentIndex(into writer: inout ImageWriter) -> Int {
        MIMEContentIndex.write(layers: layers, into: &writer)
    }

    /// Reads a database from a compiled image: the name index at
    /// `indexRoot`, the content index at `contentRoot`, and the encoded
    /// layers that `encodedLayers` returns, decoded only when something
    /// beyond names and content rules is asked.
    public static func compiled(
        view: ImageView, indexRoot: Int, contentRoot: Int, isEmpty: Bool,
        encodedLayers: @escaping @Sendable () -> UnsafeBufferPointer<UInt8>
    ) -> MIMEDatabase {
        MIMEDatabase(
            nameIndex: MIMENameIndex(view: view, root: indexRoot),
            contentIndex: MIMEContentIndex(view: view, root: contentRoot), isEmpty: isEmpty,
            encodedLayers: encodedLayers)
    }

    /// Reads a database from a compiled image without a content index: the
    /// name index at `indexRoot` and the encoded layers that
    /// `encodedLayers` returns, from which the content index is built when
    /// first needed.
    @available(*, deprecated, message: "use compiled(view:indexRoot:contentRoot:isEmpty:encodedLayers:)")
    public static func compiled(
        view: ImageView, indexRoot: Int, isEmpty: Bool,
        encodedLayers: @escaping @Sendable () -> UnsafeBufferPointer<UInt8>
    ) -> MIMEDatabase {
        MIMEDatabase(
            nameIndex: MIMENameIndex(view: view, root: indexRoot), contentIndex: nil, isEmpty: isEmpty,
            encodedLayers: encodedLayers)
    }

    /// The database of the `mime` folders the environment names.
    public static func load(_ searchPath: MIMESearchPath = .environment()) -> MIMEDatabase {
        var layers: [MIMELayer] = []
        var diagnostics: [Diagnostic] = []
        for directory in searchPath.directories {
            if let layer = MIMELayerLoader.load(directory: directory, diagnostics: &diagnostics) {
                layers.append(layer)
            }
        }
        return MIMEDatabase(layers: layers, diagnostics: diagnostics)
    }

    // MARK: Types and relations

    /// The canonical name of `type` (aliases resolved), as the database spells it.
    public func canonical(_ type: String) -> String {
        contentIndex.value.canonical(of: type) ?? type
    }

    /// True when some layer declares `type` (or it is an alias of one).
    public func isKnown(_ type: String) -> Bool {
        declaredIn[mimeKey(canonical(type))] != nil
    }

    /// The declared `sub-class-of` parents of `type`.
    public func parents(of type: String) -> [String] {
        contentIndex.value.parents(ofKey: mimeKey(canonical(type)))
    }

    /// GIO's `g_content_type_is_a`: equal after resolving aliases; any type
    /// of a media type is a sub-class of `media/*`; every `text/*` is
    /// `text/plain`; everything but `inode/*` is `application/octet-stream`;
    /// then the declared parents, transitively.
    public func isSubclass(_ type: String, of base: String) -> Bool {
        var seen: Set<String> = []
        return isSubclass(mimeKey(canonical(type)), of: mimeKey(canonical(base)), seen: &seen)
    }

    private func isSubclass(_ type: String, of base: String, seen: inout Set<String>) -> Bool {
        if type == base { return true }
        if base.hasSuffix("/*"), type.hasPrefix(base.dropLast()) { return true }
        if base == "text/plain" && type.hasPrefix("text/") { return true }
        if base == "application/octet-stream" && !type.hasPrefix("inode/") { return true }
        guard seen.insert(type).inserted else { return false }
        for parent in contentIndex.value.parents(ofKey: type)
        where isSubclass(mimeKey(canonical(parent)), of: base, seen: &seen) {
            return true
        }
        return false
    }

    /// The untranslated comment of `type` (`language` nil), or its
    /// translation into `language` (`de`, `pt_BR`; the language alone is
    /// tried after the region), nil when there is none.
    public func comment(for type: String, language: String? = nil) -> String? {
        let key = mimeKey(canonical(type))
        guard let index = declaredIn[key] else { return nil }
        let layer = layers[index]
        var comments = layer.comments[key]
        if comments == nil && layer.format == .cache {
            comments = MIMELayerLoader.perTypeComments(directory: layer.directory, type: canonical(type))
        }
        guard let comments else { return nil }
        guard let language, !language.isEmpty else { return comments[""] }
        let plain = language.split(separator: ".").first.map(String.init) ?? language
        if let text = comments[plain] { return text }
        if let base = plain.split(separator: "_").first, let text = comments[String(base)] { return text }
        return nil
    }

    /// The generic icon name of `type`, if one is declared.
    public func genericIcon(for type: String) -> String? {
        let key = mimeKey(canonical(type))
        for layer in layers { if let icon = layer.genericIcons[key] { return icon } }
        return nil
    }

    /// Where a type was declared (XML sources give a line).
    public func declaration(of type: String) -> MIMESourcePosition? {
        let key = mimeKey(canonical(type))
        guard let index = declaredIn[key] else { return nil }
        let layer = layers[index]
        return layer.declaredAt[key] ?? MIMESourcePosition(file: layer.directory + "/" + layer.format.rawValue)
    }

    // MARK: Names

    /// A type a file name implies, with its glob weight.
    public struct NameMatch: Sendable, Equatable {
        /// The type, as the glob spells it.
        public var mimeType: String
        /// The glob's weight, 0–100.
        public var weight: Int
    }

    /// The types `name` (a file name, not a path) matches, best first, at
    /// most 10: a literal name, else the longest matching suffix, else other
    /// patterns; case-insensitive globs are tried on the lower-cased name,
    /// then every glob on the name as given; sorted by weight.
    public func nameMatches(_ name: String) -> [NameMatch] {
        withNameMatches(name) { matches in
            matches.map { NameMatch(mimeType: nameIndex.name(Int($0 >> 32)), weight: Int($0 & 0xFFFF)) }
        }
    }

    /// Calls `body` with the matches of `name` as the name index packs them
    /// (name index << 32 | weight), best first, without allocating for
    /// names up to 1,024 bytes.
    public func withNameMatches<R>(_ name: String, _ body: (UnsafeBufferPointer<UInt64>) -> R) -> R {
        var name = name
        return name.withUTF8 { original in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: original.count) { lower in
                for i in 0..<original.count {
                    let b = original[i]
                    lower[i] = b.asciiLowercased
                }
                return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: MIMENameIndex.capacity) { out in
                    let n = nameIndex.matches(original, lower: UnsafeBufferPointer(lower), into: out.baseAddress!)
                    return body(UnsafeBufferPointer(rebasing: out[0..<n]))
                }
            }
        }
    }

    /// The best match of `name` as `withNameMatches` packs it, or nil:
    /// the same answer without a generic call across modules.
    public func bestNameMatch(_ name: String) -> UInt64? {
        withNameMatches(name) { $0.first }
    }

    /// The match of `name` when it has exactly one (GIO is then certain
    /// by the name), packed as `withNameMatches` packs it; nil otherwise.
    public func soleNameMatch(_ name: String) -> UInt64? {
        withNameMatches(name) { $0.count == 1 ? $0[0] : nil }
    }

    // MARK: Content

    /// A content match: the type and the priority of the rule that matched.
    public struct Sniff: Sendable, Equatable {
        /// The type the matching rule gives.
        public var mimeType: String
        /// The matching rule's priority, 1–100.
        public var priority: Int
    }

    /// The first matching magic rule of each layer; the highest priority
    /// wins, the higher-precedence layer on a tie. Nil when none matches.
    public func magicMatch(_ data: UnsafeRawBufferPointer) -> Sniff? {
        contentIndex.value.magicMatch(data)
    }

    /// What `g_content_type_guess` answers.
    public struct Guess: Sendable, Equatable {
        /// The type decided on; `application/octet-stream` when nothing gave one.
        public var mimeType: String
        /// True when neither the name nor the content settled it.
        public var uncertain: Bool
        /// The types the name matched, best first.
        public var nameMatches: [String]
        /// The type the content gave (magic, or the text/binary fallback).
        public var sniffed: String?
        /// Priority of the magic rule that matched; 0 for the fallback.
        public var sniffedPriority: Int
    }

    /// Combines a file name (may be nil) and its first bytes (nil when not
    /// read) as GIO does: a single name match is certain and needs no data;
    /// otherwise a magic match of priority 80 or more wins, then the first
    /// name match that is a sub-class of the sniffed type, then the best
    /// name match (uncertain); with no name match, the sniffed type.
    public func guess(name: String?, data: UnsafeRawBufferPointer?) -> Guess {
        if let name, name.hasSuffix("/") {
            return Guess(
                mimeType: "inode/directory", uncertain: false, nameMatches: [], sniffed: nil, sniffedPriority: 0)
        }
        let fileName = name.map(Self.baseName)
        let names = fileName.map { nameMatches($0).map(\.mimeType) } ?? []
        if names.count == 1 {
            return Guess(mimeType: names[0], uncertain: false, nameMatches: names, sniffed: nil, sniffedPriority: 0)
        }
        var sniffed: String?
        var priority = 0
        if let data { (sniffed, priority) = sniff(data, ofFileNamed: fileName != nil) }
        guard !names.isEmpty else {
            return Guess(
                mimeType: sniffed ?? "application/octet-stream", uncertain: sniffed == nil,
                nameMatches: names, sniffed: sniffed, sniffedPriority: priority)
        }
        if let sniffed {
            if priority >= 80 {
                return Guess(
                    mimeType: sniffed, uncertain: false, nameMatches: names, sniffed: sniffed, sniffedPriority: priority
                )
            }
            if let match = names.first(where: { isSubclass($0, of: sniffed) }) {
                return Guess(
                    mimeType: match, uncertain: false, nameMatches: names, sniffed: sniffed, sniffedPriority: priority)
            }
        }
        return Guess(
            mimeType: names[0], uncertain: true, nameMatches: names, sniffed: sniffed, sniffedPriority: priority)
    }

    /// Whether some magic rule names `type` (or the type it is an alias
    /// of): content can confirm that type, so content that matches no rule
    /// is not of it.
    public func hasMagic(for type: String) -> Bool {
        contentIndex.value.hasMagic(forKey: mimeKey(canonical(type)))
    }

    /// The type of content alone: empty data is `application/x-zerosize`;
    /// then magic; then text when the bytes look like text; else nil.
    public func sniff(_ data: UnsafeRawBufferPointer) -> (mimeType: String?, priority: Int) {
        if data.isEmpty { return ("application/x-zerosize", 100) }
        if let match = magicMatch(data) { return (match.mimeType, match.priority) }
        return (Self.looksLikeText(data) ? "text/plain" : nil, 0)
    }

    /// `sniff(_:)` of a file's content, as GIO types a file it has the
    /// name of: a desktop entry is trusted only by its name, so content
    /// that looks like one is `text/plain` (with the rule's priority).
    public func sniff(_ data: UnsafeRawBufferPointer, ofFileNamed named: Bool) -> (mimeType: String?, priority: Int) {
        let (type, priority) = sniff(data)
        return (named && type == "application/x-desktop" ? "text/plain" : type, priority)
    }

    /// No control characters but tab, line feed and carriage return in the
    /// first 128 bytes; or none anywhere but tab, line feed, form feed,
    /// carriage return and backspace (GIO's two tests; a vertical tab or an
    /// escape makes data binary, bytes from 128 up do not).
    public static func looksLikeText(_ data: UnsafeRawBufferPointer) -> Bool {
        if !data.prefix(128).contains(where: { $0 < 32 && $0 != 9 && $0 != 10 && $0 != 13 }) { return true }
        return !data.contains { ($0 < 32 || $0 == 127) && ![8, 9, 10, 12, 13].contains($0) }
    }

    static func baseName(_ path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }
}
