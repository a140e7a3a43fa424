import Foundation
import TesseraClient
import TesseraCore

/// What `tessera top` shows: farm throughput from two scrapes of `/metrics` a moment apart, and a row
/// per worker sorted by frames per second.
struct TopView: Encodable {
    struct Row: Encodable {
        var id: String
        var host: String
        var state: String
        var framesPerSecond: Double
        var segmentsDone: Int
        /// "JOB/segment#attempt", the first task held.
        var task: String?
        var lastSeenSeconds: Double
    }

    var framesPerSecond: Double
    /// Seconds of media out per second.
    var realTime: Double
    var queue: Int
    var workers: Int
    var busy: Int
    var jobsRunning: Int
    var rows: [Row]

    /// One scrape: the metrics and the worker list at a time.
    struct Sample {
        var time: Date
        var metrics: [MetricSample]
        var workers: [WorkerStatus]
    }

    init(previous: Sample, current: Sample) {
        let dt = max(current.time.timeIntervalSince(previous.time), 1e-3)
        func total(_ s: Sample, _ name: String, worker: String? = nil) -> Double {
            s.metrics.filter { $0.name == name && (worker == nil || $0.labels["worker"] == worker) }
                .reduce(0) { $0 + $1.value }
        }
        func rate(_ name: String, worker: String? = nil) -> Double {
            max(0, total(current, name, worker: worker) - total(previous, name, worker: worker)) / dt
        }
        framesPerSecond = rate("tessera_frames_encoded_total")
        realTime = rate("tessera_output_media_seconds_total")
        // Figures from the wire: a count that is not one (NaN, 1e300) shows as 0 rather than trapping.
        func count(_ value: Double) -> Int { Int(exactly: value.rounded()) ?? 0 }
        queue = count(total(current, "tessera_queue_depth"))
        workers = current.workers.count
        busy = current.workers.filter { !$0.tasks.isEmpty }.count
        jobsRunning = count(
            current.metrics.first { $0.name == "tessera_jobs" && $0.labels["state"] == "running" }?.value ?? 0)
        rows = current.workers.map { w in
            Row(
                id: w.id, host: w.hostname, state: w.state.rawValue,
                framesPerSecond: rate("tessera_worker_frames_encoded_total", worker: w.id),
                segmentsDone: w.segmentsDone, task: w.tasks.first?.description, lastSeenSeconds: w.lastSeenSeconds)
        }
        .sorted { ($0.framesPerSecond, $1.id) > ($1.framesPerSecond, $0.id) }
    }

    /// The screen as lines at most `width` wide and `height` high: a header, then rows, "+N more" when
    /// they do not fit.
    func lines(width: Int, height: Int) -> [String] {
        var out = [
            String(
                format: "tessera top  %.1f frames/s  %.2f× real time  queue %d  workers %d (%d busy)  jobs %d",
                framesPerSecond, realTime, queue, workers, busy, jobsRunning),
            "",
            Self.row("WORKER", "HOST", "STATE", "FPS", "SEGS", "TASK", "SEEN"),
        ]
        let room = max(1, height - out.count - 1)
        let shown = rows.count > room ? room - 1 : rows.count
        for r in rows.prefix(shown) {
            out.append(
                Self.row(
                    r.id, r.host, r.state, String(format: "%.1f", r.framesPerSecond), String(r.segmentsDone),
                    r.task ?? "-", String(format: "%.0fs", r.lastSeenSeconds)))
        }
        if rows.count > shown { out.append("+\(rows.count - shown) more") }
        if rows.isEmpty { out.append("no workers") }
        return out.map { String($0.prefix(width)) }
    }

    private static func row(_ cells: String...) -> String {
        let widths = [14, 14, 12, 8, 6, 18, 6]
        return zip(cells, widths).map { cell, w in
            let c = String(cell.logSafe(limit: w - 1).prefix(w - 1))
            return c.padding(toLength: w, withPad: " ", startingAt: 0)
        }.joined()
    }
}
