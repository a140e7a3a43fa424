import Foundation

/// Reading a `/metrics` answer in tests: its samples, and Prometheus' own `promtool` as an independent
/// checker of the text (installed by Scripts/install-deps.sh from Debian's `prometheus` package).
public struct PrometheusText: Sendable {
    public struct Sample: Sendable, Hashable {
        public var name: String
        public var labels: [String: String]
        public var value: Double
    }

    public let text: String
    public let samples: [Sample]

    public init(_ text: String) {
        self.text = text
        samples = text.split(separator: "\n").compactMap { Self.sample(String($0)) }
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

    /// `name{a="1",b="2"} 3` → a sample (label values may hold escaped quotes, commas and braces).
    static func sample(_ line: String) -> Sample? {
        guard !line.hasPrefix("#"), !line.isEmpty else { return nil }
        var name = "", labels: [String: String] = [:]
        var i = line.startIndex
        while i < line.endIndex, line[i] != "{", line[i] != " " {
            name.append(line[i])
            i = line.index(after: i)
        }
        if i < line.endIndex, line[i] == "{" {
            i = line.index(after: i)
            while i < line.endIndex, line[i] != "}" {
                var key = ""
                while line[i] != "=" {
                    key.append(line[i])
                    i = line.index(after: i)
                }
                i = line.index(i, offsetBy: 2)  // ="
                var value = ""
                while line[i] != "\"" {
                    if line[i] == "\\" {
                        i = line.index(after: i)
                        value.append(line[i] == "n" ? "\n" : line[i])
                    } else {
                        value.append(line[i])
                    }
                    i = line.index(after: i)
                }
                labels[key] = value
                i = line.index(after: i)
                if line[i] == "," { i = line.index(after: i) }
            }
            i = line.index(after: i)
        }
        let rest = line[i...].split(separator: " ")
        guard let first = rest.first else { return nil }
        let value = first == "+Inf" ? Double.infinity : Double(first)
        return value.map { Sample(name: name, labels: labels, value: $0) }
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
