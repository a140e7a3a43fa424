import Foundation

/// Blocking work (libav* calls, joins of worker threads, SQLite, fence waits) awaited from async code
/// without holding one of the cooperative pool's threads: there is one per core, two on a small
/// machine, and a blocked one stalls every task queued behind it.
public enum DedicatedThread {
    /// Runs `body` on a thread of its own and returns (or throws) what it did.
    public static func run<T: Sendable>(
        name: String = "tessera.blocking", _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
            let thread = Thread { c.resume(with: Result { try body() }) }
            thread.name = name
            thread.start()
        }
    }
}
