/// A fixed number of the latest values, oldest first: the dashboard's last hour of throughput, and the
/// few recent samples each rate is taken over. Appending past `capacity` forgets the oldest.
struct ThroughputRing<Element: Sendable>: Sendable {
    let capacity: Int
    private var storage: [Element] = []
    private var start = 0

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        storage.reserveCapacity(capacity)
    }

    mutating func append(_ element: Element) {
        if storage.count < capacity {
            storage.append(element)
        } else {
            storage[start] = element
            start = (start + 1) % capacity
        }
    }

    var elements: [Element] { Array(storage[start...] + storage[..<start]) }
    var count: Int { storage.count }
    var first: Element? { storage.isEmpty ? nil : storage[start] }
    var last: Element? { storage.isEmpty ? nil : storage[(start + storage.count - 1) % storage.count] }
}
