import Crypto
import Foundation
import Hummingbird

/// Who may use `/v1`: a request with `Authorization: Bearer <token>`, or one carrying the session cookie
/// that the token was exchanged for (`POST /v1/session`), so a browser never puts the token in a URL and
/// scripts never see it (the cookie is `HttpOnly; SameSite=Strict`). Without a configured token every
/// request passes.
///
/// A session is its expiry signed with the token (HMAC-SHA256): nothing is kept, so a page stays signed
/// in across a coordinator restart, and changing the token ends every session.
///
/// A cookie only rides along: `CrossSiteGuardMiddleware`, before every route, refuses a request that
/// changes something and comes from another site, so another site cannot drain a worker through a
/// logged-in browser even where SameSite is not enforced.
public final class HTTPAuth: Sendable {
    public static let cookieName = "tessera_session"
    /// The token, when one is configured.
    public let token: String?
    /// How long a session cookie is honoured.
    public let sessionSeconds: Int
    public init(token: String?, sessionSeconds: Int = 12 * 3600) {
        self.token = token
        self.sessionSeconds = sessionSeconds
    }

    /// How a request proved itself.
    public enum Credential: Sendable, Equatable {
        /// No token is configured.
        case open
        case bearer
        case session
    }

    /// The request's credential.
    ///
    /// - Throws: `HTTPError(.unauthorized)` when a token is configured and the request carries neither a
    ///   valid bearer token nor a live session cookie.
    @discardableResult
    public func check(_ request: Request) throws -> Credential {
        guard let token else { return .open }
        if let header = request.headers[.authorization] {
            let scheme = "bearer "
            guard header.count > scheme.count, header.prefix(scheme.count).lowercased() == scheme,
                Self.equalInConstantTime(Array(header.utf8.dropFirst(scheme.count)), Array(token.utf8))
            else {
                throw HTTPError(.unauthorized, message: "the token is not valid for this coordinator")
            }
            return .bearer
        }
        guard let id = Self.cookie(Self.cookieName, in: request.headers[.cookie]), isLive(session: id) else {
            throw HTTPError(
                .unauthorized,
                message: "this coordinator needs a token: send Authorization: Bearer TOKEN, "
                    + "or exchange it for a session cookie with POST /v1/session")
        }
        return .session
    }

    /// True when `candidate` is the configured token (always false without one).
    func accepts(token candidate: String) -> Bool {
        guard let token else { return false }
        return Self.equalInConstantTime(Array(candidate.utf8), Array(token.utf8))
    }

    /// Opens a session and answers the `Set-Cookie` value that carries it.
    func openSession(now: Double = Date().timeIntervalSince1970) -> String {
        let expiry = Int(now) + sessionSeconds
        let value = "\(expiry).\(signature(expiry))"
        return "\(Self.cookieName)=\(value); HttpOnly; SameSite=Strict; Path=/; Max-Age=\(sessionSeconds)"
    }

    /// True for a cookie value `openSession` made with this token that has not expired.
    func isLive(session value: String, now: Double = Date().timeIntervalSince1970) -> Bool {
        let parts = value.split(separator: ".", maxSplits: 1)
        guard token != nil, parts.count == 2, let expiry = Int(parts[0]), Double(expiry) > now else { return false }
        return Self.equalInConstantTime(Array(parts[1].utf8), Array(signature(expiry).utf8))
    }

    private func signature(_ expiry: Int) -> String {
        let key = SymmetricKey(data: Data((token ?? "").utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Data("tessera-session:\(expiry)".utf8), using: key)
        return mac.map { String(format: "%02x", $0) }.joined()
    }

    /// The value of cookie `name` in a `Cookie` header ("a=1; b=2").
    static func cookie(_ name: String, in header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// True when both byte strings are equal; the loop always runs over the longer one, so the answer's
    /// timing does not reveal how much of a guess was right.
    static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt64(a.count ^ b.count)
        for i in 0..<max(a.count, b.count) {
            let x = i < a.count ? a[i] : 0, y = i < b.count ? b[i] : 0
            difference |= UInt64(x ^ y)
        }
        return difference == 0
    }
}
