import Foundation

/// One sample of Prometheus' text exposition format: `name{label="value",...} 12.5`.
public struct MetricSample: Sendable, Hashable {
    public var name: String
    public var labels: [String: String]
    public var value: Double

    /// The samples of an exposition text; comment lines and lines that do not parse are skipped.
    public static func parse(_ text: String) -> [MetricSample] {
        text.split(separator: "\n").compactMap { sample(String($0)) }
    }

    /// `name{a="1",b="2"} 3 [timestamp]` → a sample. Label values may hold escaped quotes and newlines,
    /// commas and braces; the value may be `+Inf`, `-Inf` or `NaN`.
    static func sample(_ line: String) -> MetricSample? {
        guard !line.hasPrefix("#"), !line.isEmpty else { return nil }
        let characters = Array(line)
        var i = 0
        var name = ""
        while i < characters.count, characters[i] != "{", characters[i] != " " {
            name.append(characters[i])
            i += 1
        }
        var labels: [String: String] = [:]
        if i < characters.count, characters[i] == "{" {
            i += 1
            while i < characters.count, characters[i] != "}" {
                var key = ""
                while i < characters.count, characters[i] != "=" {
                    if characters[i] != "," && characters[i] != " " { key.append(characters[i]) }
                    i += 1
                }
                guard i + 1 < characters.count, characters[i + 1] == "\"" else { return nil }
                i += 2
                var value = ""
                while i < characters.count, characters[i] != "\"" {
                    if characters[i] == "\\", i + 1 < characters.count {
                        i += 1
                        value.append(characters[i] == "n" ? "\n" : characters[i])
                    } else {
                        value.append(characters[i])
                    }
                    i += 1
                }
                guard i < characters.count else { return nil }
                labels[key] = value
                i += 1
            }
            i += 1
        }
        guard i <= characters.count,
            let token = String(characters[min(i, characters.count)...]).split(separator: " ").first
        else { return nil }
        let value: Double? =
            switch token {
            case "+Inf": .infinity
            case "-Inf": -.infinity
            case "NaN": .nan
            default: Double(token)
            }
        return value.map { MetricSample(name: name, labels: labels, value: $0) }
    }
}
