import Foundation

/// Where a worker reads sources it has no mount for: the coordinator's HTTP API, `GET /v1/media/{path}`
/// (`tessera worker --media-url`), with the API's bearer token. Its tasks then come by reference, and
/// libavformat reads each segment's byte ranges with range requests.
public struct MediaURL: Sendable, Equatable {
    /// `http(s)://host:port`, without a path.
    public let base: String
    public let token: String?

    /// Nil for anything but an http or https URL of a host (and port) alone, or a token that is not one
    /// line of visible ASCII (it goes into a request header).
    public init?(_ text: String, token: String?) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty, url.path.isEmpty || url.path == "/", url.query == nil,
            url.fragment == nil, url.user == nil
        else { return nil }
        if let token,
            token.isEmpty || !token.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 32 && $0.value < 127 })
        {
            return nil
        }
        // An IPv6 literal goes back in its brackets.
        let name = url.host(percentEncoded: true) ?? host
        base = "\(scheme)://\(name.contains(":") ? "[\(name)]" : name)" + (url.port.map { ":\($0)" } ?? "")
        self.token = token
    }

    /// The URL of a source the coordinator names by its absolute path, each component percent-encoded.
    public func url(for coordinatorPath: String) -> String {
        let parts = coordinatorPath.split(separator: "/").map {
            $0.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? ""
        }
        return base + "/v1/media/" + parts.joined(separator: "/")
    }

    /// Request headers for libavformat (CRLF-terminated lines).
    public var headers: String { token.map { "Authorization: Bearer \($0)\r\n" } ?? "" }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
