/// Events on a virtual clock, earliest first; events at the same time in the order they were added.
struct EventQueue<Event> {
    private var heap: [(at: Double, order: Int, event: Event)] = []
    private var added = 0

    var isEmpty: Bool { heap.isEmpty }

    mutating func add(_ event: Event, at time: Double) {
        heap.append((time, added, event))
        added += 1
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// The earliest event and its time.
    mutating func next() -> (at: Double, event: Event)? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let first = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var least = parent
            if left < heap.count, Self.before(heap[left], heap[least]) { least = left }
            if right < heap.count, Self.before(heap[right], heap[least]) { least = right }
            guard least != parent else { break }
            heap.swapAt(parent, least)
            parent = least
        }
        return (first.at, first.event)
    }

    private static func before(
        _ a: (at: Double, order: Int, event: Event), _ b: (at: Double, order: Int, event: Event)
    )
        -> Bool
    {
        a.at < b.at || (a.at == b.at && a.order < b.order)
    }
}
