import Foundation
import TesseraClient
import TesseraCore

/// What `tessera top` shows: the farm's throughput, queue and workers (`/v1/farm`), and a row per worker
/// (`/v1/workers`) sorted by frames per second.
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

    /// The coordinator's summary and worker list (rates from its rate book, over its last ten seconds).
    init(summary: FarmSummary, workers list: [WorkerStatus]) {
        framesPerSecond = summary.framesPerSecond
        realTime = summary.realTime
        queue = summary.queuedSegments
        workers = summary.workers
        busy = summary.busyWorkers
        jobsRunning = summary.jobs[JobState.running.rawValue] ?? 0
        rows = list.map { w in
            Row(
                id: w.id, host: w.hostname, state: w.state.rawValue, framesPerSecond: w.framesPerSecond ?? 0,
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
