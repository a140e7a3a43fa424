import Foundation
import TesseraClient

/// Reading a `/metrics` answer in tests: its samples (read as the client reads them), and Prometheus' own `promtool` as an independent
/// checker of the text (installed by Scripts/install-deps.sh from Debian's `prometheus` package).
public struct PrometheusText: Sendable {
    public typealias Sample = MetricSample

    public let text: String
    public let samples: [Sample]

    public init(_ text: String) {
        self.text = text
        samples = MetricSample.parse(text)
    }

    /// Every sample of `name` whose labels include `labels`.
    public func samples(_ name: String, _ labels: [String: String] = [:]) -> [Sample] {
        samples.filter { s in s.name == name && labels.allSatisfy { s.labels[$0.key] == $0.value } }
    }

    /// The value of the one sample of `name` with exactly these labels; nil when there is none.
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    /// The names that have a `# TYPE` line.
    public var families: Set<String> {
        Set(
            text.split(separator: "\n").compactMap { line in
                line.hasPrefix("# TYPE ") ? line.split(separator: " ").dropFirst(2).first.map(String.init) : nil
            })
    }

    /// Where `promtool` is; nil when it is not installed.
    public static var promtool: String? {
        ["/usr/bin/promtool", "/usr/local/bin/promtool"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// `promtool check metrics` on this text: its exit status and what it said.
    public func promtoolCheck() throws -> (status: Int32, output: String) {
        guard let promtool = Self.promtool else {
            throw TestMedia.ToolFailure(description: "promtool is not installed")
        }
        let dir = try TestMedia.makeDirectory("promtool")
        defer { TestMedia.cleanup(dir) }
        let file = dir.appendingPathComponent("metrics.txt")
        try Data(text.utf8).write(to: file)
        let r = try TestMedia.runCapturing("/bin/sh", ["-c", "\"$0\" check metrics < \"$1\"", promtool, file.path])
        return (r.status, r.stdout + r.stderr)
    }
}
