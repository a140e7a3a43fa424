import CoreMetrics
import Foundation
import Synchronization

/// The process's own standard metrics (`process_cpu_seconds_total`, `process_resident_memory_bytes`,
/// `process_virtual_memory_bytes`, `process_open_fds`, `process_max_fds`, `process_start_time_seconds`),
/// read from /proc on Linux at each scrape. Elsewhere they stay at 0.
final class ProcessMetrics: Sendable {
    private let cpuSeconds: FloatingPointCounter
    private let residentBytes: Meter
    private let virtualBytes: Meter
    private let openFDs: Meter
    private let maxFDs: Meter
    private let startTime: Meter
    /// CPU seconds already added to the counter (swift-metrics counters only go up by a step).
    private let cpuCounted = Mutex(0.0)

    static let descriptions: [String: DescribedMetricsFactory.Description] = [
        "process_cpu_seconds_total": .init(help: "Total user and system CPU time spent in seconds."),
        "process_resident_memory_bytes": .init(help: "Resident memory size in bytes."),
        "process_virtual_memory_bytes": .init(help: "Virtual memory size in bytes."),
        "process_open_fds": .init(help: "Number of open file descriptors."),
        "process_max_fds": .init(help: "Maximum number of open file descriptors."),
        "process_start_time_seconds": .init(help: "Start time of the process since unix epoch in seconds."),
    ]

    init(factory: any MetricsFactory) {
        cpuSeconds = FloatingPointCounter(label: "process_cpu_seconds_total", factory: factory)
        residentBytes = Meter(label: "process_resident_memory_bytes", factory: factory)
        virtualBytes = Meter(label: "process_virtual_memory_bytes", factory: factory)
        openFDs = Meter(label: "process_open_fds", factory: factory)
        maxFDs = Meter(label: "process_max_fds", factory: factory)
        startTime = Meter(label: "process_start_time_seconds", factory: factory)
        if let started = Self.read().startTime { startTime.set(started) }
    }

    /// Reads /proc now.
    func update() {
        let now = Self.read()
        if let cpu = now.cpuSeconds {
            let step = cpuCounted.withLock { counted -> Double in
                let step = max(0, cpu - counted)
                counted += step
                return step
            }
            if step > 0 { cpuSeconds.increment(by: step) }
        }
        if let rss = now.residentBytes { residentBytes.set(rss) }
        if let vsize = now.virtualBytes { virtualBytes.set(vsize) }
        if let fds = now.openFDs { openFDs.set(fds) }
        if let limit = now.maxFDs { maxFDs.set(limit) }
    }

    struct Reading {
        var cpuSeconds: Double?
        var residentBytes: Double?
        var virtualBytes: Double?
        var openFDs: Double?
        var maxFDs: Double?
        var startTime: Double?
    }

    /// One reading of /proc/self (nil fields where a file is missing: not Linux, or no /proc).
    static func read() -> Reading {
        var r = Reading()
        #if os(Linux)
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
        // /proc/self/stat: the command name (field 2) is in parentheses and may hold spaces; the
        // fields after its closing parenthesis start at field 3 (state).
        if let stat = text("/proc/self/stat"), let close = stat.lastIndex(of: ")") {
            let f = stat[stat.index(after: close)...].split(separator: " ").map(String.init)
            func field(_ n: Int) -> Double? { f.count > n - 3 ? Double(f[n - 3]) : nil }
            if let utime = field(14), let stime = field(15), ticks > 0 { r.cpuSeconds = (utime + stime) / ticks }
            r.virtualBytes = field(23)
            if let pages = field(24) { r.residentBytes = pages * pageSize }
            if let started = field(22), ticks > 0, let boot = bootTime() { r.startTime = boot + started / ticks }
        }
        if let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            r.openFDs = Double(fds.count)
        }
        if let limits = text("/proc/self/limits"),
            let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") })
        {
            r.maxFDs = line.dropFirst("Max open files".count).split(separator: " ").first.flatMap { Double($0) }
        }
        #endif
        return r
    }

    /// Seconds since the epoch at which the machine booted (`btime` in /proc/stat).
    private static func bootTime() -> Double? {
        guard let stat = text("/proc/stat"),
            let line = stat.split(separator: "\n").first(where: { $0.hasPrefix("btime ") })
        else { return nil }
        return Double(line.dropFirst("btime ".count))
    }

    /// A /proc file's text; /proc reports a size of 0, so it is read to its end rather than by size.
    private static func text(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
