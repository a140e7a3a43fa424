import TesseraCore

// The closed sets that label Tessera's metrics. Every value is exported at 0 from the start, so a
// dashboard's series and an alert's `rate()` exist before the first event; no label ever carries a
// job id, a path or an error text.

/// Why a worker's finished segment was not used (`tessera_frames_discarded_total{reason}`).
public enum FrameDiscard: String, CaseIterable, Sendable {
    /// Another attempt of the segment (a retry after a stall, a lost worker or a failure) was taken.
    case retry
    /// The job was cancelled, or failed or stopped, before the result came.
    case cancelled
    /// The attempt whose result was already taken delivered it again.
    case duplicate
}

/// How a task reached its worker (`tessera_tasks_sent_total{transport}`): with its source packets, or by
/// reference for a worker that reads the source itself.
public enum TaskTransport: String, CaseIterable, Sendable, Codable {
    case packets, reference
}

/// What became of backup attempts (`tessera_backup_attempts_total{outcome}`): each one `started`, then
/// `won` (its result was taken first) or `wasted` (the slower attempt finished first, or it failed).
public enum BackupOutcome: String, CaseIterable, Sendable, Codable {
    case started, won, wasted
}

/// A worker's result checked on the coordinator (`tessera_result_checks_total{verdict}`): it passed, it was
/// refused (the worker blamed, the segment given to another), or the coordinator could not check it (kept
/// unchecked).
public enum CheckVerdict: String, CaseIterable, Sendable {
    case passed, refused, unchecked
}

/// Why a segment's attempt failed and was given to another worker or failed its job
/// (`tessera_segment_failures_total{reason}`). Segments handed back unstarted are not failures.
public enum SegmentFailureReason: String, CaseIterable, Sendable {
    /// The worker reported an error while transcoding.
    case workerError = "worker_error"
    /// The worker went silent (dead, frozen, cut off) while holding it.
    case workerLost = "worker_lost"
    /// The worker connected again with a new session while holding it.
    case workerReconnected = "worker_reconnected"
    /// No progress for the stall timeout.
    case stalled
    /// The result came back unusable (no frames, bad codec parameters) or could not be kept.
    case unusableResult = "unusable_result"
}

/// Which frame processor encoded a segment (`tessera_segment_encode_duration_seconds{backend}`): the
/// worker's processor, folded onto the backends people choose.
public enum EncodeBackend: String, CaseIterable, Sendable {
    case vulkan, cpu
    /// No colour conversion or scaling was needed.
    case none
    /// A name this coordinator does not know (a newer worker).
    case other

    public init(_ processor: ProcessorKind) {
        switch processor {
        case .vulkan: self = .vulkan
        case .simd, .swscale: self = .cpu
        case .none: self = .none
        case .other: self = .other
        }
    }
}

extension JobState {
    /// The states a job ends in (`tessera_jobs_finished_total{state}`).
    static var terminalCases: [JobState] { allCases.filter(\.isTerminal) }
}

/// What a job makes, as a label: a plain transcode, a retimed export or a composition.
public enum JobKind: String, CaseIterable, Sendable {
    case transcode, retime, composition

    /// The kind of the job a segment's work belongs to.
    public init(_ work: SegmentWork) {
        self = work.layer != nil ? .composition : work.retime != nil ? .retime : .transcode
    }
}
