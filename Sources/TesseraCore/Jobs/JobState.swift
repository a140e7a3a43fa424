/// Where a job is in its life. Terminal states are `completed`, `failed` and `cancelled`.
///
/// ```
/// queued → planning → running → stitching → verifying → completed
///    └────────┴──────────┴──────────┴───────────┴──→ failed | cancelled
/// ```
public enum JobState: String, Sendable, Hashable, Codable, CaseIterable {
    case queued, planning, running, stitching, verifying, completed, failed, cancelled

    public var isTerminal: Bool { self == .completed || self == .failed || self == .cancelled }

    /// Whether the state machine allows `self → next`.
    public func canMove(to next: JobState) -> Bool {
        switch (self, next) {
        case (.queued, .planning), (.planning, .running), (.running, .stitching), (.stitching, .verifying),
            (.verifying, .completed):
            return true
        case (_, .failed), (_, .cancelled):
            return !isTerminal
        // A coordinator restarted mid-job starts that job's pipeline over from planning; finished
        // segments stay spooled and are not redone.
        case (.running, .planning), (.stitching, .planning), (.verifying, .planning):
            return true
        default:
            return false
        }
    }
}
