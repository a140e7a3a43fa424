import Foundation

/// Keeps a refused client from filling the log: each key is reported at most once per `interval`, with
/// the number of refusals that were not reported. Holds at most `capacity` keys, so a flood of made-up
/// keys cannot grow it without bound.
public struct RefusalLog {
    public var interval: TimeInterval = 60
    public var capacity = 1024
    private var entries: [String: (lastReport: Date, unreported: Int)] = [:]

    /// nil when `key` was reported less than `interval` ago; otherwise the refusals since that report.
    public init(interval: TimeInterval = 60, capacity: Int = 1024) {
        self.interval = interval
        self.capacity = capacity
    }

    public mutating func shouldLog(_ key: String, now: Date = Date()) -> Int? {
        if let entry = entries[key], now.timeIntervalSince(entry.lastReport) < interval {
            entries[key] = (entry.lastReport, entry.unreported + 1)
            return nil
        }
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        let unreported = entries[key]?.unreported ?? 0
        entries[key] = (now, 0)
        return unreported
    }
}
