import Foundation
import NIOConcurrencyHelpers

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
    // Written once by the task before it signals, read by this thread after; the lock orders the two.
    let outcome = NIOLockedValueBox<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let result: Result<T, any Error>
        do {
            result = .success(try await work())
        } catch {
            result = .failure(error)
        }
        outcome.withLockedValue { $0 = result }
        done.signal()
    }
    done.wait()
    guard let result = outcome.withLockedValue({ $0 }) else { preconditionFailure("read before the task ended") }
    return try result.get()
}
