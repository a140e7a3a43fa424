import Foundation
import TesseraCore

/// What the coordinator offers people and scripts; the HTTP API (HTTP/) is a thin layer over it.
///
/// Every method is async and never blocks Swift's cooperative pool: store access goes through
/// GRDB's own queue, and the dispatcher runs on its own thread.
public protocol FarmService: Sendable {
    /// Validates and queues a job. Throws `FarmError` for a source outside the media roots, a missing
    /// upload, an output outside the output root, or settings that cannot work.
    func submit(_ request: JobRequest) async throws(FarmError) -> JobStatus
    func job(_ id: String) async throws(FarmError) -> JobStatus
    /// Newest first.
    func jobs() async throws(FarmError) -> [JobStatus]
    /// `limit` jobs from `offset`, newest first: a page of the list, whatever the store holds.
    func jobs(limit: Int, offset: Int) async throws(FarmError) -> [JobStatus]
    /// Jobs not finished (newest first), and `limit` finished ones from `offset`, most recently finished
    /// first: a page of history, whatever the store holds.
    func recentJobs(
        finishedLimit limit: Int, offset: Int
    ) async throws(FarmError) -> (
        active: [JobStatus], finished: [JobStatus]
    )
    /// Cancels a job that is not finished; its running tasks are withdrawn from the workers.
    func cancel(_ id: String) async throws(FarmError) -> JobStatus
    func workers() async -> [WorkerStatus]
    /// Drains, pauses or resumes a worker (see `WorkerControl`) and answers its status as the next listing
    /// shows it. Throws `FarmError.notFound` for a worker that is not connected.
    func control(worker id: String, _ action: WorkerControl) async throws(FarmError) -> WorkerStatus
    /// The job's segments in plan order, each with its state, attempts, worker and errors (the segment map).
    /// Throws `FarmError.notFound` for an unknown job.
    func segments(of id: String) async throws(FarmError) -> [SegmentStatus]
    /// A PNG (at most 160×90) of the frame a finished segment starts with, taken from the job's verified
    /// output by `ImageGenerator`. Throws `FarmError.notFound` for an unknown job or segment, `.conflict`
    /// while the job has no output yet (thumbnails come from the stitched file, not the spool).
    func thumbnail(job id: String, segment: Int) async throws(FarmError) -> Data
    /// The finished output of a completed job, for download.
    /// A file of a completed job's streaming package (`GET /v1/jobs/{id}/package/{path}`); `.notFound` for
    /// a job without a package, or a path that names no file inside it.
    func packageFile(of id: String, path: String) async throws(FarmError) -> URL
    func outputFile(of id: String) async throws(FarmError) -> URL
    /// A source file under the media roots or the uploads (`GET /v1/media/{path}`, for workers that read
    /// the source over HTTP): `.forbidden` outside them, `.notFound` for no such regular file.
    func mediaFile(_ path: String) async throws(FarmError) -> URL
    /// Moves an uploaded file (already written to `temporaryFile` in the data folder) into the upload
    /// store and returns its id for `JobRequest.uploadID`.
    func adoptUpload(_ temporaryFile: URL, filename: String) async throws(FarmError) -> String
    /// The folder uploads are first written to (same file system as the upload store).
    var uploadStaging: URL { get }
    /// The farm's metrics, rendered at `/metrics`; the HTTP API records its requests into them too.
    var metrics: any MetricsExposition { get }
    /// The farm at a glance: its rates (the rate book), queue, workers and jobs by state (`GET /v1/farm`).
    func summary() async -> FarmSummary
    /// Brings what describes the farm now (queue depth, workers, jobs by state) up to date in `metrics`;
    /// called before each scrape.
    func updateMetrics() async
}

extension FarmService {
    /// From `jobs()`, for services with no cheaper way.
    public func jobs(limit: Int, offset: Int) async throws(FarmError) -> [JobStatus] {
        let all = try await jobs()
        let start = min(max(0, offset), all.count)
        return Array(all[start..<min(all.count, start + max(0, limit))])
    }

    /// From `jobs()`, for services with no cheaper way.
    public func recentJobs(
        finishedLimit limit: Int, offset: Int
    ) async throws(FarmError) -> (
        active: [JobStatus], finished: [JobStatus]
    ) {
        let all = try await jobs()
        let finished = all.filter(\.state.isTerminal).sorted { $0.updatedAt > $1.updatedAt }
        let start = min(max(0, offset), finished.count)
        return (
            all.filter { !$0.state.isTerminal }, Array(finished[start..<min(finished.count, start + max(0, limit))])
        )
    }
}

/// Why a request to the farm failed, with the HTTP status the API answers.
public struct FarmError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, Codable {
        case notFound, invalidRequest, forbidden, conflict, unavailable, internalError
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    public var httpStatus: Int {
        switch kind {
        case .notFound: 404
        case .invalidRequest: 400
        case .forbidden: 403
        case .conflict: 409
        case .unavailable: 503
        case .internalError: 500
        }
    }
}
