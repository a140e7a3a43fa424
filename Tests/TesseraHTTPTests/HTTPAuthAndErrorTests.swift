import Foundation
import TesseraClient
import TesseraCore
import TesseraHTTP
import Testing

@testable import TesseraHTTPTestSupport

/// Bearer tokens, error bodies for bad input, and the unauthenticated routes.
@Suite struct HTTPAuthAndErrorTests {
    @Test func v1RoutesNeedTheToken() async throws {
        let server = try await TestServer.start(token: "s3cret-token")
        await #expect {
            _ = try await server.client(token: .some(nil)).jobs()
        } throws: { error in
            let error = try #require(error as? ClientError)
            return error.kind == .unauthorized && error.message.contains("needs a token")
        }
        await #expect {
            _ = try await server.client(token: "s3cret-tokeN").jobs()
        } throws: { error in
            (error as? ClientError)?.description == "the coordinator refused the token"
        }
        #expect(try await server.client().jobs().isEmpty)

        for path in ["/v1/jobs", "/v1/workers", "/v1/jobs/x", "/v1/jobs/x/output"] {
            let missing = try await server.raw("GET", path)
            #expect(missing.status == 401, "\(path)")
            #expect(try missing.body.errorAnswer().error == "unauthorized")
            let wrong = try await server.raw("GET", path, headers: ["Authorization": "Bearer s3cret"])
            #expect(wrong.status == 401, "\(path)")
            let basic = try await server.raw("GET", path, headers: ["Authorization": "Basic s3cret-token"])
            #expect(basic.status == 401, "\(path)")
        }
        let right = try await server.raw("GET", "/v1/jobs", headers: ["Authorization": "Bearer s3cret-token"])
        #expect(right.status == 200)
        await server.stop()
    }

    @Test func healthAndMetricsNeedNoToken() async throws {
        let server = try await TestServer.start(token: "s3cret-token")
        #expect(try await server.client(token: .some(nil)).health() == "ok")
        let health = try await server.raw("GET", "/healthz")
        #expect(health.status == 200)
        #expect(try JSONSerialization.jsonObject(with: health.body) as? [String: String] == ["status": "ok"])
        #expect(try await server.raw("GET", "/metrics").status == 200)
        await server.stop()
    }

    @Test func malformedJobBodiesAre400NamingTheProblem() async throws {
        let server = try await TestServer.start()
        let cases: [(body: String, says: String)] = [
            ("{not json", "not valid JSON"),
            ("", "body is empty"),
            (#"{"source": "/a.mov", "priority": "high", "overwrite": false}"#, "'priority' should be an integer"),
            (#"{"source": "/a.mov", "settings": {"video": null}}"#, "missing key 'settings."),
            (#"{"source": "/a.mov", "priority": 1, "overwrite": false, "timeRange": "soon"}"#, "timeRange"),
            (#"{"priority": 1, "overwrite": false, "settings": {"video": {"codec": "mpeg2"}}}"#, "settings.video"),
            (
                #"{"source": "/a.mov", "priority": 1, "overwrite": false, "segmentDuration": 0.5,"#
                    + #" "settings": {"video": {"codec": "h264", "rateControl": {"crf": 23}, "gopLength": 9223372036854775808},"#
                    + #" "passthrough": false, "optimizeForNetworkUse": false}}"#,
                "'settings.video.gopLength': 9223372036854775808 does not fit"
            ),
            (
                #"{"source": "/a.mov", "priority": 1, "overwrite": false, "segmentDuration": 0.5,"#
                    + #" "settings": {"video": {"codec": "h264", "rateControl": {"crf": 23}, "gopLength": 2.5},"#
                    + #" "passthrough": false, "optimizeForNetworkUse": false}}"#,
                "'settings.video.gopLength' should be a whole number"
            ),
        ]
        for (body, says) in cases {
            let answer = try await server.raw(
                "POST", "/v1/jobs", body: Data(body.utf8),
                headers: ["Content-Type": "application/json"])
            #expect(answer.status == 400, "\(body)")
            let error = try answer.body.errorAnswer()
            #expect(error.error == "invalidRequest")
            #expect(error.message.contains(says), "\(body) → \(error.message)")
        }
        #expect(await server.farm.requests.isEmpty)
        await server.stop()
    }

    /// A page on another site can make a browser POST a form or `text/plain` "JSON" without asking first:
    /// every state-changing request that says it comes from another site is refused, token or none, and a
    /// JSON route takes only `application/json`. Scripts (no Origin) and the page's own origin go on.
    @Test(arguments: [nil, "t"] as [String?])
    func crossSiteRequestsChangeNothing(token: String?) async throws {
        let server = try await TestServer.start(token: token)
        let auth = token.map { ["Authorization": "Bearer \($0)"] } ?? [:]
        let job = Data(#"{"source": "/m/a.mp4", "priority": 0, "overwrite": false}"#.utf8)
        let own = "http://127.0.0.1:\(server.port)"
        let refused: [(String, String, [String: String], Data?)] = [
            ("POST", "/v1/jobs", ["Origin": "http://evil.example", "Content-Type": "application/json"], job),
            ("POST", "/v1/jobs", ["Origin": "null", "Content-Type": "application/json"], job),
            ("POST", "/v1/jobs", ["Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"], job),
            (
                "POST", "/v1/jobs", ["Sec-Fetch-Site": "same-site", "Origin": own, "Content-Type": "application/json"],
                job
            ),
            ("POST", "/v1/jobs/j-1/cancel", ["Origin": "http://127.0.0.1:1"], nil),
            ("POST", "/v1/workers/w1/drain", ["Origin": "http://evil.example"], nil),
            ("POST", "/v1/uploads?filename=a.mp4", ["Sec-Fetch-Site": "cross-site"], Data("abc".utf8)),
            (
                "POST", "/v1/session", ["Origin": "http://evil.example", "Content-Type": "application/json"],
                Data(#"{"token": "t"}"#.utf8)
            ),
        ]
        for (method, path, headers, body) in refused {
            let answer = try await server.raw(method, path, body: body, headers: headers.merging(auth) { a, _ in a })
            #expect(answer.status == 403, "\(method) \(path) \(headers)")
            #expect(try answer.body.errorAnswer().error == "forbidden", "\(path)")
        }
        for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
            let answer = try await server.raw(
                "POST", "/v1/jobs", body: job, headers: ["Content-Type": type].merging(auth) { a, _ in a })
            #expect(answer.status == 415, "\(type)")
            #expect(try answer.body.errorAnswer().message.contains("application/json"), "\(type)")
        }
        #expect(await server.farm.requests.isEmpty, "nothing was submitted")
        // The same request from a script, and from the page's own origin, is taken.
        for extra in [[:], ["Origin": own, "Sec-Fetch-Site": "same-origin"]] {
            let answer = try await server.raw(
                "POST", "/v1/jobs", body: job,
                headers: ["Content-Type": "application/json; charset=utf-8"].merging(extra) { a, _ in a }
                    .merging(auth) { a, _ in a })
            #expect(answer.status == 201, "\(extra): \(String(decoding: answer.body, as: UTF8.self))")
        }
        #expect(await server.farm.requests.count == 2)
        await server.stop()
    }

    @Test func unknownRoutesAre404JSON() async throws {
        let server = try await TestServer.start(token: "t")
        for (method, path) in [("GET", "/v2/jobs"), ("GET", "/"), ("GET", "/v1/nothing"), ("POST", "/v1/jobs/a/b/c")] {
            let answer = try await server.raw(method, path, headers: ["Authorization": "Bearer t"])
            #expect(answer.status == 404, "\(method) \(path)")
            #expect(try answer.body.errorAnswer().error == "notFound", "\(method) \(path)")
        }
        await server.stop()
    }

    /// A JSON body past the 1 MiB limit is 413 with the JSON error body (it was a 500).
    @Test func anOversizedJSONBodyIs413() async throws {
        let server = try await TestServer.start(token: "t")
        let body = Data(#"{"source":""#.utf8) + Data(repeating: UInt8(ascii: "a"), count: 2 << 20) + Data(#""}"#.utf8)
        let answer = try await server.raw(
            "POST", "/v1/jobs", body: body,
            headers: ["Authorization": "Bearer t", "Content-Type": "application/json"])
        #expect(answer.status == 413)
        #expect(try answer.body.errorAnswer().error == "payloadTooLarge")
        #expect(await server.farm.requests.isEmpty)
        await server.stop()
    }

    /// A known path asked with a method it does not answer: 405 with Allow, as openapi.yaml says.
    @Test(arguments: [
        ("DELETE", "/v1/jobs", "GET, POST"), ("TRACE", "/v1/workers", "GET"), ("PUT", "/v1/jobs/j-1", "GET"),
        ("GET", "/v1/jobs/j-1/cancel", "POST"), ("PATCH", "/healthz", "GET"), ("GET", "/v1/uploads", "POST"),
    ])
    func undeclaredMethodsAre405WithAllow(method: String, path: String, allow: String) async throws {
        let server = try await TestServer.start(token: "t")
        let answer = try await server.raw(method, path, headers: ["Authorization": "Bearer t"])
        #expect(answer.status == 405, "\(method) \(path)")
        #expect(answer.headers["allow"] == allow)
        #expect(try answer.body.errorAnswer().error == "methodNotAllowed")
        await server.stop()
    }

    @Test func closedPortIsUnreachableNamingTheURL() async throws {
        // Start and stop a server: its port is then known to be closed.
        let server = try await TestServer.start()
        let client = server.client()
        #expect(try await client.health() == "ok")
        await server.stop()
        await #expect {
            _ = try await client.jobs()
        } throws: { error in
            let error = try #require(error as? ClientError)
            return error.kind == .unreachable
                && error.message
                    == "cannot reach the coordinator at http://127.0.0.1:\(server.port) (connection refused)"
        }
    }
}
