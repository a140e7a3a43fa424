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
