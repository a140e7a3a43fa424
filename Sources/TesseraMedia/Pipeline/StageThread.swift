import Foundation
import TesseraAV

/// A pipeline stage on its own OS thread (never Swift's cooperative pool, which blocking libav* calls
/// would starve), joined with `wait()`.
final class StageThread: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let thread: Thread

    /// Starts `body` at once; an error it throws is recorded in `failure`, which stops every stage.
    init(_ name: String, failure: PipelineFailure, _ body: @escaping @Sendable () throws(MediaError) -> Void) {
        let done = self.done
        thread = Thread {
            do throws(MediaError) { try body() } catch { failure.record(error) }
            done.signal()
        }
        thread.name = name
        thread.stackSize = 4 << 20
        thread.start()
    }

    /// Set once a wait has seen the stage end: the semaphore's single signal is consumed by that wait.
    private var finished = false

    func wait() {
        if finished { return }
        done.wait()
        finished = true
    }

    /// Waits up to `seconds`; true when the stage has finished (and on every later call).
    func wait(seconds: Double) -> Bool {
        if finished { return true }
        finished = done.wait(timeout: .now() + seconds) == .success
        return finished
    }
}

/// The first error of any stage; recording it cancels every registered queue so all stages unwind.
final class PipelineFailure: @unchecked Sendable {
    private let lock = NSLock()
    private var first: MediaError?
    private var cancellers: [() -> Void] = []

    var error: MediaError? { lock.withLock { first } }

    func record(_ error: MediaError) {
        let toCancel: [() -> Void] = lock.withLock {
            guard first == nil else { return [] }
            first = error
            return cancellers
        }
        toCancel.forEach { $0() }
    }

    /// Registers a queue to cancel when any stage fails.
    func watch<T>(_ queue: BoundedQueue<T>) { watchCancel { queue.cancel() } }

    /// Registers something to wake or stop when any stage fails (at once if one already has).
    func watchCancel(_ cancel: @escaping () -> Void) {
        let cancelNow: Bool = lock.withLock {
            cancellers.append(cancel)
            return first != nil
        }
        if cancelNow { cancel() }
    }

    /// Throws the recorded error, if any.
    func check() throws(MediaError) {
        if let error { throw error }
    }
}
