import TesseraCore

/// Why a `JobStore` call failed.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    /// No job with this id.
    case notFound(String)
    /// `JobState.canMove(to:)` forbids this move.
    case illegalTransition(from: JobState, to: JobState)
    /// `setPlan` got a plan that does not match the segments already stored (the source changed since
    /// the job was first planned), or a plan that cannot be stored (no segments, negative frame counts).
    case invalidPlan(String)
    /// SQLite (or JSON coding of a stored column) failed; the message names the operation.
    case database(operation: String, underlying: any Error)

    public var description: String {
        switch self {
        case .notFound(let id): "no job with id '\(id)'"
        case .illegalTransition(let from, let to): "a job cannot move from \(from.rawValue) to \(to.rawValue)"
        case .invalidPlan(let message): message
        case .database(let operation, let underlying): "job store: \(operation) failed: \(underlying)"
        }
    }
}
