import Foundation

/// Why a call to the coordinator failed, with a message a person can act on.
public struct ClientError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// No HTTP answer at all: refused, unknown host, timed out, connection dropped.
        case unreachable
        /// 401: no token, or not the coordinator's token.
        case unauthorized
        /// Any other error answer, with its HTTP status and the API's error kind ("notFound", …).
        case rejected(status: Int, error: String)
        /// A success status whose body is not what the API promises.
        case unexpectedAnswer
        /// The local file to upload cannot be read (or the request cannot be encoded).
        case cannotRead
        /// The download's destination cannot be written, or exists and may not be replaced.
        case cannotWrite
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// The HTTP status of an error answer; nil when there was none.
    public var httpStatus: Int? {
        switch kind {
        case .unauthorized: 401
        case .rejected(let status, _): status
        default: nil
        }
    }

    /// An error from URLSession, said in the coordinator's terms.
    static func unreachable(_ baseURL: URL, _ error: any Error) -> ClientError {
        let reason: String
        switch (error as? URLError)?.code {
        case .cannotConnectToHost?: reason = "connection refused"
        case .cannotFindHost?, .dnsLookupFailed?: reason = "unknown host"
        case .timedOut?: reason = "timed out"
        case .networkConnectionLost?: reason = "the connection was dropped"
        case .unsupportedURL?, .badURL?: reason = "not an http:// or https:// address"
        default: reason = (error as? URLError)?.localizedDescription ?? "\(error)"
        }
        return ClientError(.unreachable, "cannot reach the coordinator at \(baseURL.absoluteString) (\(reason))")
    }
}
