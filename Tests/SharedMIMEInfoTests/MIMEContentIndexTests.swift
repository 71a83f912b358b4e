import CompiledData
import Testing

@testable import SharedMIMEInfo

/// The content index answers exactly what the layers' rules, aliases and
/// parents say, read the way the shared-mime-info specification reads
/// them: every alias, every type's parents, and a sample of data for every
/// matchlet of every rule, in the fixture databases, a database of two
/// layers where the higher one deletes magic, and the machine's own.
@Suite struct MIMEContentIndexTests {
    /// The databases compared: the fixtures, two layers, and the system's when it has one.
    static let databases: [(name: String, db: MIMEDatabase)] = {
        var list: [(String, MIMEDatabase)] = [("xml", Fixtures.fromXML), ("cache", Fixtures.fromCache)]
        var user = MIMELayer(directory: "/user/mime", format: .packages)
        user.aliases = ["image/x-fixture-alias": "image/png", "application/x-uti-string": "text/x-renamed"]
        user.parents = ["application/x-user-magic": ["Text/Plain", "application/x-extra"]]
        user.magicDeleted = Set(Fixtures.fromCache.layers[0].magic.prefix(2).map { $0.mimeType.lowercased() })
        user.magic = [
            MagicRule(
                mimeType: "application/x-user-magic", priority: 90,
                matchlets: [
                    Matchlet(
                        rangeStart: 2, rangeLength: 8, value: Array("USER".utf8), mask: [0xDF, 0xDF, 0xDF, 0xDF],
                        children: [Matchlet(rangeStart: 0, value: [0x01]), Matchlet(rangeStart: 1, value: [0x02])])
                ]),
            MagicRule(mimeType: "application/x-never", priority: 0, matchlets: [Matchlet(rangeStart: 0, value: [0])]),
        ]
        list.append(("two layers", MIMEDatabase(layers: [user] + Fixtures.fromCache.layers)))
        let system = MIMEDatabase.load()
        if !system.isEmpty { list.append(("system", system)) }
        return list
    }()

    /// The first matching rule of each layer, the highest priority winning
    /// and the higher layer on a tie, after `magic-deleteall` and without
    /// rules of priority 0: the specification's reading, from the layers.
    static func expectedMatch(_ layers: [MIMELayer], _ data: [UInt8]) -> MIMEDatabase.Sniff? {
        var deleted: Set<String> = []
        var best: MIMEDatabase.Sniff?
        for layer in layers {
            let rules = layer.magic.filter { !deleted.contains($0.mimeType.lowercased()) && $0.priority > 0 }
            deleted.formUnion(layer.magicDeleted)
            let first = data.withUnsafeBytes { bytes in rules.first { $0.matches(bytes) } }
            if let first, first.priority > best?.priority ?? 0 {
                best = MIMEDatabase.Sniff(mimeType: first.mimeType, priority: first.priority)
            }
        }
        return best
    }

    /// Data that satisfies `matchlet` at the first or last offset of its
    /// range, and its first child, and so on down.
    static func samples(_ matchlet: Matchlet, length: Int) -> [[UInt8]] {
        [0, matchlet.rangeLength - 1].map { shift in
            var data = [UInt8](repeating: 0, count: length)
            var current: Matchlet? = matchlet
            var extra = shift
            while let m = current {
                let start = m.rangeStart + extra
                if start + m.value.count <= length {
                    data.replaceSubrange(start..<start + m.value.count, with: m.value)
                }
                extra = 0
                current = m.children.first
            }
            return data
        }
    }

    @Test(arguments: databases.indices)
    func magicAnswersWhatTheRulesSay(_ which: Int) {
        let (name, db) = Self.databases[which]
        let layers = db.layers
        var checked = 0
        for layer in layers {
            for rule in layer.magic {
                for matchlet in rule.matchlets {
                    for data in Self.samples(matchlet, length: db.sniffLength) + Self.samples(matchlet, length: 64) {
                        let found = data.withUnsafeBytes { db.magicMatch($0) }
                        #expect(found == Self.expectedMatch(layers, data), "\(name): \(rule.mimeType)")
                        checked += 1
                    }
                }
            }
        }
        var generator = SplitMix(seed: UInt64(which) + 1)
        for length in [0, 1, 8, 100, 4096] {
            for _ in 0..<20 {
                let data = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                #expect(data.withUnsafeBytes { db.magicMatch($0) } == Self.expectedMatch(layers, data), "\(name)")
            }
        }
        #expect(checked > 0 || layers.allSatisfy(\.magic.isEmpty))
        let extent = layers.flatMap(\.magic).map(\.extent).max() ?? 0
        #expect(db.sniffLength == (extent == 0 || extent > 4096 ? 4096 : extent))
    }

    @Test(arguments: databases.indices)
    func aliasesParentsAndMagicTypesAreTheLayers(_ which: Int) {
        let (name, db) = Self.databases[which]
        let layers = db.layers
        var aliases: [String: String] = [:]
        var parents: [String: [String]] = [:]
        for layer in layers {
            for (alias, canonical) in layer.aliases where aliases[alias] == nil { aliases[alias] = canonical }
            for (type, list) in layer.parents {
                var merged = parents[type] ?? []
                for p in list where !merged.contains(where: { $0.lowercased() == p.lowercased() }) { merged.append(p) }
                parents[type] = merged
            }
        }
        let names = Set(layers.flatMap { $0.types + Array($0.aliases.keys) + Array($0.parents.keys) })
        for type in names.sorted() {
            for spelling in [type, type.uppercased()] {
                #expect(db.canonical(spelling) == aliases[type.lowercased()] ?? spelling, "\(name): \(spelling)")
            }
            let key = (aliases[type.lowercased()] ?? type).lowercased()
            #expect(db.parents(of: type) == parents[key] ?? [], "\(name): \(type)")
        }
        var deleted: Set<String> = []
        var withMagic: Set<String> = []
        for layer in layers {
            for rule in layer.magic where !deleted.contains(rule.mimeType.lowercased()) && rule.priority > 0 {
                withMagic.insert((aliases[rule.mimeType.lowercased()] ?? rule.mimeType).lowercased())
            }
            deleted.formUnion(layer.magicDeleted)
        }
        for type in names.union(layers.flatMap { $0.magic.map(\.mimeType) }).sorted() {
            let key = (aliases[type.lowercased()] ?? type).lowercased()
            #expect(db.hasMagic(for: type) == withMagic.contains(key), "\(name): \(type)")
        }
    }

    @Test func theTwoLayerDatabaseReachesEveryRuleKind() {
        let db = Self.databases[2].db
        // The higher layer's masked rule with children, found at a later offset.
        let data: [UInt8] = [0x01, 0x00, 0x00, 0x00, Character("u").asciiValue!, 0x73, 0x65, 0x72]
        #expect(data.withUnsafeBytes { db.magicMatch($0) }?.mimeType == "application/x-user-magic")
        // Without a child's byte it does not match.
        var other = data
        other[0] = 0
        #expect(other.withUnsafeBytes { db.magicMatch($0) }?.mimeType != "application/x-user-magic")
        #expect(db.canonical("IMAGE/X-FIXTURE-ALIAS") == "image/png")
        #expect(db.isSubclass("application/x-user-magic", of: "application/x-extra"))
        #expect(!db.hasMagic(for: "application/x-never"))
    }
}

/// A small seeded generator, so that every run tries the same data.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A damaged index cannot make a match run long: matchlets whose children
/// lead back to themselves are visited no more often than the image has
/// room for matchlets, and the damage matches nothing.
@Suite struct MIMEContentIndexDamageTests {
    @Test func childrenThatLeadBackStopAtTheVisitLimit() throws {
        var layer = MIMELayer(directory: "/damaged/mime", format: .packages)
        let leaf = Matchlet(rangeStart: 0, value: Array("A".utf8), children: [Matchlet(rangeStart: 1, value: [0])])
        layer.magic = [MagicRule(mimeType: "application/x-loop", priority: 50, matchlets: [leaf, leaf])]
        var writer = ImageWriter()
        let root = MIMEContentIndex.write(layers: [layer], into: &writer)
        // Both top-level matchlets get the pair itself as their children: 2^64 paths without a limit.
        let layers = Int(writer[root + MIMEContentIndex.Root.layers])
        let rule = Int(writer[layers + 1 + MIMEContentIndex.Layer.rules])
        let pair = Int(writer[rule + MIMEContentIndex.Rule.matchlets])
        for entry in [pair, pair + MIMEContentIndex.Matchlet.size] {
            writer[entry + MIMEContentIndex.Matchlet.childCount] = 2
            writer[entry + MIMEContentIndex.Matchlet.children] = UInt32(pair)
        }
        let view = try ImageView(
            writer.image(kind: MIMEContentIndex.imageKind, root: root), kind: MIMEContentIndex.imageKind)
        let index = MIMEContentIndex(view: view, root: view.root)
        var visits = index.visitLimit
        let found = Array("AAAA".utf8).withUnsafeBytes { index.magicMatch($0, visits: &visits) }
        #expect(found == nil)
        #expect(visits == 0)
        #expect(index.visitLimit < view.wordCount)
    }

    @Test(arguments: MIMEContentIndexTests.databases.indices)
    func aSoundIndexNeverRunsOut(_ which: Int) {
        let db = MIMEContentIndexTests.databases[which].db
        let index = MIMEContentIndex(layers: db.layers)
        for layer in db.layers {
            for rule in layer.magic {
                for data in rule.matchlets.flatMap({ MIMEContentIndexTests.samples($0, length: 4096) }) {
                    var visits = index.visitLimit
                    let found = data.withUnsafeBytes { index.magicMatch($0, visits: &visits) }
                    #expect(visits > 0)
                    #expect(found == MIMEContentIndexTests.expectedMatch(db.layers, data))
                }
            }
        }
    }
}
