import Foundation
import TesseraTestSupport
import TesseraWire
import Testing

/// What reaches a farm from outside: uploads and downloads, paths outside the roots, and garbage on the
/// workers' port.
@Suite("Farm inputs", .serialized)
struct FarmInputTests {
    @Test("an uploaded source is transcoded and its output fetched")
    func uploadAndFetch() throws {
        let farm = try FarmFixture()
        let elsewhere = try TestMedia.makeDirectory("upload-src")
        defer { TestMedia.cleanup(elsewhere) }
        let src = elsewhere.appendingPathComponent("clip.mp4")
        try TestMedia.make(src, seconds: 3)
        try farm.startCoordinator()
        try farm.startWorker("w1")
        let r = try farm.client(["submit", src.path, "--upload", "--segment-duration", "1", "--wait"])
        #expect(r.status == 0, "\(r.stderr)")
        let id = try #require(
            r.stdout.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("j-") }.map(String.init),
            "job id printed: \(r.stdout)")
        let fetched = elsewhere.appendingPathComponent("fetched.mp4")
        let f = try farm.client(["fetch", id, "-o", fetched.path])
        #expect(f.status == 0, "\(f.stderr)")
        let verify = try TestMedia.runCapturing(
            TestMedia.tesseraBinary.path, ["verify", fetched.path, "--against", src.path])
        #expect(verify.status == 0, "\(verify.stdout)")
    }

    @Test("a source outside the media roots and an output outside the output root are refused")
    func confinement() throws {
        let farm = try FarmFixture()
        let outside = try TestMedia.makeDirectory("outside")
        defer { TestMedia.cleanup(outside) }
        let src = outside.appendingPathComponent("secret.mp4")
        try TestMedia.make(src, seconds: 1)
        try FileManager.default.createSymbolicLink(
            at: farm.media.appendingPathComponent("link.mp4"), withDestinationURL: src)
        let inside = farm.media.appendingPathComponent("ok.mp4")
        try TestMedia.make(inside, seconds: 1)
        try farm.startCoordinator()
        for path in [
            src.path, farm.media.appendingPathComponent("link.mp4").path,
            farm.media.path + "/../" + outside.lastPathComponent + "/secret.mp4",
        ] {
            let r = try farm.client(["submit", path, "-o", "x.mp4"])
            #expect(r.status == 77, "\(path): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains("outside"), "\(r.stderr)")
        }
        // A '..' component is refused as a bad request (400) before the path is even resolved.
        let r = try farm.client(["submit", inside.path, "-o", "../escape.mp4"])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("output"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: farm.root.appendingPathComponent("escape.mp4").path))
    }

    @Test("garbage, unknown and oversized messages on the workers' port are dropped; the farm keeps working")
    func garbageOnTheWire() throws {
        let farm = try FarmFixture()
        farm.coordinatorFlags += ["--max-message-mb", "1"]
        let src = farm.media.appendingPathComponent("a.mp4")
        try TestMedia.make(src, seconds: 2)
        try farm.startCoordinator()
        let context = ZMQContext()
        let rogue = try ZMQSocket(context, .dealer)
        try rogue.connect(farm.endpoint)
        _ = try rogue.send([TestMedia.garbage(count: 4096)])  // not protobuf
        _ = try rogue.send([Data([0x08, UInt8(WireCodec.version + 1)])])  // a later version, no body
        var ready = Tessera_V1_Envelope()
        ready.version = WireCodec.version
        ready.ready.credit = 5
        _ = try rogue.send([WireCodec.encode(ready)])  // no session
        _ = try rogue.send([Data("a".utf8), Data("b".utf8), Data("c".utf8)])  // wrong frame count
        let big = try ZMQSocket(context, .dealer)  // over --max-message-mb
        try big.connect(farm.endpoint)
        _ = try big.send([Data(count: 2 << 20)])
        // A raw TCP client speaking no ZMTP at all.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(farm.zmqPort).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, 16) }
        }
        let junk = [UInt8](TestMedia.garbage(count: 65536, seed: 7))
        _ = junk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        // The rogue peer is told its version is not spoken, and to say Hello first.
        var codes: [Tessera_V1_ErrorCode] = []
        while let answer = try rogue.receive(timeoutMilliseconds: 3000) {
            if let reject = try? WireCodec.decode(answer.last!) { codes.append(reject.reject.code) }
        }
        #expect(codes.contains(.unsupportedVersion), "\(codes)")
        #expect(codes.contains(.unknownWorker), "\(codes)")
        rogue.close()
        big.close()
        // Still alive and working.
        try farm.startWorker("w1")
        let id = try farm.submit(src, output: "out.mp4", ["--segment-duration", "1"])
        #expect(try farm.wait(id)["state"] as? String == "completed")
        #expect(farm.coordinator?.isRunning == true)
        #expect(farm.log("coordinator").contains("dropped a message"))
    }
}
