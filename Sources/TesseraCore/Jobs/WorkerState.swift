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
}
