import SystemBase

/// Near misses: how far apart two words are, and which declared identifiers
/// a mistyped one probably meant.
public enum Spelling {
    /// The edit distance between `a` and `b` (insertions, deletions,
    /// substitutions and swaps of neighbours each count one), compared
    /// without regard to ASCII case, or nil when it exceeds `limit`. Work is
    /// bounded by the length of the shorter word times `2 * limit + 1`.
    public static func distance(_ a: String, _ b: String, limit: Int) -> Int? {
        // ASCII words (the command names, most queries) are compared on their bytes, without allocating.
        var a = a, b = b
        let ascii: Int?? = a.withUTF8 { x in
            b.withUTF8 { y in
                guard x.allSatisfy({ $0 < 128 }), y.allSatisfy({ $0 < 128 }) else { return Int??.none }
                return .some(
                    banded(x.count, y.count, limit: limit) { x[$0].asciiLowercased == y[$1].asciiLowercased })
            }
        }
        if let ascii { return ascii }
        guard abs(a.unicodeScalars.count - b.unicodeScalars.count) <= limit else { return nil }
        let x = Array(a.lowercased().unicodeScalars), y = Array(b.lowercased().unicodeScalars)
        return banded(x.count, y.count, limit: limit) { x[$0] == y[$1] }
    }

    /// The optimal-string-alignment distance between words of `m` and `n`
    /// letters, where `same(i, j)` compares letter `i` of the first with
    /// letter `j` of the second, or nil past `limit`. Rows are cut to the
    /// band |i - j| <= limit (cells outside it count as `limit + 1`) and
    /// live on the stack.
    private static func banded(_ m: Int, _ n: Int, limit: Int, same: (Int, Int) -> Bool) -> Int? {
        guard abs(m - n) <= limit else { return nil }
        if m == 0 || n == 0 { return max(m, n) <= limit ? max(m, n) : nil }
        let far = limit + 1, width = n + 1
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: width * 3) { rows in
            var before = 0, previous = width, current = width * 2
            for j in 0..<width {
                rows[before + j] = far
                rows[previous + j] = min(j, far)
                rows[current + j] = far
            }
            for i in 1...m {
                rows[current] = min(i, far)
                var best = rows[current]
                let low = max(1, i - limit), high = min(n, i + limit)
                if low > 1 { rows[current + low - 1] = far }
                if low <= high {
                    for j in low...high {
                        var cell = min(
                            rows[previous + j] + 1, rows[current + j - 1] + 1,
                            rows[previous + j - 1] + (same(i - 1, j - 1) ? 0 : 1))
                        if i > 1 && j > 1 && same(i - 1, j - 2) && same(i - 2, j - 1) {
                            cell = min(cell, rows[before + j - 2] + 1)
                        }
                        rows[current + j] = min(cell, far)
                        best = min(best, rows[current + j])
                    }
                }
                if high < n { rows[current + high + 1] = far }
                if best > limit { return nil }
                (before, previous, current) = (previous, current, before)
            }
            let result = rows[previous + n]
            return result <= limit ? result : nil
        }
    }

    /// How many edits a word of `length` may be from what was meant: one for
    /// short words, two from six characters, a fifth of longer ones.
    public static func tolerance(forLength length: Int) -> Int {
        length < 6 ? 1 : max(2, length / 5)
    }

    /// Words longer than this (in bytes) get no suggestions: nothing
    /// suggested is near so long, and the work stays bounded.
    public static let longestWord = 256

    /// The words of `candidates` nearest `word` within its tolerance, best
    /// first (ties in the order given), at most `limit`; none for a word
    /// longer than `longestWord`.
    public static func nearest(_ word: String, among candidates: [String], limit: Int = 3) -> [String] {
        guard word.utf8.count <= longestWord else { return [] }
        let tolerance = tolerance(forLength: word.unicodeScalars.count)
        var scored: [(Int, Int, String)] = []
        for (order, candidate) in candidates.enumerated() {
            if let d = distance(word, candidate, limit: tolerance) { scored.append((d, order, candidate)) }
        }
        return scored.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.prefix(limit).map(\.2)
    }
}

extension TypeRegistry {
    /// The declared identifiers `query` most likely means, best first, at
    /// most `limit`: those whose last component is `query` (`image` gives
    /// `public.image`), then those within a few edits of it, whole or by
    /// last component (`public.imgae`, `imgae`). Public types first on a tie.
    public func suggestions(for query: String, limit: Int = 3) -> [String] {
        // No identifier is anywhere near so long: a huge query costs no walk
        // over every type.
        guard query.utf8.count <= Spelling.longestWord else { return [] }
        let word = query.lowercased()
        let tolerance = Spelling.tolerance(forLength: word.unicodeScalars.count)
        var scored: [(score: Int, rank: Int, identifier: String)] = []
        // Every identifier is read within one answer's budget.
        var budget = workBudget()
        defer { settle(budget) }
        for slot in 0..<count {
            guard let identifier = self.identifier(Int32(slot), budget: &budget) else { break }
            let lower = identifier.lowercased()
            let last = lower.split(separator: ".").last.map(String.init) ?? lower
            let rank = lower.hasPrefix("public.") ? 0 : lower.hasPrefix("com.apple.") ? 1 : 2
            if last == word && lower != word {
                scored.append((0, rank, identifier))
            } else if let d = Spelling.distance(word, lower, limit: tolerance) {
                scored.append((d, rank, identifier))
            } else if !word.contains("."), let d = Spelling.distance(word, last, limit: tolerance) {
                scored.append((d + 1, rank, identifier))
            }
        }
        return scored.sorted {
            ($0.score, $0.rank, $0.identifier.count, $0.identifier) < (
                $1.score, $1.rank, $1.identifier.count, $1.identifier
            )
        }
        .prefix(limit).map(\.identifier)
    }
}
