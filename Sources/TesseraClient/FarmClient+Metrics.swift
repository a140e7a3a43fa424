import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One sample of Prometheus' text exposition format: `name{label="value",...} 12.5`.
public struct MetricSample: Sendable, Hashable {
    public var name: String
    public var labels: [String: String]
    public var value: Double

    /// The samples of an exposition text; comment lines and lines that do not parse are skipped.
    public static func parse(_ text: String) -> [MetricSample] {
        text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), let space = line.lastIndex(of: " "),
                let value = Double(line[line.index(after: space)...])
            else { return nil }
            let head = line[..<space]
            guard let brace = head.firstIndex(of: "{") else {
                return MetricSample(name: String(head), labels: [:], value: value)
            }
            var labels: [String: String] = [:]
            var rest = head[head.index(after: brace)...].dropLast()  // without the closing brace
            while let eq = rest.firstIndex(of: "="), rest[rest.index(after: eq)...].first == "\"" {
                let key = rest[..<eq].trimmingCharacters(in: CharacterSet(charactersIn: ", "))
                var i = rest.index(eq, offsetBy: 2)
                var value = ""
                while i < rest.endIndex, rest[i] != "\"" {
                    if rest[i] == "\\", rest.index(after: i) < rest.endIndex {
                        i = rest.index(after: i)
                        value.append(rest[i] == "n" ? "\n" : rest[i])
                    } else {
                        value.append(rest[i])
                    }
                    i = rest.index(after: i)
                }
                labels[key] = value
                rest = i < rest.endIndex ? rest[rest.index(after: i)...] : rest[rest.endIndex...]
            }
            return MetricSample(name: String(head[..<brace]), labels: labels, value: value)
        }
    }
}

extension FarmClient {
    /// `/metrics`, parsed (needs no token).
    public func metrics() async throws -> [MetricSample] {
        var request = try request("GET", "metrics")
        request.setValue("text/plain", forHTTPHeaderField: "Accept")
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw ClientError.unreachable(baseURL, error)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else { throw errorAnswer(status: status, body: data) }
        return MetricSample.parse(String(decoding: data, as: UTF8.self))
    }
}
