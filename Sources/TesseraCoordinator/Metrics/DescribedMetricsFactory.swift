import CoreMetrics
import Prometheus

/// A swift-metrics factory that makes its metrics in one `PrometheusCollectorRegistry`, each with the
/// `# HELP` text and histogram buckets named for its label.
///
/// swift-prometheus' own `PrometheusMetricsFactory` makes every metric without help text, which
/// `promtool check metrics` rejects, and a registry refuses a second help text for a name it has (it
/// traps). Here each name has one description, from one table, whoever asks for it.
struct DescribedMetricsFactory: MetricsFactory, Sendable {
    /// What one metric name means, and for a histogram its bucket upper bounds.
    struct Description: Sendable {
        var help: String
        var buckets: [Double] = []
    }

    let registry: PrometheusCollectorRegistry
    let descriptions: [String: Description]

    private func descriptor(_ label: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: label, unitName: "", helpText: descriptions[label]?.help ?? "")
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(descriptor: descriptor(label), labels: dimensions) }
        let buckets = descriptions[label]?.buckets ?? []
        return registry.makeValueHistogram(
            descriptor: descriptor(label), labels: dimensions, buckets: buckets.isEmpty ? [1] : buckets)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        let buckets = (descriptions[label]?.buckets ?? [1]).map { Duration.nanoseconds(Int64($0 * 1e9)) }
        return registry.makeDurationHistogram(descriptor: descriptor(label), labels: dimensions, buckets: buckets)
    }

    func destroyCounter(_ handler: any CounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyRecorder(_ handler: any RecorderHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
        if let histogram = handler as? ValueHistogram { registry.unregisterValueHistogram(histogram) }
    }

    func destroyMeter(_ handler: any MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
    }

    func destroyTimer(_ handler: any TimerHandler) {
        if let histogram = handler as? DurationHistogram { registry.unregisterDurationHistogram(histogram) }
    }
}
