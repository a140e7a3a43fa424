import Foundation
import TesseraTestSupport
import Testing

/// Deploy/prometheus and Deploy/grafana checked by Prometheus' own promtool: the scrape configuration,
/// the alert rules and their unit tests (the stall alert fires after five minutes without a finished
/// segment, and not while segments finish or none run), and every query of the dashboard; and that
/// every metric they name is one the coordinator exports.
@Suite struct DeployPrometheusTests {
    let deploy = DeployFiles.folder

    func promtool() throws -> String {
        try #require(
            PrometheusText.promtool,
            "promtool is not installed: run Scripts/install-deps.sh (Debian package prometheus)")
    }

    @Test func scrapeConfigurationAndRulesAreValid() throws {
        let r = try TestMedia.runCapturing(
            try promtool(), ["check", "config", deploy.appendingPathComponent("prometheus/prometheus.yml").path])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("SUCCESS: 1 rule files found"), "prometheus.yml loads alerts.yml: \(r.stdout)")
    }

    @Test func alertRulesPassTheirUnitTests() throws {
        let tests = deploy.appendingPathComponent("prometheus/alerts.test.yml")
        let r = try TestMedia.runCapturing(try promtool(), ["test", "rules", tests.path])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        // The stall alert is tested both ways: quiet, then firing.
        let text = try String(contentsOf: tests, encoding: .utf8)
        #expect(text.contains("alertname: TesseraStalled\n        exp_alerts: []"))
        #expect(text.contains("alertname: TesseraStalled\n        exp_alerts:\n          - exp_labels"))
    }

    @Test func everyDashboardQueryParses() throws {
        let queries = try Self.dashboardQueries(deploy)
        #expect(queries.count >= 15)
        // promtool parses PromQL in rule files: each query becomes a recording rule.
        let dir = try TestMedia.makeDirectory("grafana")
        defer { TestMedia.cleanup(dir) }
        var rules = "groups:\n  - name: dashboard\n    rules:\n"
        for (i, q) in queries.enumerated() {
            let expr = q.replacingOccurrences(of: "$__rate_interval", with: "5m")
            let quoted = expr.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            rules += "      - record: dashboard:query\(i)\n        expr: \"\(quoted)\"\n"
        }
        let file = dir.appendingPathComponent("dashboard.rules.yml")
        try Data(rules.utf8).write(to: file)
        let r = try TestMedia.runCapturing(try promtool(), ["check", "rules", file.path])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
    }

    @Test func everyMetricDeployNamesIsExported() throws {
        let exported = try Self.exportedNames()
        #expect(exported.contains("tessera_queue_depth"))
        var texts = try Self.dashboardQueries(deploy)
        for file in ["prometheus/alerts.yml", "k8s/50-autoscaler.yaml", "k8s/prometheus-adapter/values.yaml"] {
            texts.append(try String(contentsOf: deploy.appendingPathComponent(file), encoding: .utf8))
        }
        var named = Set<String>()
        for text in texts { named.formUnion(Self.metricNames(in: text)) }
        #expect(named.contains("tessera_last_segment_completed_timestamp_seconds"))
        let unknown = named.filter { !exported.contains($0) }
        #expect(unknown.isEmpty, "Deploy names metrics the coordinator does not export: \(unknown.sorted())")
    }

    /// Every `expr` of Deploy/grafana/tessera.json.
    static func dashboardQueries(_ deploy: URL) throws -> [String] {
        let data = try Data(contentsOf: deploy.appendingPathComponent("grafana/tessera.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        return panels.flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
    }

    /// `tessera_…` and `process_…` names in a text, histogram series folded onto their family.
    static func metricNames(in text: String) -> Set<String> {
        let pattern = try! NSRegularExpression(pattern: "\\b(tessera|process)_[a-z_]+")
        let range = NSRange(text.startIndex..., in: text)
        return Set(
            pattern.matches(in: text, range: range).map { match in
                var name = String(text[Range(match.range, in: text)!])
                for suffix in ["_bucket", "_count", "_sum"] where name.hasSuffix(suffix) {
                    name = String(name.dropLast(suffix.count))
                }
                return name
            })
    }

    /// The names the coordinator describes (FarmMetrics' and ProcessMetrics' tables), read from source.
    static func exportedNames() throws -> Set<String> {
        let metrics = DeployFiles.folder.deletingLastPathComponent().appendingPathComponent(
            "Sources/TesseraCoordinator/Metrics")
        var names = Set<String>()
        for file in ["FarmMetrics+Descriptions.swift", "ProcessMetrics.swift"] {
            let text = try String(contentsOf: metrics.appendingPathComponent(file), encoding: .utf8)
            let pattern = try NSRegularExpression(pattern: "\"((tessera|process)_[a-z_]+)\": \\.init")
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                names.insert(String(text[Range(match.range(at: 1), in: text)!]))
            }
        }
        return names
    }
}
