import Foundation
import TesseraAV

/// Remembers what `auto` measured, per machine and conversion, so a conversion is timed once rather than
/// at the start of every job (as FFTW keeps its "wisdom").
///
/// Calibrating costs about 0.4 s on a 2-core machine with lavapipe: loading the Vulkan driver and
/// compiling the kernels is most of it, and the job waits. A remembered choice skips all of that, and
/// when the CPU won it never loads the Vulkan driver at all.
///
/// The key is the conversion (input size, pixel format and colour; the whole `ProcessingSpec`) and the
/// machine: host name, CPU model and the installed Vulkan drivers (their ICD manifests, with sizes and
/// modification times), so a new driver or a different machine sharing the home directory calibrates
/// afresh. Entries expire after `lifetime`. The file is JSON, replaced atomically; an unreadable one is
/// treated as empty.
public final class CalibrationMemory: @unchecked Sendable {
    public let file: URL
    public let lifetime: TimeInterval
    private let lock = NSLock()

    private struct Entry: Codable {
        var choice: BackendChoice
        var measuredAt: Date
    }

    public init(file: URL, lifetime: TimeInterval = 7 * 86_400) {
        self.file = file
        self.lifetime = lifetime
    }

    /// `$TESSERA_CALIBRATION_CACHE` (a file, or `off`), else `$XDG_CACHE_HOME/tessera/calibration.json`,
    /// else `~/.cache/tessera/calibration.json`. Nil when switched off or there is no home.
    public static func standard(
        environment: [String: String] = ProcessInfo.processInfo.environment
    )
        -> CalibrationMemory?
    {
        if let path = environment["TESSERA_CALIBRATION_CACHE"], !path.isEmpty {
            return path == "off" ? nil : CalibrationMemory(file: URL(fileURLWithPath: path))
        }
        let base: URL
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty {
            base = URL(fileURLWithPath: xdg)
        } else if let home = environment["HOME"], !home.isEmpty {
            base = URL(fileURLWithPath: home).appendingPathComponent(".cache")
        } else {
            return nil
        }
        return CalibrationMemory(file: base.appendingPathComponent("tessera/calibration.json"))
    }

    /// The choice measured for this conversion on this machine, if recent.
    public func recall(spec: ProcessingSpec, frame: Frame, now: Date = Date()) -> BackendChoice? {
        let key = Self.key(spec: spec, frame: frame)
        guard let entry = lock.withLock({ load()[key] }), now.timeIntervalSince(entry.measuredAt) < lifetime,
            entry.measuredAt <= now
        else { return nil }
        var choice = entry.choice
        choice.reason += "; remembered from \(ISO8601DateFormatter().string(from: entry.measuredAt)) (\(file.path))"
        return choice
    }

    /// Stores a measured choice. Failing to write is not an error: the next job calibrates again.
    public func remember(_ choice: BackendChoice, spec: ProcessingSpec, frame: Frame, now: Date = Date()) {
        let key = Self.key(spec: spec, frame: frame)
        lock.withLock {
            var entries = load().filter { now.timeIntervalSince($0.value.measuredAt) < lifetime }
            entries[key] = Entry(choice: choice, measuredAt: now)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            guard let data = try? encoder.encode(entries) else { return }
            try? FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(),
                withIntermediateDirectories: true)
            try? data.write(to: file, options: .atomic)
        }
    }

    private func load() -> [String: Entry] {
        guard let data = try? Data(contentsOf: file) else { return [:] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return (try? decoder.decode([String: Entry].self, from: data)) ?? [:]
    }

    /// The conversion and the machine, as one string.
    static func key(spec: ProcessingSpec, frame: Frame) -> String {
        let f = frame.pointer.pointee
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let specText = (try? encoder.encode(spec)).map { String(decoding: $0, as: UTF8.self) } ?? "\(spec)"
        let input =
            "\(f.width)x\(f.height) format \(f.format) matrix \(f.colorspace.rawValue) "
            + "range \(f.color_range.rawValue) siting \(f.chroma_location.rawValue)"
        return "\(machine) | \(input) | \(specText)"
    }

    /// Host, CPU and Vulkan drivers: what decides which backend is faster.
    static let machine: String = {
        let host = ProcessInfo.processInfo.hostName
        let cpuInfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuInfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map(String.init) ?? "" }?
            .trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let devices = ((try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? [])
            .filter { $0.hasPrefix("nvidia") || $0 == "dri" || $0.hasPrefix("kfd") }.sorted()
        let render = ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/dri")) ?? []).sorted()
        return "\(host) | \(model) x\(cores) | devices \(devices + render) | vulkan \(vulkanDrivers)"
    }()

    /// The ICD manifests the Vulkan loader would read, with size and modification time.
    private static var vulkanDrivers: String {
        let environment = ProcessInfo.processInfo.environment
        var directories = ["/etc/vulkan/icd.d", "/usr/share/vulkan/icd.d", "/usr/local/share/vulkan/icd.d"]
        for variable in ["VK_ICD_FILENAMES", "VK_DRIVER_FILES"] {
            if let files = environment[variable], !files.isEmpty { return "\(variable)=\(files)" }
        }
        if let xdg = environment["XDG_DATA_DIRS"] {
            directories += xdg.split(separator: ":").map { "\($0)/vulkan/icd.d" }
        }
        let manager = FileManager.default
        var found: [String] = []
        for directory in Set(directories).sorted() {
            for name in ((try? manager.contentsOfDirectory(atPath: directory)) ?? []).sorted() {
                let path = "\(directory)/\(name)"
                let attributes = (try? manager.attributesOfItem(atPath: path)) ?? [:]
                let size = attributes[.size] as? Int ?? 0
                let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
                found.append("\(path):\(size):\(Int(modified))")
            }
        }
        return found.isEmpty ? "none" : found.joined(separator: ",")
    }
}
