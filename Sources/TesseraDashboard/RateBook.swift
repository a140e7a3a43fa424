import TesseraCoordinator
import TesseraCore

/// The rates the dashboard shows, each taken from counts sampled at each poll: the farm's frames and
/// seconds of media out (`FarmMetrics.produced`), each worker's frames, each job's frames. Everything is
/// kept in bounded rings: ten seconds of recent samples, and the last hour of farm throughput at one
/// point per `pointInterval`.
struct RateBook: Sendable {
    struct Sample: Sendable {
        var at: Double
        var frames: Double
        var media: Double = 0
    }

    static let window = 10.0
    static let pointInterval = 5.0
    static let hour = 3600.0
    /// Polls are ≥ 0.1 s apart: 128 samples cover the ten-second window.
    static let recentSamples = 128

    private var farm = ThroughputRing<Sample>(capacity: recentSamples)
    private(set) var hourPoints = ThroughputRing<[Double]>(capacity: Int(hour / pointInterval))
    private var workerSamples: [String: ThroughputRing<Sample>] = [:]
    private var jobSamples: [String: ThroughputRing<Sample>] = [:]

    mutating func record(produced: FarmMetrics.Produced, workers: [WorkerStatus], jobs: [JobStatus], now: Double) {
        farm.append(Sample(at: now, frames: Double(produced.frames), media: produced.mediaSeconds))
        for w in workers {
            workerSamples[w.id, default: ThroughputRing(capacity: Self.recentSamples)].append(
                Sample(at: now, frames: Double(w.framesDone)))
        }
        workerSamples = workerSamples.filter { id, _ in workers.contains { $0.id == id } }
        for j in jobs {
            jobSamples[j.id, default: ThroughputRing(capacity: Self.recentSamples)].append(
                Sample(at: now, frames: Double(j.framesDone)))
        }
        jobSamples = jobSamples.filter { id, _ in jobs.contains { $0.id == id } }
        if now - (hourPoints.last?.first ?? -Double.infinity) >= Self.pointInterval {
            let (fps, realtime) = farmRates
            hourPoints.append([now.rounded(), Self.round(fps), Self.round(realtime, places: 3)])
        }
    }

    /// Units per second between the oldest sample inside the window and the newest.
    static func rate(_ ring: ThroughputRing<Sample>, _ value: (Sample) -> Double) -> Double {
        let samples = ring.elements
        guard let last = samples.last,
            let first = samples.first(where: { last.at - $0.at <= window }), last.at > first.at
        else { return 0 }
        return max(0, (value(last) - value(first)) / (last.at - first.at))
    }

    var farmRates: (framesPerSecond: Double, realtime: Double) {
        (Self.rate(farm, \.frames), Self.rate(farm, \.media))
    }

    var throughput: DashboardSnapshot.Throughput {
        let (fps, realtime) = farmRates
        return .init(
            framesPerSecond: Self.round(fps), realtime: Self.round(realtime, places: 3), points: hourPoints.elements)
    }

    func row(_ w: WorkerStatus) -> DashboardSnapshot.Worker {
        // The first task is the one running.
        let task = w.tasks.first
        let backends = w.backendChoices.isEmpty ? w.backends : w.backendChoices.map(\.chosen)
        return .init(
            id: w.id, host: w.hostname, backend: backends.map(\.rawValue).joined(separator: ","),
            job: task?.job, segment: task?.segment,
            framesPerSecond: Self.round(workerSamples[w.id].map { Self.rate($0, \.frames) } ?? 0), state: w.state,
            lastSeenSeconds: Self.round(w.lastSeenSeconds), frames: w.framesDone)
    }

    func row(_ j: JobStatus, now: Double) -> DashboardSnapshot.Job {
        let recent = jobSamples[j.id].map { Self.rate($0, \.frames) } ?? 0
        let rates = [j.framesPerSecond, recent].filter { $0 > 0 }
        let remaining = Double(max(0, j.framesTotal - j.framesDone))
        let moving = !j.state.isTerminal && j.framesTotal > 0 && !rates.isEmpty
        return .init(
            id: j.id, source: j.source.split(separator: "/").last.map(String.init) ?? j.source, state: j.state,
            framesDone: j.framesDone, framesTotal: j.framesTotal,
            framesPerSecond: Self.round(
                j.state.isTerminal ? j.framesPerSecond : (recent > 0 ? recent : j.framesPerSecond)),
            etaLow: moving ? Self.finite((remaining / rates.max()!).rounded()) : nil,
            etaHigh: moving ? Self.finite((remaining / rates.min()!).rounded()) : nil, error: j.error)
    }

    /// A crawling rate can make an estimate infinite, which JSON cannot carry: none then.
    static func finite(_ value: Double) -> Double? {
        value.isFinite ? value : nil
    }

    static func round(_ x: Double, places: Int = 1) -> Double {
        guard x.isFinite else { return 0 }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (x * scale).rounded() / scale
    }
}
