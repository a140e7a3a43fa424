import Foundation
import TesseraClient
import TesseraTestSupport
import Testing

@testable import TesseraHTTPTestSupport

/// `GET /v1/jobs/{id}/output` through `CoordinatorClient.download`: streamed, renamed into place, careful
/// with existing files.
@Suite struct ClientDownloadTests {
    static func listing(_ dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted()
    }

    @Test func outputArrivesByteIdenticalAndRefusesToOverwrite() async throws {
        let server = try await TestServer.start(token: "t")
        let dir = try TestMedia.makeDirectory("download")
        defer { TestMedia.cleanup(dir) }
        let client = server.client()
        let job = try await client.submit(.init(source: "/media/a.mov"))
        let output = server.farm.folder.appendingPathComponent("result.mp4")
        let bytes = TestMedia.garbage(count: 12 << 20, seed: 42)
        try bytes.write(to: output)
        await server.farm.setOutput(output, of: job.id)

        let destination = dir.appendingPathComponent("fetched.mp4")
        let written = try await client.download(jobID: job.id, to: destination)
        #expect(written == Int64(bytes.count))
        #expect(try Data(contentsOf: destination) == bytes)
        #expect(Self.listing(dir) == ["fetched.mp4"])  // the temporary name is gone

        // An existing file is refused and left as it was.
        try Data("keep me".utf8).write(to: destination)
        await #expect {
            try await client.download(jobID: job.id, to: destination)
        } throws: { error in
            (error as? ClientError)?.kind == .cannotWrite
        }
        #expect(try Data(contentsOf: destination) == Data("keep me".utf8))
        #expect(Self.listing(dir) == ["fetched.mp4"])

        try await client.download(jobID: job.id, to: destination, overwrite: true)
        #expect(try Data(contentsOf: destination) == bytes)
        #expect(Self.listing(dir) == ["fetched.mp4"])

        let raw = try await server.raw("GET", "/v1/jobs/\(job.id)/output", headers: ["Authorization": "Bearer t"])
        #expect(raw.status == 200)
        #expect(raw.headers["content-type"] == "video/mp4")
        #expect(raw.headers["content-length"] == "\(bytes.count)")
        await server.stop()
    }

    @Test func aByteRangeIsAnsweredWith206AndAnyOtherRangeAsHTTPSays() async throws {
        let server = try await TestServer.start(token: "t")
        let media = server.farm.folder.appendingPathComponent("media/sub folder")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        let bytes = TestMedia.garbage(count: 300_000, seed: 9)
        let file = media.appendingPathComponent("a b%.mp4")
        try bytes.write(to: file)
        let path =
            "/v1/media"
            + file.path.split(separator: "/").map {
                $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            }.map { "/" + $0 }.joined()
        let auth = ["Authorization": "Bearer t"]
        func get(_ range: String?) async throws -> (status: Int, headers: [String: String], body: Data) {
            try await server.raw("GET", path, headers: range.map { auth.merging(["Range": $0]) { a, _ in a } } ?? auth)
        }
        let whole = try await get(nil)
        #expect(whole.status == 200 && whole.body == bytes)
        #expect(whole.headers["accept-ranges"] == "bytes")
        let cases: [(String, Range<Int>)] = [
            ("bytes=0-99", 0..<100), ("bytes=299990-", 299_990..<300_000), ("bytes=-10", 299_990..<300_000),
            ("bytes=1000-999999999", 1000..<300_000), ("bytes=5-5", 5..<6),
        ]
        for (header, want) in cases {
            let part = try await get(header)
            #expect(part.status == 206, "\(header)")
            #expect(part.body == bytes[want], "\(header)")
            #expect(
                part.headers["content-range"] == "bytes \(want.lowerBound)-\(want.upperBound - 1)/300000", "\(header)")
        }
        // Past the end: 416 with the size; several ranges, another unit or nonsense: the whole file.
        let past = try await get("bytes=300000-")
        #expect(past.status == 416 && past.headers["content-range"] == "bytes */300000")
        for header in ["bytes=0-1,5-6", "items=0-1", "bytes=9-2", "bytes=x-", "bytes=99999999999999999999-"] {
            let answer = try await get(header)
            #expect(answer.status == 200 && answer.body.count == bytes.count, "\(header)")
        }
        // Behind the token; nothing outside the media roots, no '..'.
        #expect(try await server.raw("GET", path).status == 401)
        #expect(try await server.raw("GET", "/v1/media/etc/hostname", headers: auth).status == 403)
        let root = media.deletingLastPathComponent().path  // no space: the URL is taken as written
        let dots = try await server.raw("GET", "/v1/media" + root + "/%2E%2E/x", headers: auth)
        #expect(dots.status == 403, "\(dots.status) \(String(decoding: dots.body, as: UTF8.self))")
        #expect(try await server.raw("GET", "/v1/media" + media.path + "/none.mp4", headers: auth).status == 404)
        // The output route takes ranges too.
        let client = server.client()
        let job = try await client.submit(.init(source: "/media/a.mov"))
        await server.farm.setOutput(file, of: job.id)
        let out = try await server.raw(
            "GET", "/v1/jobs/\(job.id)/output", headers: auth.merging(["Range": "bytes=10-19"]) { a, _ in a })
        #expect(out.status == 206 && out.body == bytes[10..<20])
        await server.stop()
    }

    @Test func aFailedDownloadLeavesNothing() async throws {
        let server = try await TestServer.start()
        let dir = try TestMedia.makeDirectory("download")
        defer { TestMedia.cleanup(dir) }
        let client = server.client()
        let job = try await client.submit(.init(source: "/media/a.mov"))
        let destination = dir.appendingPathComponent("out.mp4")
        // No output yet (409 from the service), then an unknown job (404), then a vanished file.
        await #expect {
            try await client.download(jobID: job.id, to: destination)
        } throws: { error in
            let error = try #require(error as? ClientError)
            return error.kind == .rejected(status: 409, error: "conflict") && error.message.contains("no output")
        }
        await #expect {
            try await client.download(jobID: "missing", to: destination)
        } throws: { error in
            (error as? ClientError)?.httpStatus == 404
        }
        await server.farm.setOutput(server.farm.folder.appendingPathComponent("gone.mp4"), of: job.id)
        await #expect {
            try await client.download(jobID: job.id, to: destination)
        } throws: { error in
            (error as? ClientError)?.httpStatus == 404
        }
        #expect(Self.listing(dir).isEmpty)
        await server.stop()
    }
}
