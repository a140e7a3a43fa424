import Foundation
import TesseraCore

/// How the farm commands show jobs and workers to a person: aligned tables and short durations.
enum StatusText {
    /// Columns padded to their widest cell, two spaces apart, no trailing blanks.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            let line = row.indices.map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
            return String(line.reversed().drop { $0 == " " }.reversed())
        }.joined(separator: "\n")
    }

    /// 42s, 3m12s, 2h05m, 3d04h.
    static func age(_ seconds: Double) -> String {
        let s = max(0, Int(seconds.rounded()))
        switch s {
        case ..<60: return "\(s)s"
        case ..<3600: return "\(s / 60)m\(String(format: "%02d", s % 60))s"
        case ..<86400: return "\(s / 3600)h\(String(format: "%02d", s / 60 % 60))m"
        default: return "\(s / 86400)d\(String(format: "%02d", s / 3600 % 24))h"
        }
    }

    /// 0…1: frames when the total is known, else segments; 1 once completed.
    static func fraction(_ job: JobStatus) -> Double {
        if job.state == .completed { return 1 }
        if job.framesTotal > 0 { return min(1, Double(job.framesDone) / Double(job.framesTotal)) }
        if job.segmentsTotal > 0 { return min(1, Double(job.segmentsDone) / Double(job.segmentsTotal)) }
        return 0
    }

    static func jobTable(_ jobs: [JobStatus], now: Double = Date().timeIntervalSince1970) -> String {
        table(
            ["ID", "STATE", "PROGRESS", "FPS", "SEGMENTS", "AGE", "ERROR"],
            jobs.map { job in
                [
                    job.id, job.state.rawValue, String(format: "%.1f%%", fraction(job) * 100),
                    String(format: "%.1f", job.framesPerSecond), "\(job.segmentsDone)/\(job.segmentsTotal)",
                    age(now - job.createdAt), job.error ?? "",
                ]
            })
    }

    static func jobDetail(_ job: JobStatus, now: Double = Date().timeIntervalSince1970) -> String {
        var lines: [(String, String)] = [
            ("job", job.id), ("state", job.state.rawValue), ("source", job.source), ("output", job.output),
            (
                "progress",
                String(
                    format: "%.1f%% (frames %d/%d, segments %d/%d)", fraction(job) * 100,
                    job.framesDone, job.framesTotal, job.segmentsDone, job.segmentsTotal)
            ),
            ("speed", String(format: "%.1f frames/s", job.framesPerSecond)),
        ]
        if let elapsed = job.elapsedSeconds { lines.append(("elapsed", ProgressPrinter.clock(elapsed))) }
        if let eta = job.etaSeconds, !job.state.isTerminal { lines.append(("eta", ProgressPrinter.clock(eta))) }
        lines.append(("priority", "\(job.priority)"))
        lines.append(("age", age(now - job.createdAt)))
        if let error = job.error { lines.append(("error", error)) }
        if let waiting = job.waiting { lines.append(("waiting", waiting)) }
        if let quality = job.quality { lines.append(("quality", quality.summary)) }
        return lines.map { $0.0.padding(toLength: 9, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n")
    }

    static func workerTable(_ workers: [WorkerStatus]) -> String {
        table(
            ["ID", "HOST", "CORES", "BACKENDS", "CHOSEN", "SOURCE", "STATE", "TASKS", "DONE", "LAST SEEN"],
            workers.map { w in
                [
                    w.id, w.hostname, "\(w.cores)", w.backends.map(\.rawValue).joined(separator: ","),
                    w.backendChoices.isEmpty
                        ? "-"
                        : w.backendChoices.map { "\($0.requested.rawValue)→\($0.chosen.rawValue)" }.joined(
                            separator: ","),
                    // How its tasks reach it: packets from the coordinator, or read from these folders itself.
                    (w.mediaRoots ?? []).isEmpty ? "packets" : "reads " + (w.mediaRoots ?? []).joined(separator: ","),
                    w.state.rawValue,
                    w.tasks.isEmpty ? "-" : w.tasks.map(\.description).joined(separator: ","), "\(w.segmentsDone)",
                    age(w.lastSeenSeconds) + " ago",
                ]
            })
    }

    /// A job's segment map: a character per segment, 64 to a line, with a legend; then each retried or
    /// failed segment with its worker and its errors. State is in the characters, not in colour.
    static func segmentMap(_ segments: [SegmentStatus]) -> String {
        let mark: [SegmentStatus.State: Character] = [
            .queued: ".", .running: ">", .done: "#", .retried: "R", .failed: "X", .racing: "=", .backup: "B",
        ]
        let cells = String(segments.map { mark[$0.state] ?? "?" })
        var lines = stride(from: 0, to: cells.count, by: 64).map { start -> String in
            let from = cells.index(cells.startIndex, offsetBy: start)
            let to = cells.index(from, offsetBy: min(64, cells.count - start))
            return String(format: "%5d  ", start) + String(cells[from..<to])
        }
        let counts = SegmentStatus.State.allCases.map { state in
            "\(mark[state]!) \(state.rawValue) \(segments.filter { $0.state == state }.count)"
        }
        lines.insert("segments: " + counts.joined(separator: ", "), at: 0)
        for s in segments where s.state == .retried || s.state == .failed {
            lines.append(
                "  #\(s.index) \(s.state.rawValue) after \(s.attempts) attempts, last on \(s.worker ?? "?")"
                    + (s.errors.isEmpty ? "" : ": " + s.errors.map { $0.logSafe(limit: 200) }.joined(separator: "; ")))
        }
        return lines.joined(separator: "\n")
    }
}
