import CompiledData
import SharedMIMEInfo
import SystemBase

/// The declared type `FileTyping.preferredType(forName:)` gives, compiled
/// into the registry image for every tail (a name from its first dot on,
/// lower-cased) that a suffix glob names, so that typing a name is one
/// hash probe instead of a glob walk and the agreement checks.
///
/// The answer for a name depends on what its globs match and on its
/// extensions. For a name whose part before the first dot is one or more
/// bytes other than `.` and `/`, its extensions come from the tail alone,
/// and so do its suffix matches unless a suffix glob ends with the tail
/// after bytes a first part could hold (such a tail gets no entry). What
/// can still depend on that first part is a literal glob or another
/// pattern: each entry flags literal globs that so end with its tail and
/// lists the patterns that could match (`GlobTailTest`), and a name one of
/// them matches is typed the long way. An entry is written only when the
/// sample name `x` + tail matches nothing but suffixes, so its answer is
/// the one every such name gets.
enum NameAnswers {
    /// The words of an entry; the hash table maps a tail to its first word.
    enum Entry {
        /// The slot of the declared type every name with the tail gets.
        static let slot = 0
        /// `Flag` bits.
        static let flags = 1
        /// A count of words, then for each pattern to try its word
        /// (`MIMENameIndex.Glob.pattern`) and the byte a name it matches
        /// starts with (`none` when that is not one byte).
        static let patterns = 2
    }

    enum Flag {
        /// A literal glob ends with the tail: names are checked against the literals.
        static let checkLiterals: UInt32 = 1
        /// A case-sensitive or upper-case suffix glob is a suffix of the tail:
        /// the entry holds only for names whose tail is in lower case.
        static let caseMatters: UInt32 = 2
    }

    /// The most patterns an entry lists; a damaged entry is read no further.
    static let patternLimit = 64
    /// The words of each pattern an entry lists.
    static let patternWords = 2
    /// The longest name answered from the table; longer ones take the long way.
    static let nameLimit = 1024

    /// Writes the table for `registry` (which has no table yet, so that its
    /// answers are the long way's) and returns its first word, or `none`
    /// without a MIME database.
    static func write(for registry: TypeRegistry, into w: inout ImageWriter) -> UInt32 {
        guard let database = registry.mimeDatabase else { return ImageWriter.none }
        let index = database.nameIndex
        var literals: [[UInt8]] = []
        var suffixes: [(key: [UInt8], caseMarked: Bool)] = []
        var patterns: [(entry: Int, test: GlobTailTest, first: UInt32)] = []
        index.forEachGlob { glob in
            switch glob {
            case .literal(let bytes, _):
                literals.append(bytes.map(\.asciiLowercased))
            case .suffix(let bytes, let sensitive):
                let lower = bytes.map(\.asciiLowercased)
                suffixes.append((lower, sensitive || lower != Array(bytes)))
            case .pattern(let bytes, _, let entry):
                let first = bytes.first.map { "*?[\\".utf8.contains($0) ? ImageWriter.none : UInt32($0) }
                patterns.append((entry, GlobTailTest(pattern: bytes), first ?? ImageWriter.none))
            }
        }
        let tails = Set(
            suffixes.map(\.key).filter { $0.first == UInt8(ascii: ".") && $0.allSatisfy { $0 < 0x80 } })
        // A glob longer than a tail can match a name with that tail only when
        // what it has before the tail could be a first part: the tail then
        // starts at the glob's first dot.
        func tailAfterFirstPart(_ text: [UInt8]) -> [UInt8]? {
            guard let dot = text.firstIndex(of: UInt8(ascii: ".")), dot > 0,
                !text[..<dot].contains(UInt8(ascii: "/"))
            else { return nil }
            return Array(text[dot...])
        }
        let blocked = Set(suffixes.compactMap { tailAfterFirstPart($0.key) })
        let literalTails = Set(literals.compactMap(tailAfterFirstPart))
        let caseMarked = Set(suffixes.filter(\.caseMarked).map(\.key))
        let typing = FileTyping(registry: registry)
        var entries: [(key: [UInt8], value: UInt32)] = []
        for tail in tails.sorted(by: { $0.lexicographicallyPrecedes($1) }) where !blocked.contains(tail) {
            var flags: UInt32 = 0
            if literalTails.contains(tail) { flags |= Flag.checkLiterals }
            if tail.indices.contains(where: { caseMarked.contains(Array(tail[$0...])) }) { flags |= Flag.caseMatters }
            let sample = Array("x".utf8) + tail
            let mayMatch = patterns.filter { tail.withUnsafeBufferPointer($0.test.mayMatch) }
            let samplePlain = sample.withUnsafeBufferPointer { name in
                !index.hasLiteral(name, lower: name)
                    && !mayMatch.contains { index.patternMatches(entry: $0.entry, name, lower: name) }
            }
            guard samplePlain else { continue }
            // The sample's matches are its suffix matches; patterns are tried
            // only where fewer than two of those stop the walk.
            let text = String(decoding: sample, as: UTF8.self)
            let tried = database.withNameMatches(text) { $0.count } >= 2 ? [] : mayMatch
            guard tried.count <= patternLimit, let slot = typing.preferredType(forName: text).slot else { continue }
            let at = w.append(UInt32(slot))
            w.append(flags)
            w.append(tried.count * patternWords)
            for pattern in tried {
                w.append(pattern.entry)
                w.append(pattern.first)
            }
            entries.append((tail, UInt32(at)))
        }
        return UInt32(w.appendHashTable(entries))
    }
}

extension TypeRegistry {
    /// The slot of the declared type `FileTyping.preferredType(forName:)`
    /// gives `name` (a file name's UTF-8 bytes) when the registry's name
    /// table answers it; nil when the name must be typed the long way.
    func nameAnswerSlot(_ name: UnsafeBufferPointer<UInt8>) -> Int32? {
        guard let table = nameAnswerTable, nameIndex != nil, name.count <= NameAnswers.nameLimit else { return nil }
        guard let base = name.baseAddress else { return nil }
        let n = name.count
        var dot = -1
        var i = 0
        while i < n {
            let word = WordBytes.load(base, i, n)
            if WordBytes.equal(word, UInt8(ascii: "/")) != 0 { return nil }
            if dot < 0, case let dots = WordBytes.equal(word, UInt8(ascii: ".")), dots != 0 {
                dot = i + dots.trailingZeroBitCount / 8
            }
            i += 8
        }
        guard dot > 0 else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: n + 8) { buffer in
            // The tail lower-cased now; the part before it only when a glob needs it.
            guard
                let (hash, upperInTail) = WordBytes.lowercase(
                    UnsafeBufferPointer(rebasing: name[dot...]), into: buffer.baseAddress! + dot)
            else { return nil }
            let tail = UnsafeBufferPointer(rebasing: buffer[dot..<n])
            guard let at = image.lookup(table: table, key: tail, hash: hash) else { return nil }
            let entry = Int(at)
            let flags = image.word(entry + NameAnswers.Entry.flags)
            if upperInTail && flags & NameAnswers.Flag.caseMatters != 0 { return nil }
            let patterns = image.wordList(
                at: entry + NameAnswers.Entry.patterns, limit: NameAnswers.patternLimit * NameAnswers.patternWords)
            var lowered = false
            let lower = UnsafeBufferPointer(rebasing: buffer[..<n])
            if flags & NameAnswers.Flag.checkLiterals != 0 {
                for i in 0..<dot { buffer[i] = name[i].asciiLowercased }
                lowered = true
                if nameIndex?.hasLiteral(name, lower: lower) != false { return nil }
            }
            var k = 0
            while k + 1 < patterns.count {
                let first = patterns[k + 1]
                if first == ImageWriter.none || first == UInt32(name[0]) || first == UInt32(name[0].asciiLowercased) {
                    if !lowered {
                        for i in 0..<dot { buffer[i] = name[i].asciiLowercased }
                        lowered = true
                    }
                    if nameIndex?.patternMatches(entry: Int(patterns[k]), name, lower: lower) != false { return nil }
                }
                k += NameAnswers.patternWords
            }
            let slot = image.word(entry + NameAnswers.Entry.slot)
            return Int(slot) < count ? Int32(slot) : nil
        }
    }
}
