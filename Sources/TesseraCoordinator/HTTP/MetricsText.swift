import Foundation
import Hummingbird
import TesseraCore

/// `/metrics` in Prometheus' text exposition format (0.0.4), so a Prometheus adapter can feed
/// `tessera_queue_depth` to the worker autoscaler.
enum MetricsText {
    static func response(for metrics: FarmMetrics) -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: render(metrics))))
    }

    static func render(_ m: FarmMetrics) -> String {
        var text = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: Int)]) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for sample in samples { text += "\(name)\(sample.labels) \(sample.value)\n" }
        }
        metric(
            "tessera_queue_depth", "gauge", "Segments waiting for a worker, over all running jobs.",
            [("", m.queuedSegments)])
        metric(
            "tessera_segments_running", "gauge", "Segments being transcoded by a worker now.",
            [("", m.runningSegments)])
        metric("tessera_workers", "gauge", "Workers connected to the coordinator.", [("", m.workers)])
        metric("tessera_workers_busy", "gauge", "Workers holding at least one task.", [("", m.busyWorkers)])
        // Every state appears, zero included, so a dashboard's series do not vanish when a state empties.
        let states =
            JobState.allCases.map(\.rawValue)
            + m.jobsByState.keys.filter { JobState(rawValue: $0) == nil }.sorted()
        metric(
            "tessera_jobs", "gauge", "Jobs by state.",
            states.map { ("{state=\"\(escape($0))\"}", m.jobsByState[$0] ?? 0) })
        metric(
            "tessera_segments_completed_total", "counter", "Segments finished since the coordinator started.",
            [("", m.segmentsCompleted)])
        metric(
            "tessera_frames_encoded_total", "counter", "Output frames encoded since the coordinator started.",
            [("", m.framesEncoded)])
        return text
    }

    /// Label values escape backslash, double quote and newline.
    static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
