import CompiledData

/// The globs of every layer of a database, compiled into an image and
/// matched in place: literal names and suffixes through hash tables, other
/// patterns through a byte matcher behind cheap prefix and last-byte tests.
/// Answers exactly what the layers' globs say, in shared-mime-info's order,
/// without allocating.
public struct MIMENameIndex: Sendable {
    /// The image kind of a standalone index (`MIME`); a registry image
    /// carries the index inside its own layout.
    static let imageKind = ImageKind(tag: 0x4D49_4D45, layoutVersion: 1)

    /// The index's root words; the layer entries follow them.
    enum Root {
        static let layerCount = 0, nameCount = 1, namesStart = 2, layers = 3
    }

    /// The words of one layer entry.
    enum Layer {
        static let literalTable = 0, suffixTable = 1, longestSuffix = 2, firstByteBitmap = 3
        static let patterns = 4, patternCount = 5, size = 6
    }

    /// The words of one glob pattern that is neither a literal nor a suffix.
    enum Pattern {
        static let pattern = 0, nameIndex = 2, weightAndFlags = 3, literalPrefixLength = 4, lastByteBitmap = 5, size = 6
    }

    /// The layout these names give, for the registry's layout check.
    public static var layoutDescription: String {
        "root: layerCount \(Root.layerCount), nameCount \(Root.nameCount), namesStart \(Root.namesStart), layers \(Root.layers); "
            + "layer: literals \(Layer.literalTable), suffixes \(Layer.suffixTable), longest \(Layer.longestSuffix), "
            + "first bytes \(Layer.firstByteBitmap), patterns \(Layer.patterns), count \(Layer.patternCount), size \(Layer.size); "
            + "pattern: text \(Pattern.pattern), name \(Pattern.nameIndex), weight \(Pattern.weightAndFlags), "
            + "prefix \(Pattern.literalPrefixLength), last bytes \(Pattern.lastByteBitmap), size \(Pattern.size); "
            + "match: name index, weight | case-sensitive bit 31"
    }
    /// At most this many matches are kept for one name, as in xdgmime.
    public static let capacity = 10

    let view: ImageView
    let root: Int
    /// How many layers the index holds globs of.
    public let layerCount: Int
    /// How many MIME type names the entries refer to.
    public let nameCount: Int
    private let namesStart: Int

    /// Reads an index written by `write(layers:into:)` at `root` of `view`.
    public init(view: ImageView, root: Int) {
        self.view = view
        self.root = root
        layerCount = view.count(at: root + Root.layerCount, entryWords: Layer.size, from: root + Root.layers)
        namesStart = view.int(root + Root.namesStart)
        nameCount = view.count(at: root + Root.nameCount, entryWords: 2, from: namesStart)
    }

    /// An index of `layers` in an image of its own.
    public init(layers: [MIMELayer]) {
        var writer = ImageWriter()
        let root = Self.write(layers: layers, into: &writer)
        // An image just written is well formed.
        let view = try! ImageView(writer.image(kind: Self.imageKind, root: root), kind: Self.imageKind)
        self.init(view: view, root: view.root)
    }

    /// The MIME type an entry names, as its glob spelled it.
    public func name(_ index: Int) -> String {
        view.string(at: namesStart + index * 2) ?? ""
    }

    // MARK: Writing

    /// Writes the globs of `layers` (highest precedence first; a layer's
    /// `glob-deleteall` hides the globs of the layers after it) and returns
    /// the index's root word.
    public static func write(layers: [MIMELayer], into w: inout ImageWriter) -> Int {
        var names: [String] = []
        var nameIndex: [String: Int] = [:]
        func entry(_ glob: GlobRule) -> (UInt32, UInt32) {
            let index =
                nameIndex[glob.mimeType]
                ?? {
                    names.append(glob.mimeType)
                    nameIndex[glob.mimeType] = names.count - 1
                    return names.count - 1
                }()
            return (
                UInt32(index), UInt32(clamping: max(0, min(glob.weight, 0xFFFF))) | (glob.caseSensitive ? 1 << 31 : 0)
            )
        }
        var deleted: Set<String> = []
        var layerWords: [[UInt32]] = []
        for layer in layers {
            let globs = layer.globs.filter { !deleted.contains(mimeKey($0.mimeType)) }
            deleted.formUnion(layer.globsDeleted)

            var literals: [(key: [UInt8], value: UInt32)] = []
            var seenLiterals: Set<[UInt8]> = []
            var suffixes: [[UInt8]: [(UInt32, UInt32)]] = [:]
            var suffixOrder: [[UInt8]] = []
            var patterns: [(GlobRule, (UInt32, UInt32))] = []
            for glob in globs {
                let e = entry(glob)
                switch glob.kind {
                case .literal:
                    let key = Array(glob.pattern.utf8)
                    guard seenLiterals.insert(key).inserted else { continue }
                    let at = w.append(e.0)
                    w.append(e.1)
                    literals.append((key, UInt32(at)))
                case .suffix:
                    let key = Array(glob.pattern.utf8.dropFirst())
                    if suffixes[key] == nil { suffixOrder.append(key) }
                    suffixes[key, default: []].append(e)
                case .pattern:
                    patterns.append((glob, e))
                }
            }
            let literalTable = w.appendHashTable(literals)
            var suffixEntries: [(key: [UInt8], value: UInt32)] = []
            var firstBytes = [UInt32](repeating: 0, count: 8)
            var longest = 0
            for key in suffixOrder {
                let list = suffixes[key]!
                let at = w.append(list.count)
                for (a, b) in list {
                    w.append(a)
                    w.append(b)
                }
                suffixEntries.append((key, UInt32(at)))
                longest = max(longest, key.count)
                firstBytes[Int(key[0]) >> 5] |= 1 << UInt32(key[0] & 31)
            }
            let suffixTable = w.appendHashTable(suffixEntries, reversedKeys: true)
            let bitmap = w.wordCount
            for b in firstBytes { w.append(b) }
            let patternsStart = w.wordCount
            var bitmaps: [Int: [UInt32]] = [:]
            for (glob, e) in patterns {
                let entry = w.reserve(Pattern.size)
                w.setString(glob.pattern, at: entry + Pattern.pattern)
                w[entry + Pattern.nameIndex] = e.0
                w[entry + Pattern.weightAndFlags] = e.1
                let bytes = Array(glob.pattern.utf8)
                bytes.withUnsafeBufferPointer { p in
                    w[entry + Pattern.literalPrefixLength] = UInt32(GlobMatcher.literalPrefixLength(p))
                    w[entry + Pattern.lastByteBitmap] = ImageWriter.none
                    bitmaps[entry + Pattern.lastByteBitmap] = GlobMatcher.lastBytes(p)
                }
            }
            for (slot, bits) in bitmaps.sorted(by: { $0.key < $1.key }) {
                w[slot] = UInt32(w.wordCount)
                for b in bits { w.append(b) }
            }
            var entry = [UInt32](repeating: 0, count: Layer.size)
            entry[Layer.literalTable] = UInt32(literalTable)
            entry[Layer.suffixTable] = UInt32(suffixTable)
            entry[Layer.longestSuffix] = UInt32(longest)
            entry[Layer.firstByteBitmap] = UInt32(bitmap)
            entry[Layer.patterns] = UInt32(patternsStart)
            entry[Layer.patternCount] = UInt32(patterns.count)
            layerWords.append(entry)
        }
        let namesStart = w.wordCount
        for name in names { w.appendString(name) }
        let root = w.reserve(Root.layers)
        w[root + Root.layerCount] = UInt32(layers.count)
        w[root + Root.nameCount] = UInt32(names.count)
        w[root + Root.namesStart] = UInt32(namesStart)
        for words in layerWords { for x in words { w.append(x) } }
        return root
    }

    // MARK: Matching

    @inline(__always) private func layerWord(_ layer: Int, _ field: Int) -> Int {
        view.int(root + Root.layers + layer * Layer.size + field)
    }
    @inline(__always) private static func caseSensitive(_ packed: UInt32) -> Bool { packed & (1 << 31) != 0 }

    /// The matches of a file name (not a path), best first, written to
    /// `out` (room for `capacity`) as name index << 32 | weight; returns how
    /// many. `lower` is the name with ASCII letters lower-cased. Literal
    /// names first, then the longest suffix (case-insensitive globs on
    /// `lower`, then all on `name`), then other patterns; repeats dropped
    /// as xdgmime drops them, then a stable sort by weight.
    public func matches(
        _ name: UnsafeBufferPointer<UInt8>, lower: UnsafeBufferPointer<UInt8>,
        into out: UnsafeMutablePointer<UInt64>
    ) -> Int {
        for layer in 0..<layerCount {
            if let at = view.lookup(table: layerWord(layer, Layer.literalTable), key: lower),
                !Self.caseSensitive(view.word(Int(at) + 1))
            {
                out[0] = pack(Int(at))
                return 1
            }
        }
        for layer in 0..<layerCount {
            if let at = view.lookup(table: layerWord(layer, Layer.literalTable), key: name) {
                out[0] = pack(Int(at))
                return 1
            }
        }
        var count = 0
        for layer in 0..<layerCount where count == 0 {
            count = suffix(layer, lower, caseSensitiveCheck: false, out, count)
        }
        if count < 2 {
            let before = count
            for layer in 0..<layerCount where count == before {
                count = suffix(layer, name, caseSensitiveCheck: true, out, count)
            }
        }
        if count < 2 {
            let before = count
            for layer in 0..<layerCount where count == before {
                count = patterns(layer, lower, caseSensitiveCheck: false, out, count)
            }
        }
        if count < 2 {
            let before = count
            for layer in 0..<layerCount where count == before {
                count = patterns(layer, name, caseSensitiveCheck: true, out, count)
            }
        }
        return Self.dropRepeatsAndSort(out, count)
    }

    @inline(__always) private func pack(_ entry: Int) -> UInt64 {
        UInt64(view.word(entry)) << 32 | UInt64(view.word(entry + 1) & 0xFFFF)
    }

    /// The usable entries of the longest suffix of `name` that has any.
    private func suffix(
        _ layer: Int, _ name: UnsafeBufferPointer<UInt8>, caseSensitiveCheck: Bool,
        _ out: UnsafeMutablePointer<UInt64>, _ count: Int
    ) -> Int {
        let longest = layerWord(layer, Layer.longestSuffix)
        guard longest > 0, !name.isEmpty else { return count }
        let table = layerWord(layer, Layer.suffixTable), bitmap = layerWord(layer, Layer.firstByteBitmap)
        let first = max(0, name.count - longest)
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: name.count - first) { hashes in
            var h = ImageHash.start
            var i = name.count - 1
            while i >= first {
                h = ImageHash.step(h, name[i])
                hashes[i - first] = h
                i -= 1
            }
            for start in first..<name.count {
                let byte = name[start]
                guard byte & 0xC0 != 0x80, view.word(bitmap + Int(byte >> 5)) & (1 << UInt32(byte & 31)) != 0 else {
                    continue
                }
                let key = UnsafeBufferPointer(rebasing: name[start...])
                guard let at = view.lookup(table: table, key: key, hash: hashes[start - first]) else { continue }
                let n = view.count(at: Int(at), entryWords: 2, from: Int(at) + 1)
                var added = count
                for k in 0..<n where added < Self.capacity {
                    let e = Int(at) + 1 + k * 2
                    if caseSensitiveCheck || !Self.caseSensitive(view.word(e + 1)) {
                        out[added] = pack(e)
                        added += 1
                    }
                }
                if added > count { return added }
            }
            return count
        }
    }

    private func patterns(
        _ layer: Int, _ name: UnsafeBufferPointer<UInt8>, caseSensitiveCheck: Bool,
        _ out: UnsafeMutablePointer<UInt64>, _ count: Int
    ) -> Int {
        let start = layerWord(layer, Layer.patterns)
        let n = view.count(
            at: root + Root.layers + layer * Layer.size + Layer.patternCount, entryWords: Pattern.size, from: start)
        var added = count
        // A layer's patterns are distinct strings of the pool, so together
        // they are no longer than it; a damaged index whose entries all name
        // one long run stops there instead of matching it again and again.
        var poolLeft = view.poolCount
        for k in 0..<n {
            let p = start + k * Pattern.size
            guard caseSensitiveCheck || !Self.caseSensitive(view.word(p + Pattern.weightAndFlags)) else { continue }
            if added >= Self.capacity { break }
            let pattern = view.bytes(at: p + Pattern.pattern)
            poolLeft -= pattern.count
            if poolLeft < 0 { break }
            if matches(pattern: pattern, at: p, name) {
                out[added] = pack(p + Pattern.nameIndex)
                added += 1
            }
        }
        return added
    }

    /// Whether the pattern of the entry at `p`, whose text is `pattern`,
    /// matches `name`: its literal prefix and last-byte set first, then the
    /// whole pattern.
    @inline(__always)
    private func matches(pattern: UnsafeBufferPointer<UInt8>, at p: Int, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        let prefix = min(view.int(p + Pattern.literalPrefixLength), pattern.count)
        guard name.count >= prefix, prefix == 0 || memcmpEqual(pattern, name, prefix) else { return false }
        let bits = view.word(p + Pattern.lastByteBitmap)
        if bits != ImageWriter.none {
            guard let last = name.last, view.word(Int(bits) + Int(last >> 5)) & (1 << UInt32(last & 31)) != 0 else {
                return false
            }
        }
        return GlobMatcher.matches(pattern, name)
    }

    // MARK: Globs one by one

    /// One glob of the index, as `forEachGlob` gives it.
    public enum Glob {
        /// A whole file name.
        case literal(UnsafeBufferPointer<UInt8>, caseSensitive: Bool)
        /// `*` then this text; case-sensitive when any of its globs is.
        case suffix(UnsafeBufferPointer<UInt8>, caseSensitive: Bool)
        /// Any other pattern, kept at word `entry` (see `patternMatches`).
        case pattern(UnsafeBufferPointer<UInt8>, caseSensitive: Bool, entry: Int)
    }

    /// Calls `body` with every glob of every layer, as matching reads them.
    public func forEachGlob(_ body: (Glob) -> Void) {
        for layer in 0..<layerCount {
            view.forEachEntry(table: layerWord(layer, Layer.literalTable)) { key, at in
                body(.literal(key, caseSensitive: Self.caseSensitive(view.word(Int(at) + 1))))
            }
            view.forEachEntry(table: layerWord(layer, Layer.suffixTable)) { key, at in
                let n = view.count(at: Int(at), entryWords: 2, from: Int(at) + 1)
                let sensitive = (0..<n).contains { Self.caseSensitive(view.word(Int(at) + 2 + $0 * 2)) }
                body(.suffix(key, caseSensitive: sensitive))
            }
            let start = layerWord(layer, Layer.patterns)
            let n = view.count(
                at: root + Root.layers + layer * Layer.size + Layer.patternCount, entryWords: Pattern.size, from: start)
            for k in 0..<n {
                let p = start + k * Pattern.size
                body(
                    .pattern(
                        view.bytes(at: p + Pattern.pattern),
                        caseSensitive: Self.caseSensitive(view.word(p + Pattern.weightAndFlags)), entry: p))
            }
        }
    }

    /// Whether any layer has a literal glob for `name` or for `lower` (the
    /// name lower-cased), case aside.
    public func hasLiteral(_ name: UnsafeBufferPointer<UInt8>, lower: UnsafeBufferPointer<UInt8>) -> Bool {
        for layer in 0..<layerCount {
            let table = layerWord(layer, Layer.literalTable)
            if view.lookup(table: table, key: lower) != nil || view.lookup(table: table, key: name) != nil {
                return true
            }
        }
        return false
    }

    /// Whether the pattern at word `entry` (from `forEachGlob`) matches the
    /// name as matching tries it: on `lower` unless it is case-sensitive,
    /// and on `name` as given.
    @inline(__always)
    public func patternMatches(
        entry: Int, _ name: UnsafeBufferPointer<UInt8>, lower: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        let pattern = view.bytes(at: entry + Pattern.pattern)
        if !Self.caseSensitive(view.word(entry + Pattern.weightAndFlags)), matches(pattern: pattern, at: entry, lower) {
            return true
        }
        return matches(pattern: pattern, at: entry, name)
    }

    private func memcmpEqual(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, _ n: Int) -> Bool {
        for i in 0..<n where a[i] != b[i] { return false }
        return true
    }

    /// xdgmime's repeat removal (the last entry takes a repeat's place,
    /// keeping the higher weight), then a stable sort by weight.
    static func dropRepeatsAndSort(_ m: UnsafeMutablePointer<UInt64>, _ count: Int) -> Int {
        var last = count
        var i = 0
        while i < last {
            var j = i + 1
            while j < last {
                if m[i] >> 32 == m[j] >> 32 {
                    if m[j] & 0xFFFF > m[i] & 0xFFFF { m[i] = m[j] }
                    last -= 1
                    m[j] = m[last]
                } else {
                    j += 1
                }
            }
            i += 1
        }
        // Insertion sort: stable, and there are at most 10.
        if last > 1 {
            for a in 1..<last {
                let x = m[a]
                var b = a
                while b > 0 && m[b - 1] & 0xFFFF < x & 0xFFFF {
                    m[b] = m[b - 1]
                    b -= 1
                }
                m[b] = x
            }
        }
        return last
    }
}
