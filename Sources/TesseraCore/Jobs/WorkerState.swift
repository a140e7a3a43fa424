/// What a connected worker is doing, as `/v1/workers` and `tessera workers` show it.
public enum WorkerState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Connected, holding no task.
    case idle
    /// Holding at least one task.
    case busy
    /// Finishing what it holds, taking nothing new (SIGTERM or an operator's drain).
    case draining
    /// Failed segments in a row: given no new work for a while.
    case quarantined
    /// An operator paused it: it keeps what it holds and is given nothing new until resumed.
    case paused
    /// Went silent for longer than heartbeat × liveness (or reconnected while holding work): its segments
    /// went back to the queue. Shown for an hour, or until a worker with its id says Hello again.
    case lost

    /// Whether the coordinator may lease new segments to a worker in this state.
    public var takesWork: Bool { self == .idle || self == .busy }
}
