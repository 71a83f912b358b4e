/// Picks the counter for a taken name without trying 1, 2, 3, … in turn:
/// the first free counter is found by doubling probes (1, 2, 4, …) and then
/// bisection, a number of probes that grows with the logarithm of how many
/// numbered names exist; after a name is placed, the next item with the same
/// name starts from the counter after it. When the taken counters have no
/// gaps this is the smallest free counter; either way the name is only used
/// if placing under it succeeds, so a name taken meanwhile by another
/// process just moves on to the next counter.
struct NamePicker {
    private var next: [FileName: Int] = [:]

    /// The counter to try first for `name`; `isTaken` tells whether the
    /// numbered name with a counter exists.
    mutating func firstCounter(for name: FileName, isTaken: (Int) -> Bool) -> Int {
        if let known = next[name] { return known }
        var free = 1
        var taken = 0
        while isTaken(free) {
            taken = free
            guard free <= Int.max / 2 else { break }
            free *= 2
        }
        while free - taken > 1 {
            let middle = taken + (free - taken) / 2
            if isTaken(middle) { taken = middle } else { free = middle }
        }
        return free
    }

    /// Remembers that `name` was placed with `counter`.
    mutating func used(_ counter: Int, for name: FileName) {
        next[name] = counter + 1
    }
}
