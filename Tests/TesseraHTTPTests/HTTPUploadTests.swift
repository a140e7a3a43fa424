import Foundation
import TesseraClient
import TesseraTestSupport
import Testing

@testable import TesseraHTTPTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `POST /v1/uploads`: streamed to the staging folder, size-limited, nothing left behind on failure.
@Suite struct HTTPUploadTests {
    static func stagedFiles(_ server: TestServer) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: server.farm.uploadStaging.path)) ?? []
    }

    static func writeFile(_ bytes: Int, in folder: URL, name: String) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try TestMedia.garbage(count: bytes).write(to: url)
        return url
    }

    @Test func thirtyMegabytesArriveByteIdentical() async throws {
        let server = try await TestServer.start(token: "t")
        let dir = try TestMedia.makeDirectory("upload")
        defer { TestMedia.cleanup(dir) }
        let file = try Self.writeFile(30 << 20, in: dir, name: "clip with spaces&more+.mov")

        let started = Date()
        let id = try await server.client().upload(file: file)
        let seconds = Date().timeIntervalSince(started)
        print("upload of 30 MiB over loopback: \(String(format: "%.2f", seconds)) s")

        let stored = try #require(await server.farm.uploads[id])
        #expect(stored.filename == "clip with spaces&more+.mov")
        #expect(try Data(contentsOf: stored.file) == Data(contentsOf: file))
        #expect(Self.stagedFiles(server).isEmpty)
        // The id works as a job's source.
        let job = try await server.client().submit(.init(uploadID: id))
        #expect(job.source == stored.file.path)
        await server.stop()
    }

    @Test func overTheLimitIs413AndLeavesNothing() async throws {
        let server = try await TestServer.start(maxUploadBytes: 1 << 20)
        let dir = try TestMedia.makeDirectory("upload")
        defer { TestMedia.cleanup(dir) }
        let file = try Self.writeFile(3 << 20, in: dir, name: "big.mov")
        await #expect {
            _ = try await server.client().upload(file: file)
        } throws: { error in
            (error as? ClientError)?.kind == .rejected(status: 413, error: "payloadTooLarge")
        }
        // Without Content-Length (chunked), the limit is enforced while streaming.
        var request = URLRequest(url: server.baseURL.appendingPathComponent("v1/uploads"))
        request.url = URL(string: request.url!.absoluteString + "?filename=big.mov")
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(url: file)
        let (body, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 413)
        #expect(try body.errorAnswer().error == "payloadTooLarge")

        #expect(Self.stagedFiles(server).isEmpty)
        #expect(await server.farm.uploads.isEmpty)
        // Exactly at the limit is fine.
        let fits = try Self.writeFile(1 << 20, in: dir, name: "fits.mov")
        let id = try await server.client().upload(file: fits)
        #expect(try await Data(contentsOf: server.farm.uploads[id]!.file) == Data(contentsOf: fits))
        await server.stop()
    }

    @Test func anAbortedUploadLeavesNoTemporaryFile() async throws {
        let server = try await TestServer.start()
        let connection = try await RawConnection.open(port: server.port)
        try await connection.send(
            Data("POST /v1/uploads?filename=cut.mov HTTP/1.1\r\nHost: test\r\n".utf8)
                + Data("Content-Length: 10000000\r\n\r\n".utf8) + TestMedia.garbage(count: 1 << 20))
        // Wait until the server has a file open in the staging folder, then drop the connection mid-body.
        #expect(await Self.eventually { Self.openFiles(in: server.farm.uploadStaging) > 0 })
        connection.close()
        #expect(await Self.eventually { Self.openFiles(in: server.farm.uploadStaging) == 0 })
        #expect(Self.stagedFiles(server).isEmpty)
        #expect(await server.farm.uploads.isEmpty)
        await server.stop()
    }

    @Test func aMissingOrPathFilenameIs400() async throws {
        let server = try await TestServer.start()
        for query in ["", "?filename=", "?filename=a/b.mov", "?filename=.."] {
            let answer = try await server.raw("POST", "/v1/uploads\(query)", body: Data("abc".utf8))
            #expect(answer.status == 400, "\(query)")
            #expect(try answer.body.errorAnswer().error == "invalidRequest")
        }
        #expect(Self.stagedFiles(server).isEmpty)
        await server.stop()
    }

    @Test func aMissingLocalFileIsCannotRead() async throws {
        let server = try await TestServer.start()
        await #expect {
            _ = try await server.client().upload(file: URL(fileURLWithPath: "/nonexistent/clip.mov"))
        } throws: { error in
            let error = try #require(error as? ClientError)
            return error.kind == .cannotRead && error.message.contains("/nonexistent/clip.mov")
        }
        await server.stop()
    }

    /// How many of this process's file descriptors point into `folder` (an unnamed temporary file
    /// shows there too, as "folder/#inode (deleted)").
    static func openFiles(in folder: URL) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { fd in
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) ?? ""
            return target.hasPrefix(folder.path + "/")
        }.count
    }

    /// Polls `condition` for up to five seconds.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<100 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }
}

/// A plain TCP connection for sending a request the way no HTTP client would (cut off mid-body).
/// Its blocking socket calls run on their own threads, never on the cooperative pool.
final class RawConnection: @unchecked Sendable {
    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    static func open(port: Int) async throws -> RawConnection {
        try await onThread {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard fd >= 0, result == 0 else { throw POSIXError(.ECONNREFUSED) }
            return RawConnection(fd: fd)
        }
    }

    func send(_ data: Data) async throws {
        try await Self.onThread {
            try data.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let n = Glibc.send(self.fd, bytes.baseAddress! + offset, bytes.count - offset, 0)
                    guard n > 0 else { throw POSIXError(.EPIPE) }
                    offset += n
                }
            }
        }
    }

    func close() { _ = Glibc.close(fd) }

    private static func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}
