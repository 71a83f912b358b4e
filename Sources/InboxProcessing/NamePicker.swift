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

extension NamePicker {
    /// What trying one name gave.
    enum Attempt<Answer> {
        /// The name is taken: the next one is tried.
        case taken
        /// The item has the name now; a counter in it is remembered.
        case placed(Answer)
        /// The search ends here, the item not placed under this name.
        case stopped(Answer)
    }

    /// The most names one search tries, so that every search ends.
    static let searchLimit = 1000

    /// The one search for a free name: hands `attempt` the name itself
    /// (unless `alwaysNumbered`), then the numbered name with the first
    /// counter for it (`isTaken` answering the probes), then each counter
    /// after it, until an attempt places or stops, at most `searchLimit`
    /// names in all. Nil when every name tried was taken.
    mutating func search<Answer>(
        for name: FileName, alwaysNumbered: Bool, isKnownExtension: (ArraySlice<UInt8>) -> Bool,
        isTaken: (FileName) -> Bool, attempt: (FileName) -> Attempt<Answer>
    ) -> Answer? {
        var tried = 0
        if !alwaysNumbered {
            switch attempt(name) {
            case .placed(let answer), .stopped(let answer): return answer
            case .taken: tried = 1
            }
        }
        let split = NumberedName(name, isKnownExtension: isKnownExtension)
        var counter = firstCounter(for: name) { isTaken(split.numbered($0)) }
        while tried < Self.searchLimit {
            switch attempt(split.numbered(counter)) {
            case .placed(let answer):
                used(counter, for: name)
                return answer
            case .stopped(let answer): return answer
            case .taken: tried += 1
            }
            guard counter < Int.max else { break }
            counter += 1
        }
        return nil
    }
}
