import Foundation
import Synchronization
import Testing

@testable import TesseraMedia

/// The pipeline's queues (`BoundedQueue`) with a byte budget: a push waits while the items queued hold
/// the budget, an item larger than the whole budget passes alone, and the order is kept.
struct BoundedQueueTests {
    @Test func aPushWaitsForBytesAndOrderIsKept() throws {
        let queue = BoundedQueue<Int>(capacity: 8, maxBytes: 100) { $0 }
        #expect(queue.push(60))
        #expect(queue.queuedBytes == 60)
        let pushed = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = queue.push(50)  // 110 > 100: waits for the first to go
            pushed.store(true, ordering: .sequentiallyConsistent)
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 0.3) == .timedOut, "a push past the budget went through")
        #expect(!pushed.load(ordering: .sequentiallyConsistent) && queue.queuedBytes == 60)
        #expect(queue.pop() == 60)
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(queue.queuedBytes == 50)
        // Larger than the whole budget: it waits for an empty queue, then passes alone.
        let big = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = queue.push(500)
            big.signal()
        }
        #expect(queue.pop() == 50)
        #expect(big.wait(timeout: .now() + 30) == .success)
        #expect(queue.queuedBytes == 500)
        queue.close()
        #expect(queue.pop() == 500 && queue.pop() == nil && queue.queuedBytes == 0)
    }

    @Test func theCountStillBounds() {
        let queue = BoundedQueue<Int>(capacity: 2, maxBytes: 1 << 30) { _ in 1 }
        #expect(queue.push(1) && queue.push(2))
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = queue.push(3)
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 0.3) == .timedOut)
        #expect(queue.pop() == 1)
        #expect(done.wait(timeout: .now() + 30) == .success)
        queue.cancel()
        #expect(queue.pop() == nil && queue.queuedBytes == 0)
    }
}
