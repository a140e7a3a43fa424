import Foundation

enum BenchError: Error {
    case timeout
    case unexpected(String)
}

/// Bytes received by one thread, and the moment it finished, for the main thread to wait on.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private let finished = DispatchSemaphore(value: 0)
    private var bytes = 0
    private var failure: String?

    func add(_ count: Int) { lock.withLock { bytes += count } }
    func fail(_ message: String) {
        lock.withLock { failure = failure ?? message }
        finished.signal()
    }
    func finish() { finished.signal() }
    var total: Int { lock.withLock { bytes } }

    func wait() throws {
        finished.wait()
        if let failure = lock.withLock({ failure }) { throw BenchError.unexpected(failure) }
    }
}

/// Latency samples in nanoseconds, appended by one thread and read after it finished.
final class Samples: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [UInt64]

    init(capacity: Int) {
        values = []
        values.reserveCapacity(capacity)
    }
    func append(_ value: UInt64) { lock.withLock { values.append(value) } }
    var sorted: [UInt64] { lock.withLock { values.sorted() } }
}
