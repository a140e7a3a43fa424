import Foundation
import TesseraAV
import TesseraCore
import TesseraHTTP
import TesseraMedia

/// What people and scripts can ask of the coordinator (the HTTP API and `tessera run` call these).
extension Coordinator: FarmService {
    public func submit(_ request: JobRequest) async throws(FarmError) -> JobStatus {
        do throws(JobRequestError) { try request.validate() } catch {
            throw FarmError(.invalidRequest, error.description)
        }
        if let spec = request.spec { return try await submit(request, composition: spec) }
        // A stored job keeps both (the upload id and the path it resolved to); a new request names one.
        guard request.source == nil || request.uploadID == nil else {
            throw FarmError(.invalidRequest, "source: give a source or an uploadID, not both")
        }
        let source: String
        if let upload = request.uploadID {
            guard upload.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
                throw FarmError(.invalidRequest, "uploadID: malformed upload id \(JobRequestError.quoted(upload))")
            }
            guard
                let name = try? FileManager.default.contentsOfDirectory(atPath: uploads.path)
                    .first(where: { $0.hasPrefix(upload + "-") || $0 == upload })
            else { throw FarmError(.notFound, "no upload \(upload)") }
            source = uploads.appendingPathComponent(name).path
        } else if let path = request.source {
            source = try policy.source(path)
        } else {
            throw FarmError(.invalidRequest, "source: a job needs a source path or an uploadID")
        }
        let settings = JobRunner.settings(for: request)
        let type = settings.fileType ?? request.output.flatMap(FileType.inferred(fromPath:)) ?? .mp4
        guard settings.video != nil, !settings.passthrough else {
            throw FarmError(
                .invalidRequest,
                "settings: farm jobs transcode video; use `tessera transcode` for passthrough or audio-only")
        }
        try await checkEncoding(settings, fileType: type)
        // The source is media with a video track; its time range, retiming and audio choice fit it; what
        // the job makes is within a job's bounds (a probe of the container's header, not a scan).
        let retiming: Retiming?
        do throws(JobRequestError) {
            retiming = try request.retiming?.retiming(naming: .json(prefix: "retiming"))
        } catch {
            throw FarmError(.invalidRequest, error.description)
        }
        let input = JobPreflight.Input.source(
            path: source, range: request.timeRange, retiming: retiming,
            audioTracks: settings.audio != nil ? settings.audioTracks : nil)
        _ = try await preflight(input, segmentDuration: request.segmentDuration)
        let output = try outputPath(request, fileType: type)
        var stored = request
        stored.source = source
        stored.fileType = type
        return try await enqueue(stored, source: source, output: output, what: source)
    }

    /// `JobPreflight` on a dedicated thread (it opens files), its failures as 400s naming the field.
    func preflight(_ input: JobPreflight.Input, segmentDuration: Double?) async throws(FarmError) -> JobPreflight {
        let seconds = segmentDuration ?? farm.defaultSegmentDuration
        do {
            return try await DedicatedThread.run {
                try JobPreflight.check(input, naming: .request, segmentDuration: seconds)
            }
        } catch let failure as JobPreflight.Failure {
            switch (failure, input) {
            case (.media(let error), .source):
                throw FarmError(.invalidRequest, "source: \(error)")
            case (.media(let error), .composition):
                // The export names the spec's field ("spec: assets[1].transform.scale: ..."); an asset that
                // cannot be opened, its path.
                throw FarmError(.invalidRequest, error.message.hasPrefix("spec: ") ? error.message : "spec: \(error)")
            case (.noVideo(let path), _):
                throw FarmError(.invalidRequest, "source: \(path) has no video track")
            case (.request(let error), _):
                throw FarmError(.invalidRequest, error.description)
            }
        } catch {
            throw FarmError(.internalError, "checking the job: \(error)")
        }
    }

    /// The checks every request's settings pass, a source's or a composition's: the container holds
    /// them, and the encoders open with them (or the job is refused now rather than after its work).
    func checkEncoding(_ settings: OutputSettings, fileType type: FileType) async throws(FarmError) {
        if let why = settings.containerProblem(type) { throw FarmError(.invalidRequest, "fileType: \(why)") }
        do {
            try await DedicatedThread.run { try EncoderCheck.check(settings, fileType: type) }
        } catch {
            throw FarmError(.invalidRequest, "settings: \(error)")
        }
    }

    /// Where a request's output goes, under the output root; refused when it exists without `overwrite`.
    func outputPath(_ request: JobRequest, fileType type: FileType) throws(FarmError) -> String {
        let output = try policy.output(
            request.output, name: UUID().uuidString.prefix(8).lowercased(),
            fileExtension: request.package == nil ? type.rawValue : nil)
        if !request.overwrite, FileManager.default.fileExists(atPath: output) {
            throw FarmError(.conflict, "\(output) exists; submit with overwrite to replace it")
        }
        return output
    }

    /// Stores a checked request (its parallelism filled in from the workers taking work), counts it and
    /// starts its runner.
    /// - Parameter what: how the log names the job's input.
    func enqueue(
        _ request: JobRequest, source: String, output: String, what: String
    ) async throws(FarmError)
        -> JobStatus
    {
        var stored = request
        stored.parallelism = request.parallelism ?? max(1, workerStatuses.filter { $0.state.takesWork }.count)
        let record: JobRecord
        let store = farm.store, toStore = stored
        do {
            record = try await store.insertJobAsync(
                request: toStore, source: source, output: output, priority: request.priority)
        } catch {
            throw FarmError(.internalError, "job store: \(error)")
        }
        farm.logger.info("job \(record.id) queued: \(what) → \(output)")
        farm.metrics.jobSubmitted()
        launch(record)
        return status(record)
    }

    public func job(_ id: String) async throws(FarmError) -> JobStatus {
        guard let record = try? await farm.store.jobAsync(id) else { throw FarmError(.notFound, "no job \(id)") }
        var status = status(record)
        let segments = (try? await farm.store.segmentsAsync(of: id)) ?? []
        status.quality = QualityReport(segments: segments.compactMap(\.quality), target: record.request.targetQuality)
        return status
    }

    public func jobs() async throws(FarmError) -> [JobStatus] {
        do { return try await farm.store.jobsAsync().map(status) } catch {
            throw FarmError(.internalError, "job store: \(error)")
        }
    }

    public func jobs(limit: Int, offset: Int) async throws(FarmError) -> [JobStatus] {
        do { return try await farm.store.jobsAsync(limit: limit, offset: offset).map(status) } catch {
            throw FarmError(.internalError, "job store: \(error)")
        }
    }

    public func recentJobs(
        finishedLimit limit: Int, offset: Int
    ) async throws(FarmError) -> (
        active: [JobStatus], finished: [JobStatus]
    ) {
        do {
            let (active, finished) = try await farm.store.recentJobsAsync(finishedLimit: limit, offset: offset)
            return (active.map(status), finished.map(status))
        } catch { throw FarmError(.internalError, "job store: \(error)") }
    }

    public func cancel(_ id: String) async throws(FarmError) -> JobStatus {
        guard let record = try? await farm.store.jobAsync(id) else { throw FarmError(.notFound, "no job \(id)") }
        guard !record.state.isTerminal else { throw FarmError(.conflict, "job \(id) already \(record.state.rawValue)") }
        if let runner = runner(id) {
            runner.stop(.cancel)
            _ = try? await DedicatedThread.run { runner.wait() }
        } else {
            if (try? await farm.store.transitionAsync(id, to: .cancelled)) != nil {
                farm.metrics.jobFinished(.cancelled)
                let spool = farm.spool  // file removal stays off the cooperative pool
                _ = try? await DedicatedThread.run { try spool.remove(jobID: id) }
            }
        }
        return try await job(id)
    }

    public func workers() async -> [WorkerStatus] { workerStatuses }

    public func control(worker id: String, _ action: WorkerControl) async throws(FarmError) -> WorkerStatus {
        guard var status = workerStatuses.first(where: { $0.id == id && $0.state != .lost }) else {
            throw FarmError(.notFound, "no worker \(id.logSafe(limit: 64)) is connected")
        }
        controlWorker(id, action)
        switch action {
        case .drain: status.state = .draining
        case .pause: status.state = .paused
        case .resume: status.state = status.tasks.isEmpty ? .idle : .busy
        }
        return status
    }

    public func segments(of id: String) async throws(FarmError) -> [SegmentStatus] {
        guard (try? await farm.store.jobAsync(id)) != nil else { throw FarmError(.notFound, "no job \(id)") }
        let records: [SegmentRecord]
        do { records = try await farm.store.segmentsAsync(of: id) } catch {
            throw FarmError(.internalError, "job store: \(error)")
        }
        let racing = farm.board.racing(job: id)
        return records.map { Self.segmentStatus($0, racing: racing.contains($0.index)) }
    }

    public func thumbnail(job id: String, segment index: Int) async throws(FarmError) -> Data {
        let status = try await job(id)
        let segments = try await segments(of: id)
        guard segments.contains(where: { $0.index == index }) else {
            throw FarmError(.notFound, "job \(id) has no segment \(index)")
        }
        guard status.state == .completed else {
            throw FarmError(
                .conflict, "job \(id) is \(status.state.rawValue): thumbnails come from its finished output")
        }
        let startFrame = segments.filter { $0.index < index }.reduce(0) { $0 + $1.frames }
        let output = status.output, total = max(1, status.framesTotal)
        let package = status.package
        do {
            return try await thumbnails.thumbnail(.init(job: id, segment: index)) {
                if package != nil { return try Self.packageThumbnail(output, startFrame: startFrame) }
                // Segments are contiguous runs of output frames on a constant grid: frame k starts at
                // duration × k / total.
                let asset = try Asset.load(output, scanPackets: false)
                let seconds = asset.duration.seconds * Double(startFrame) / Double(total)
                let generator = ImageGenerator(path: output)
                generator.maximumSize = (160, 90)
                return try generator.image(at: MediaTime(seconds: seconds, preferredTimescale: 90_000)).png
            }
        } catch is ThumbnailCache.Busy {
            throw FarmError(.unavailable, "too many thumbnails are being made; ask again in a moment")
        } catch {
            throw FarmError(.internalError, "thumbnail of job \(id) segment \(index): \(error)")
        }
    }

    /// The frame at the start of a package's farm segment, from its largest rendition. Frame `startFrame`
    /// lies that many frame durations (the rendition's nominal rate) after the first media segment's start;
    /// the media segments are searched by their own start times (a composition's runs and a retimed
    /// timeline cut farm segments unevenly within them), and the one holding that time and the rendition's
    /// init segment make a file holding the frame.
    static func packageThumbnail(_ folder: String, startFrame: Int) throws -> Data {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        // Video renditions are named WxH (and a codec): the widest first.
        let videos = names.compactMap { name -> (String, Int)? in
            guard let width = Int(name.prefix { $0.isNumber }), name.dropFirst(String(width).count).hasPrefix("x")
            else { return nil }
            return (name, width)
        }
        guard let top = videos.max(by: { $0.1 < $1.1 })?.0 else {
            throw MediaError(.notFound, path: folder, "the package holds no video rendition")
        }
        let rendition = URL(fileURLWithPath: folder).appendingPathComponent(top)
        let header = try Data(contentsOf: rendition.appendingPathComponent(PackagedTrack.initName))
        var count = 0
        while FileManager.default.fileExists(
            atPath: rendition.appendingPathComponent(PackagedTrack.segmentName(count + 1)).path)
        {
            count += 1
        }
        guard count > 0 else { throw MediaError(.notFound, path: rendition.path, "the rendition has no segment") }
        var files: [URL] = []
        defer { for f in files { try? FileManager.default.removeItem(at: f) } }
        /// Media segment `n` (1-based) with the init segment as a file, and its asset.
        func media(_ n: Int) throws -> (file: URL, asset: Asset) {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "tessera-thumb-\(UUID().uuidString).mp4")
            try (header + Data(contentsOf: rendition.appendingPathComponent(PackagedTrack.segmentName(n)))).write(
                to: file)
            files.append(file)
            return (file, try Asset.load(file.path, scanPackets: false))
        }
        let first = try media(1)
        let rate = first.asset.firstVideoTrack?.video?.nominalFrameRate ?? 0
        guard rate > 0 else {
            throw MediaError(.unsupported, path: rendition.path, "the rendition states no frame rate")
        }
        let t =
            first.asset.startTime + MediaTime(seconds: Double(max(0, startFrame)) / rate, preferredTimescale: 90_000)
        // The last media segment starting at or before t.
        var (low, high) = (2, count)
        var found = first
        while low <= high {
            let mid = (low + high) / 2
            let m = try media(mid)
            if m.asset.startTime <= t {
                found = m
                low = mid + 1
            } else {
                high = mid - 1
            }
        }
        let generator = ImageGenerator(path: found.file.path)
        generator.maximumSize = (160, 90)
        // The generator counts from the file's own start.
        return try generator.image(at: max(t - found.asset.startTime, .zero)).png
    }

    /// A stored segment in the map's words: a finished segment that needed more than one attempt (a
    /// counted failure, or a lost or superseded lease) is `retried`, unless a backup attempt finished it
    /// (`backup`); a leased one out at two workers now (`racing`, from the board) is `racing`.
    static func segmentStatus(_ r: SegmentRecord, racing: Bool = false) -> SegmentStatus {
        let state: SegmentStatus.State =
            switch r.state {
            case .pending: .queued
            case .leased: racing ? .racing : .running
            case .failed: .failed
            case .done:
                r.doneByBackup
                    ? .backup : r.failures > 0 || (r.doneAttempt ?? r.attempt) > 1 + r.backups ? .retried : .done
            }
        return SegmentStatus(
            index: r.index, state: state, frames: r.frames, attempts: r.attempt, worker: r.worker,
            encodeSeconds: r.encodeSeconds, errors: r.errors, quality: r.quality)
    }

    public func outputFile(of id: String) async throws(FarmError) -> URL {
        let status = try await job(id)
        guard status.state == .completed else {
            throw FarmError(.conflict, "job \(id) is \(status.state.rawValue), not completed")
        }
        guard FileManager.default.fileExists(atPath: status.output) else {
            throw FarmError(.notFound, "job \(id)'s output \(status.output) is gone")
        }
        return URL(fileURLWithPath: status.output)
    }

    public func mediaFile(_ path: String) async throws(FarmError) -> URL {
        let resolved = try policy.source(path)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: resolved, isDirectory: &isFolder), !isFolder.boolValue else {
            throw FarmError(.notFound, "\(JobRequestError.quoted(path)) is not a file")
        }
        return URL(fileURLWithPath: resolved)
    }

    public func packageFile(of id: String, path: String) async throws(FarmError) -> URL {
        let folder = URL(fileURLWithPath: try await outputFile(of: id).path)
        guard try await job(id).package != nil else {
            throw FarmError(.notFound, "job \(id) made a file, not a package")
        }
        // A package's names: folders and files of letters, digits, '.', '-' and '_', never '..'.
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.count <= 4,
            parts.allSatisfy({ p in
                !p.isEmpty && p.count <= 128 && p != "." && p != ".."
                    && p.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
            })
        else { throw FarmError(.notFound, "no file \(JobRequestError.quoted(path)) in job \(id)'s package") }
        let file = folder.appendingPathComponent(path)
        let resolved = file.resolvingSymlinksInPath().path
        var isFolder: ObjCBool = false
        guard resolved.hasPrefix(folder.resolvingSymlinksInPath().path + "/"),
            FileManager.default.fileExists(atPath: resolved, isDirectory: &isFolder), !isFolder.boolValue
        else { throw FarmError(.notFound, "no file \(JobRequestError.quoted(path)) in job \(id)'s package") }
        return URL(fileURLWithPath: resolved)
    }

    public func adoptUpload(_ temporaryFile: URL, filename: String) async throws(FarmError) -> String {
        let id = "u-" + UUID().uuidString.prefix(12).lowercased()
        let safe = String(
            URL(fileURLWithPath: filename).lastPathComponent.map {
                $0.isLetter || $0.isNumber || ".-_".contains($0) ? $0 : "_"
            })
        let destination = uploads.appendingPathComponent("\(id)-\(safe.isEmpty ? "upload" : safe)")
        do { try FileManager.default.moveItem(at: temporaryFile, to: destination) } catch {
            throw FarmError(.internalError, "cannot store the upload: \(error.localizedDescription)")
        }
        return id
    }

    public func updateMetrics() async { farm.metrics.update(await summary()) }

    public func summary() async -> FarmSummary {
        // Counted by the store, and only unfinished jobs read: a scrape costs the same with 10,000 jobs
        // of history as with none.
        let byState = (try? await farm.store.jobCountsAsync()) ?? [:]
        let active = (try? await farm.store.recentJobsAsync(finishedLimit: 0, offset: 0))?.active ?? []
        var queued = 0
        for r in active {
            if r.segmentsTotal > 0 {
                queued += max(0, r.segmentsTotal - (farm.board.frames(job: r.id)?.segmentsFinished ?? 0))
            }
        }
        let counts = farm.board.counts
        let ws = workerStatuses.filter { $0.state != .lost }
        let rates = farm.rates.farm
        let backups = farm.metrics.backups
        return FarmSummary(
            framesPerSecond: rates.framesPerSecond, realTime: rates.realTime,
            queuedSegments: max(0, queued - counts.inFlight), runningSegments: counts.inFlight, workers: ws.count,
            busyWorkers: ws.filter(\.isBusy).count,
            jobs: Dictionary(uniqueKeysWithValues: JobState.allCases.map { ($0.rawValue, byState[$0] ?? 0) }),
            points: rates.points,
            backups: .init(
                started: backups[.started] ?? 0, won: backups[.won] ?? 0, wasted: backups[.wasted] ?? 0))
    }

    /// A job as the API shows it: the store's record plus live progress from the board, and its rate from
    /// the rate book while it runs (over its life once it has ended, or before the book has two samples).
    func status(_ r: JobRecord) -> JobStatus {
        let now = Date().timeIntervalSince1970
        let live = farm.board.frames(job: r.id)
        let framesDone =
            r.state == .completed ? r.framesTotal : (live.map { $0.finished + $0.inFlight } ?? r.framesDone)
        let elapsed = r.startedAt.map { (r.finishedAt ?? now) - $0 }
        let average = elapsed.map { $0 > 0 ? Double(framesDone) / $0 : 0 } ?? 0
        let fps = ((r.state.isTerminal ? nil : farm.rates.job(r.id)) ?? average).rounded(places: 1)
        let eta: Double? =
            fps > 0 && !r.state.isTerminal && r.framesTotal > 0
            ? Double(max(0, r.framesTotal - framesDone)) / fps : nil
        var status = JobStatus(
            id: r.id, state: r.state, priority: r.priority, source: r.source, output: r.output,
            segmentsTotal: r.segmentsTotal,
            segmentsDone: r.state == .completed ? r.segmentsTotal : (live?.segmentsFinished ?? r.segmentsDone),
            framesTotal: r.framesTotal, framesDone: framesDone, framesPerSecond: fps,
            elapsedSeconds: elapsed, etaSeconds: eta, error: r.error, createdAt: r.createdAt,
            updatedAt: r.updatedAt)
        status.package = r.request.package
        if !r.state.isTerminal { status.waiting = waitingReason(job: r.id) }
        return status
    }
}
