/// A fixed number of the latest values, oldest first: the rate book's last hour of throughput, and the
/// few recent samples each rate is taken over. Appending past `capacity` forgets the oldest.
public struct ThroughputRing<Element: Sendable>: Sendable {
    public let capacity: Int
    private var storage: [Element] = []
    private var start = 0

    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        storage.reserveCapacity(capacity)
    }

    public mutating func append(_ element: Element) {
        if storage.count < capacity {
            storage.append(element)
        } else {
            storage[start] = element
            start = (start + 1) % capacity
        }
    }

    public var elements: [Element] { Array(storage[start...] + storage[..<start]) }
    public var count: Int { storage.count }
    public var first: Element? { storage.isEmpty ? nil : storage[start] }
    public var last: Element? { storage.isEmpty ? nil : storage[(start + storage.count - 1) % storage.count] }
}
