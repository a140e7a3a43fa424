import Foundation

/// Runs async work to completion from a synchronous command, blocking the calling thread until the
/// work is done.
///
/// The root command is synchronous (commands run blocking libav* work on the main thread), while
/// the coordinator client is async. Blocking is safe here because the caller is the main thread,
/// which is not one of the cooperative pool's threads: the work runs on the pool in a detached task
/// (no actor, so it never needs the blocked main thread) and the pool keeps all its threads. Called
/// from a pool thread it could starve the pool, hence the precondition.
///
/// - Throws: whatever `work` throws.
func blockingAwait<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    precondition(Thread.isMainThread, "blockingAwait blocks its thread; call it only from the main thread")
    let outcome = Outcome<T>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do {
            outcome.set(.success(try await work()))
        } catch {
            outcome.set(.failure(error))
        }
        done.signal()
    }
    done.wait()
    return try outcome.get()
}

/// The result handed from the task to the waiting thread. `@unchecked Sendable`: written once by the
/// task before it signals, read by the waiter after; the lock orders the two.
private final class Outcome<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?

    func set(_ result: Result<T, any Error>) { lock.withLock { self.result = result } }

    func get() throws -> T {
        guard let result = lock.withLock({ self.result }) else { preconditionFailure("read before the task ended") }
        return try result.get()
    }
}
