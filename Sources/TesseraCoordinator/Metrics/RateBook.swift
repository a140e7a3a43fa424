import Synchronization
import TesseraCore

/// The farm's rates, in one place for the API (`/v1/workers`, `/v1/jobs`, `/v1/farm`), the dashboard
/// and `tessera top`: each taken from counts the dispatcher samples at every tick (the farm's frames and
/// seconds of media out, `FarmMetrics.produced`; each worker's frames; each job's frames, running
/// segments included) over the last `window` seconds. Everything is kept in bounded rings: the recent
/// samples, and the last hour of farm throughput at one point per `pointInterval`.
public final class RateBook: Sendable {
    struct Sample: Sendable {
        var at: Double
        var frames: Double
        var media: Double = 0
    }

    public static let window = 10.0
    public static let pointInterval = 5.0
    static let hour = 3600.0
    /// Samples are taken at most every 0.1 s (`record` skips closer ones): 128 cover the window.
    static let recentSamples = 128

    private struct State: Sendable {
        var farm = ThroughputRing<Sample>(capacity: recentSamples)
        var hourPoints = ThroughputRing<[Double]>(capacity: Int(hour / pointInterval))
        var workers: [String: ThroughputRing<Sample>] = [:]
        var jobs: [String: ThroughputRing<Sample>] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Records the counts at `now`; workers and jobs not listed are forgotten.
    /// - Parameters:
    ///   - workers: each connected worker's frames done.
    ///   - jobs: each running job's frames done, its running segments' progress included.
    public func record(produced: FarmMetrics.Produced, workers: [String: Int], jobs: [String: Int], now: Double) {
        state.withLock { s in
            if let last = s.farm.last, now - last.at < 0.1 { return }
            s.farm.append(Sample(at: now, frames: Double(produced.frames), media: produced.mediaSeconds))
            for (id, frames) in workers {
                s.workers[id, default: ThroughputRing(capacity: Self.recentSamples)].append(
                    Sample(at: now, frames: Double(frames)))
            }
            s.workers = s.workers.filter { workers[$0.key] != nil }
            for (id, frames) in jobs {
                s.jobs[id, default: ThroughputRing(capacity: Self.recentSamples)].append(
                    Sample(at: now, frames: Double(frames)))
            }
            s.jobs = s.jobs.filter { jobs[$0.key] != nil }
            if now - (s.hourPoints.last?.first ?? -Double.infinity) >= Self.pointInterval {
                let fps = Self.rate(s.farm, \.frames) ?? 0, realTime = Self.rate(s.farm, \.media) ?? 0
                s.hourPoints.append([now.rounded(), fps.rounded(places: 1), realTime.rounded(places: 3)])
            }
        }
    }

    /// Units per second between the oldest sample inside the window and the newest; nil with fewer than
    /// two samples in it.
    static func rate(_ ring: ThroughputRing<Sample>, _ value: (Sample) -> Double) -> Double? {
        let samples = ring.elements
        guard let last = samples.last,
            let first = samples.first(where: { last.at - $0.at <= window }), last.at > first.at
        else { return nil }
        return max(0, (value(last) - value(first)) / (last.at - first.at))
    }

    /// The farm's frames and seconds of media out per second, and the last hour's points.
    public var farm: (framesPerSecond: Double, realTime: Double, points: [[Double]]) {
        state.withLock { s in
            (
                (Self.rate(s.farm, \.frames) ?? 0).rounded(places: 1),
                (Self.rate(s.farm, \.media) ?? 0).rounded(places: 3),
                s.hourPoints.elements
            )
        }
    }

    /// A worker's frames per second; 0 for one not sampled yet.
    public func worker(_ id: String) -> Double {
        state.withLock { s in s.workers[id].flatMap { Self.rate($0, \.frames) }.map { $0.rounded(places: 1) } ?? 0 }
    }

    /// A running job's frames per second; nil until it has been sampled twice.
    public func job(_ id: String) -> Double? {
        state.withLock { s in s.jobs[id].flatMap { Self.rate($0, \.frames) }.map { $0.rounded(places: 1) } }
    }
}
