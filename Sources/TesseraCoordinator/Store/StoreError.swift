import GRDB
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

extension StoreError {
    /// SQLite could not write because the disk holding the store is full (SQLITE_FULL, or an I/O error
    /// whose cause is ENOSPC).
    public var isOutOfSpace: Bool {
        guard case .database(_, let underlying) = self, let error = underlying as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_FULL
            || error.extendedResultCode == .SQLITE_IOERR_WRITE
                && "\(error)".contains("No space")
    }
}

/// Whether an error from the store or the spool means the coordinator's data folder is full.
func isDataFolderFull(_ error: any Error) -> Bool {
    (error as? StoreError)?.isOutOfSpace == true || (error as? SpoolError)?.isOutOfSpace == true
}

/// What a job fails with when the data folder is full: the cause, and what to do.
func dataFolderFullMessage(_ error: any Error) -> String {
    "the coordinator's data folder is full (\(error)); free space there, then submit the job again"
}
