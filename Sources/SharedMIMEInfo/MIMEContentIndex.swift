import CompiledData

/// What typing content asks of a database, compiled into an image and read
/// in place: the magic rules of every layer (without those a higher layer's
/// `magic-deleteall` hides, and without rules of priority 0), how many
/// leading bytes they look at, the aliases, the `sub-class-of` parents and
/// the types some rule names. A process that types a file by its content
/// so reads the few words it needs instead of decoding every layer.
public struct MIMEContentIndex: Sendable {
    /// The image kind of a standalone index (`MCNT`); a registry image
    /// carries the index inside its own layout.
    static let imageKind = ImageKind(tag: 0x4D43_4E54, layoutVersion: 1)

    /// The index's root words.
    enum Root {
        static let sniffLength = 0, layers = 1, aliases = 2, parents = 3, magicTypes = 4, size = 5
    }

    /// The words of one layer entry, after the layer list's count word.
    enum Layer {
        static let ruleCount = 0, rules = 1, size = 2
    }

    /// The words of one magic rule.
    enum Rule {
        static let mimeType = 0, priority = 2, matchletCount = 3, matchlets = 4, size = 5
    }

    /// The words of one matchlet; its children are a list of matchlets of their own.
    enum Matchlet {
        static let rangeStart = 0, rangeLength = 1, value = 2, mask = 4, childCount = 6, children = 7, size = 8
    }

    /// The layout these names give, for the registry's layout check.
    public static var layoutDescription: String {
        "root: sniff length \(Root.sniffLength), layers \(Root.layers), aliases \(Root.aliases), "
            + "parents \(Root.parents), magic types \(Root.magicTypes), size \(Root.size); "
            + "layer: rule count \(Layer.ruleCount), rules \(Layer.rules), size \(Layer.size); "
            + "rule: type \(Rule.mimeType), priority \(Rule.priority), count \(Rule.matchletCount), "
            + "matchlets \(Rule.matchlets), size \(Rule.size); "
            + "matchlet: start \(Matchlet.rangeStart), length \(Matchlet.rangeLength), value \(Matchlet.value), "
            + "mask \(Matchlet.mask), count \(Matchlet.childCount), children \(Matchlet.children), size \(Matchlet.size)"
    }

    /// Matchlets nest at most this deep; deeper ones never match.
    static let depthLimit = 64

    /// How many matchlets one match may visit: as many as the image has
    /// room for. A sound index visits each at most once; a damaged one
    /// whose children lead back to their parents stops there, having cost
    /// what a sound index of its size could.
    var visitLimit: Int { view.wordCount / Matchlet.size + 1 }

    let view: ImageView
    let root: Int
    /// How many leading bytes content sniffing reads: the furthest byte a
    /// rule looks at, at most 4096 (as GIO reads), 4096 when no rule says.
    public let sniffLength: Int

    /// Reads an index written by `write(layers:into:)` at `root` of `view`.
    public init(view: ImageView, root: Int) {
        self.view = view
        self.root = root
        let length = view.int(root + Root.sniffLength)
        sniffLength = length == 0 || length > 4096 ? 4096 : length
    }

    /// An index of `layers` in an image of its own.
    public init(layers: [MIMELayer]) {
        var writer = ImageWriter()
        let root = Self.write(layers: layers, into: &writer)
        // An image just written is well formed.
        let view = try! ImageView(writer.image(kind: Self.imageKind, root: root), kind: Self.imageKind)
        self.init(view: view, root: view.root)
    }

    // MARK: Writing

    /// Writes what content typing needs of `layers` (highest precedence
    /// first) and returns the index's root word.
    public static func write(layers: [MIMELayer], into w: inout ImageWriter) -> Int {
        var aliases: [String: String] = [:]
        var aliasOrder: [String] = []
        var parents: [String: [String]] = [:]
        var parentOrder: [String] = []
        for layer in layers {
            for (alias, canonical) in layer.aliases.sorted(by: { $0.key < $1.key }) where aliases[alias] == nil {
                aliases[alias] = canonical
                aliasOrder.append(alias)
            }
            for (type, list) in layer.parents.sorted(by: { $0.key < $1.key }) {
                if parents[type] == nil { parentOrder.append(type) }
                var merged = parents[type] ?? []
                for p in list where !merged.contains(where: { mimeKey($0) == mimeKey(p) }) { merged.append(p) }
                parents[type] = merged
            }
        }
        func canonicalKey(_ type: String) -> String { mimeKey(aliases[mimeKey(type)] ?? type) }

        var magicDeleted: Set<String> = []
        var ruleLists: [[MagicRule]] = []
        var magicTypes: [String] = []
        var seenMagicTypes: Set<String> = []
        for layer in layers {
            let rules = layer.magic.filter { !magicDeleted.contains(mimeKey($0.mimeType)) && $0.priority > 0 }
            ruleLists.append(rules)
            for rule in rules where seenMagicTypes.insert(canonicalKey(rule.mimeType)).inserted {
                magicTypes.append(canonicalKey(rule.mimeType))
            }
            magicDeleted.formUnion(layer.magicDeleted)
        }

        var layerEntries: [(count: Int, start: Int)] = []
        for rules in ruleLists {
            let start = w.reserve(rules.count * Rule.size)
            for (i, rule) in rules.enumerated() {
                let entry = start + i * Rule.size
                w.setString(rule.mimeType, at: entry + Rule.mimeType)
                w[entry + Rule.priority] = UInt32(clamping: rule.priority)
                w[entry + Rule.matchletCount] = UInt32(rule.matchlets.count)
                w[entry + Rule.matchlets] = UInt32(writeMatchlets(rule.matchlets, into: &w))
            }
            layerEntries.append((rules.count, start))
        }
        let layerList = w.append(layerEntries.count)
        for entry in layerEntries {
            w.append(entry.count)
            w.append(entry.start)
        }

        var aliasEntries: [(key: [UInt8], value: UInt32)] = []
        for alias in aliasOrder {
            let at = w.wordCount
            w.appendString(aliases[alias])
            aliasEntries.append((Array(alias.utf8), UInt32(at)))
        }
        var parentEntries: [(key: [UInt8], value: UInt32)] = []
        for type in parentOrder {
            let list = parents[type] ?? []
            let at = w.append(list.count)
            for parent in list { w.appendString(parent) }
            parentEntries.append((Array(type.utf8), UInt32(at)))
        }
        let aliasTable = w.appendHashTable(aliasEntries)
        let parentTable = w.appendHashTable(parentEntries)
        let magicTypeTable = w.appendHashTable(magicTypes.map { (Array($0.utf8), 0) })

        let extent = layers.flatMap(\.magic).map(\.extent).max() ?? 0
        let root = w.reserve(Root.size)
        w[root + Root.sniffLength] = UInt32(extent == 0 || extent > 4096 ? 4096 : extent)
        w[root + Root.layers] = UInt32(layerList)
        w[root + Root.aliases] = UInt32(aliasTable)
        w[root + Root.parents] = UInt32(parentTable)
        w[root + Root.magicTypes] = UInt32(magicTypeTable)
        return root
    }

    /// Writes `list` as consecutive entries (each one's children after
    /// them) and returns the first entry's word.
    private static func writeMatchlets(_ list: [SharedMIMEInfo.Matchlet], into w: inout ImageWriter) -> Int {
        let start = w.reserve(list.count * Matchlet.size)
        for (i, m) in list.enumerated() {
            let entry = start + i * Matchlet.size
            w[entry + Matchlet.rangeStart] = UInt32(clamping: m.rangeStart)
            w[entry + Matchlet.rangeLength] = UInt32(clamping: m.rangeLength)
            w.setBlob(m.value, at: entry + Matchlet.value)
            if let mask = m.mask {
                w.setBlob(mask, at: entry + Matchlet.mask)
            } else {
                w.setBlob(nil, at: entry + Matchlet.mask)
            }
            w[entry + Matchlet.childCount] = UInt32(m.children.count)
            w[entry + Matchlet.children] = UInt32(writeMatchlets(m.children, into: &w))
        }
        return start
    }

    // MARK: Reading

    /// The canonical type `type` is an alias of (any case), nil when it is
    /// no alias.
    public func canonical(of type: String) -> String? {
        withKey(type) { key in view.lookup(table: view.int(root + Root.aliases), key: key) }
            .flatMap { view.string(at: Int($0)) }
    }

    /// The declared parents of the type whose lower-cased name is `key`, as
    /// the sources spell them, in order, every layer's merged.
    public func parents(ofKey key: String) -> [String] {
        guard let at = withKey(key, { view.lookup(table: view.int(root + Root.parents), key: $0) }) else { return [] }
        let start = Int(at)
        let n = view.count(at: start, entryWords: 2, from: start + 1)
        return (0..<n).compactMap { view.string(at: start + 1 + 2 * $0) }
    }

    /// Whether some rule names the type whose canonical lower-cased name is `key`.
    public func hasMagic(forKey key: String) -> Bool {
        withKey(key) { view.lookup(table: view.int(root + Root.magicTypes), key: $0) } != nil
    }

    /// The first matching rule of each layer; the highest priority wins,
    /// the higher-precedence layer on a tie. Nil when none matches.
    public func magicMatch(_ data: UnsafeRawBufferPointer) -> MIMEDatabase.Sniff? {
        var visits = visitLimit
        return magicMatch(data, visits: &visits)
    }

    /// `magicMatch(_:)`, each matchlet visited paid from `visits`.
    func magicMatch(_ data: UnsafeRawBufferPointer, visits: inout Int) -> MIMEDatabase.Sniff? {
        let list = view.int(root + Root.layers)
        let layers = view.count(at: list, entryWords: Layer.size, from: list + 1)
        var best: (rule: Int, priority: Int)?
        for layer in 0..<layers {
            let entry = list + 1 + layer * Layer.size
            let start = view.int(entry + Layer.rules)
            let count = view.count(at: entry + Layer.ruleCount, entryWords: Rule.size, from: start)
            for i in 0..<count {
                let rule = start + i * Rule.size
                guard anyMatches(list: rule + Rule.matchletCount, data, depth: 0, visits: &visits) else { continue }
                let priority = view.int(rule + Rule.priority)
                if priority > best?.priority ?? 0 { best = (rule, priority) }
                break
            }
        }
        guard let best, let type = view.string(at: best.rule + Rule.mimeType) else { return nil }
        return MIMEDatabase.Sniff(mimeType: type, priority: best.priority)
    }

    /// Whether one of the matchlets whose count is at word `list` (their
    /// first entry's word follows it) matches `data`, each visit paid from
    /// `visits`; false once they are spent.
    private func anyMatches(list: Int, _ data: UnsafeRawBufferPointer, depth: Int, visits: inout Int) -> Bool {
        guard depth < Self.depthLimit else { return false }
        let start = view.int(list + 1)
        let count = view.count(at: list, entryWords: Matchlet.size, from: start)
        for i in 0..<count {
            guard visits > 0 else { return false }
            visits -= 1
            if matches(start + i * Matchlet.size, data, depth: depth, visits: &visits) { return true }
        }
        return false
    }

    /// `Matchlet.matches` of the matchlet at word `entry`.
    private func matches(_ entry: Int, _ data: UnsafeRawBufferPointer, depth: Int, visits: inout Int) -> Bool {
        let value = view.bytes(at: entry + Matchlet.value)
        let mask = view.bytes(at: entry + Matchlet.mask)
        let count = value.count
        guard count > 0, mask.isEmpty || mask.count == count else { return false }
        var offset = view.int(entry + Matchlet.rangeStart)
        let end = offset + max(1, view.int(entry + Matchlet.rangeLength))
        var found = false
        while offset < end, offset + count <= data.count {
            var equal = true
            if mask.isEmpty {
                for j in 0..<count where value[j] != data[offset + j] {
                    equal = false
                    break
                }
            } else {
                for j in 0..<count where value[j] & mask[j] != data[offset + j] & mask[j] {
                    equal = false
                    break
                }
            }
            if equal {
                found = true
                break
            }
            offset += 1
        }
        guard found else { return false }
        return view.int(entry + Matchlet.childCount) == 0
            || anyMatches(list: entry + Matchlet.childCount, data, depth: depth + 1, visits: &visits)
    }

    /// `body` with the bytes of `type` lower-cased (ASCII), without allocating for names up to 256 bytes.
    private func withKey<R>(_ type: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var type = type
        return type.withUTF8 { bytes in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { lower in
                for i in 0..<bytes.count { lower[i] = bytes[i].asciiLowercased }
                return body(UnsafeBufferPointer(lower))
            }
        }
    }
}
