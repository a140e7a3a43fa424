/// What an operator can ask of a worker (`POST /v1/workers/{id}/drain|pause|resume`,
/// `tessera workers drain|pause|resume ID`).
///
/// The coordinator acts on it itself: the wire protocol has no message that tells a worker to drain, so a
/// drained or paused worker is simply leased nothing new while it finishes (and keeps reporting) what it
/// holds. The mode belongs to the worker id, so it outlasts a reconnect; `resume` clears it.
public enum WorkerControl: String, Sendable, Hashable, Codable, CaseIterable {
    /// Take nothing new, finish what is held: before taking the machine away. Shown as `draining`.
    case drain
    /// Take nothing new for now, keeping what is held. Shown as `paused`.
    case pause
    /// Lease to it again.
    case resume
}
