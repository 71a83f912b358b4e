/// How much a reader may still read from an image to make one answer,
/// counted in bytes: a word of a list costs 4, a string 8 for its
/// reference and its length.
///
/// An image that passed its checks may still be damaged or forged (a
/// checksum is no signature): its lists may all name one long run, or its
/// strings one long stretch of the pool, so that a walk that reads each
/// list once in a sound image reads the same bytes again and again. Each
/// answer therefore spends from a budget sized by the image
/// (`ImageView.workBudget()`); what is past it reads as empty, so a damaged
/// image gives fewer answers, never a walk longer than the budget, and
/// what an answer holds, and whoever prints it, is bounded by it too.
///
/// A sound image never comes near it: an answer reads each list of a sound
/// image at most once (walks visit each type once) and each string where it
/// is referenced. The largest answer of the bundled declarations with this
/// machine's MIME database, the tags of every type under `public.item`,
/// reads about a quarter of the image; the budget is eight times the image.
public struct WorkBudget: Sendable {
    /// What is left to spend.
    public private(set) var remaining: Int
    /// What was spent so far.
    public private(set) var spent = 0
    /// Whether a read asked for more than was left.
    public private(set) var ranOut = false
    /// Whether a read met what no sound image holds (a count longer than
    /// the image allows, a reference outside it).
    public private(set) var sawDamage = false

    /// A budget of `bytes`.
    public init(bytes: Int) { remaining = max(bytes, 0) }

    /// How many bytes of reading an answer from an image of `imageBytes`
    /// bytes may cost: eight times the image, and 4 KiB at least.
    public static func bytes(forImageOf imageBytes: Int) -> Int { 8 * max(imageBytes, 0) + 4096 }

    /// Notes that a read met what no sound image holds.
    public mutating func noteDamage() { sawDamage = true }

    /// Takes `cost` bytes: true when they were left; otherwise takes what
    /// is left, marks the budget run out, and returns false.
    public mutating func take(_ cost: Int) -> Bool {
        guard cost <= remaining else {
            spent += remaining
            remaining = 0
            ranOut = true
            return false
        }
        remaining -= cost
        spent += cost
        return true
    }

    /// How many of `count` items of `size` bytes each the budget still
    /// covers; takes them. Fewer than `count` marks the budget run out.
    public mutating func take(upTo count: Int, each size: Int) -> Int {
        let n = max(min(count, remaining / max(size, 1)), 0)
        remaining -= n * size
        spent += n * size
        if n < count { ranOut = true }
        return n
    }
}

extension ImageView {
    /// The bytes this image occupies: header, words and pool.
    public var byteCount: Int { Self.headerSize + wordCount * 4 + poolCount }

    /// A fresh budget for one answer from this image
    /// (`WorkBudget.bytes(forImageOf:)`).
    public func workBudget() -> WorkBudget { WorkBudget(bytes: WorkBudget.bytes(forImageOf: byteCount)) }

    /// The string referenced by words `index`, `index + 1`, paid for from
    /// `budget` (its reference and its bytes): nil when absent or when the
    /// budget cannot cover it.
    public func string(at index: Int, budget: inout WorkBudget) -> String? {
        guard let bytes = pay(forStringAt: index, budget: &budget) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The bytes of the string referenced by words `index`, `index + 1`,
    /// paid for from `budget` as `string(at:budget:)` pays, without making
    /// a `String` of them: nil when absent or when the budget cannot cover
    /// them.
    public func pay(forStringAt index: Int, budget: inout WorkBudget) -> UnsafeBufferPointer<UInt8>? {
        if word(index) == ImageWriter.none { return nil }
        let bytes = bytes(at: index)
        // A reference outside the pool reads as empty, and says the image is damaged.
        if bytes.count != int(index + 1) { budget.noteDamage() }
        return budget.take(8 + bytes.count) ? bytes : nil
    }
}
