/// Items to look at again at a time: a binary heap ordered by time, where
/// an item may be queued again (the newest entry counts; the caller keeps
/// a generation to tell stale entries apart).
struct DueQueue<Item> {
    private var heap: [(time: Double, item: Item)] = []

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }
    /// The earliest time queued.
    var nextTime: Double? { heap.first?.time }

    mutating func push(_ item: Item, at time: Double) {
        heap.append((time, item))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].time < heap[parent].time else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest item if its time is at or before `now`.
    mutating func pop(dueBy now: Double) -> Item? {
        guard let first = heap.first, first.time <= now else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < heap.count && heap[left].time < heap[smallest].time { smallest = left }
                if right < heap.count && heap[right].time < heap[smallest].time { smallest = right }
                if smallest == parent { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first.item
    }
}
