import Foundation
import TesseraCoordinator
import TesseraCore
import TesseraHTTP

/// A `FarmService` kept in memory, so the HTTP tests exercise the API layer alone (the farm's own
/// end-to-end tests run the real coordinator). Outputs and uploads are real files in a folder.
actor MemoryFarm: FarmService {
    nonisolated let folder: URL
    nonisolated let uploadStaging: URL
    private(set) var requests: [String: JobRequest] = [:]
    private var statuses: [String: JobStatus] = [:]
    private var order: [String] = []
    private var outputs: [String: URL] = [:]
    private(set) var uploads: [String: (filename: String, file: URL)] = [:]
    private var workerList: [WorkerStatus] = []
    private var snapshot = FarmSummary(
        framesPerSecond: 0, realTime: 0, queuedSegments: 0, runningSegments: 0, workers: 0, busyWorkers: 0,
        jobs: [:], points: [])
    nonisolated let farmMetrics = FarmMetrics()
    nonisolated var metrics: any MetricsExposition { farmMetrics }
    /// Thrown by the next call that can throw, to check each FarmError's mapping.
    private var nextError: FarmError?
    /// How long `jobs()` takes, to have a request in flight.
    private var jobsDelay = Duration.zero

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-http-\(UUID().uuidString)")
        uploadStaging = folder.appendingPathComponent("staging")
        try FileManager.default.createDirectory(at: uploadStaging, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("uploads"),
            withIntermediateDirectories: true)
    }

    nonisolated func remove() { try? FileManager.default.removeItem(at: folder) }

    func setOutput(_ file: URL, of id: String) { outputs[id] = file }
    func setWorkers(_ workers: [WorkerStatus]) { workerList = workers }
    func setSnapshot(_ snapshot: FarmSummary) { self.snapshot = snapshot }
    func failNextCall(with error: FarmError) { nextError = error }
    func setJobsDelay(_ delay: Duration) { jobsDelay = delay }

    private func check() throws(FarmError) {
        if let error = nextError {
            nextError = nil
            throw error
        }
    }

    func submit(_ request: JobRequest) throws(FarmError) -> JobStatus {
        try check()
        guard let source = request.source ?? request.uploadID.flatMap({ uploads[$0]?.file.path }) else {
            throw FarmError(
                request.uploadID == nil ? .invalidRequest : .notFound,
                request.uploadID.map { "no upload \($0)" } ?? "give a source or an uploadID")
        }
        let id = "job-\(order.count + 1)"
        let now = Date().timeIntervalSince1970
        let status = JobStatus(
            id: id, state: .queued, priority: request.priority, source: source,
            output: request.output ?? "\(id).mp4", segmentsTotal: 0, segmentsDone: 0,
            framesTotal: 0, framesDone: 0, framesPerSecond: 0, elapsedSeconds: nil,
            etaSeconds: nil, error: nil, createdAt: now, updatedAt: now)
        requests[id] = request
        statuses[id] = status
        order.append(id)
        return status
    }

    func job(_ id: String) throws(FarmError) -> JobStatus {
        try check()
        guard let status = statuses[id] else { throw FarmError(.notFound, "no job \(id)") }
        return status
    }

    func jobs() async throws(FarmError) -> [JobStatus] {
        try check()
        if jobsDelay > .zero { try? await Task.sleep(for: jobsDelay) }
        return order.reversed().compactMap { statuses[$0] }
    }

    func cancel(_ id: String) throws(FarmError) -> JobStatus {
        var status = try job(id)
        guard !status.state.isTerminal else { throw FarmError(.conflict, "job \(id) already ended") }
        status.state = .cancelled
        statuses[id] = status
        return status
    }

    func workers() -> [WorkerStatus] { workerList }

    func control(worker id: String, _ action: WorkerControl) throws(FarmError) -> WorkerStatus {
        guard let i = workerList.firstIndex(where: { $0.id == id }) else {
            throw FarmError(.notFound, "no worker \(id) is connected")
        }
        workerList[i].state = action == .drain ? .draining : action == .pause ? .paused : .idle
        return workerList[i]
    }

    func thumbnail(job id: String, segment: Int) throws(FarmError) -> Data {
        throw FarmError(.notFound, "no job \(id)")
    }

    func segments(of id: String) throws(FarmError) -> [SegmentStatus] {
        guard statuses[id] != nil else { throw FarmError(.notFound, "no job \(id)") }
        return []
    }

    func outputFile(of id: String) throws(FarmError) -> URL {
        _ = try job(id)
        guard let file = outputs[id] else { throw FarmError(.conflict, "job \(id) has no output yet") }
        return file
    }

    /// Files under `folder/media` only, as a coordinator's media root.
    func mediaFile(_ path: String) throws(FarmError) -> URL {
        let root = folder.appendingPathComponent("media").standardizedFileURL.path + "/"
        let file = URL(fileURLWithPath: path).standardizedFileURL
        guard file.path.hasPrefix(root) else { throw FarmError(.forbidden, "\(path) is outside the media roots") }
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw FarmError(.notFound, "\(path): no such file")
        }
        return file
    }

    func packageFile(of id: String, path: String) throws(FarmError) -> URL {
        _ = try job(id)
        throw FarmError(.notFound, "job \(id) made a file, not a package")
    }

    func adoptUpload(_ temporaryFile: URL, filename: String) throws(FarmError) -> String {
        try check()
        let id = "up-\(uploads.count + 1)"
        let destination = folder.appendingPathComponent("uploads/\(id)-\(filename)")
        do {
            try FileManager.default.moveItem(at: temporaryFile, to: destination)
        } catch {
            throw FarmError(.internalError, "cannot keep the upload: \(error)")
        }
        uploads[id] = (filename, destination)
        return id
    }

    func summary() -> FarmSummary { snapshot }
    func updateMetrics() { farmMetrics.update(snapshot) }
}
