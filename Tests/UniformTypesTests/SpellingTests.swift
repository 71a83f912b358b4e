import TestSupport
import Testing

@testable import UniformTypes

@Suite struct SpellingTests {
    /// The full optimal-string-alignment table, for comparison.
    private func plainDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a.lowercased().unicodeScalars), y = Array(b.lowercased().unicodeScalars)
        var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in stride(from: 1, through: x.count, by: 1) {
            for j in stride(from: 1, through: y.count, by: 1) {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
                if i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[x.count][y.count]
    }

    /// ASCII words take a path of their own on bytes; words with other
    /// letters the general one. Both agree with the full table.
    @Test(arguments: ["abcdeAB.", "abéÉe."])
    func agreesWithTheFullTableWithinTheLimit(alphabet: String) {
        // A fixed seed: the same 3,000 word pairs on every run.
        var generator = SplitMix64(seed: 0x5EED_0F_5BE1)
        let letters = Array(alphabet)
        for _ in 0..<3000 {
            let a = String(
                (0..<Int.random(in: 0...8, using: &generator)).map { _ in letters.randomElement(using: &generator)! })
            let b = String(
                (0..<Int.random(in: 0...8, using: &generator)).map { _ in letters.randomElement(using: &generator)! })
            let limit = Int.random(in: 0...3, using: &generator)
            let expected = plainDistance(a, b)
            #expect(Spelling.distance(a, b, limit: limit) == (expected <= limit ? expected : nil), "\(a) \(b) \(limit)")
        }
    }

    @Test func knownPairs() {
        #expect(Spelling.distance("confroms", "conforms", limit: 2) == 1)  // a swap
        #expect(Spelling.distance("Conforms", "conforms", limit: 0) == 0)  // case
        #expect(Spelling.distance("index", "inbox", limit: 1) == nil)
        #expect(Spelling.nearest("grpah", among: ["graph", "tags"]) == ["graph"])
        #expect(Spelling.nearest("jpg", among: ["lookup", "file", "tags"]).isEmpty)
    }

    @Test func suggestionsForMistypedIdentifiersAndBareWords() {
        let registry = TypeRegistry.bundled
        #expect(registry.suggestions(for: "public.imgae").first == "public.image")
        #expect(registry.suggestions(for: "image").first == "public.image")
        #expect(registry.suggestions(for: "PUBLIC.JPG").first == "public.jpeg")
        #expect(registry.suggestions(for: "zzzzzzzzzzzzzzzz").isEmpty)
    }
}
