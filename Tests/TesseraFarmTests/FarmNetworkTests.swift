import Foundation
import TesseraTestSupport
import Testing

/// Several hosts on one machine: the coordinator and each worker in its own network namespace, joined
/// by veth pairs on a bridge, so the protocol crosses real network interfaces. Needs root (CAP_NET_ADMIN).
@Suite("Farm across network namespaces", .serialized)
struct FarmNetworkTests {
    /// Three namespaces on a bridge: tc-ID (coordinator, 10.77.0.1) and tw1-ID/tw2-ID (workers).
    final class Network {
        let id = String(UUID().uuidString.prefix(5)).lowercased()
        var bridge: String { "tb\(id)" }
        func ns(_ name: String) -> String { "t\(name)-\(id)" }
        func hostLink(_ name: String) -> String { "v\(name)\(id)" }
        let hosts = [("c", "10.77.0.1"), ("w1", "10.77.0.11"), ("w2", "10.77.0.12")]

        static func ip(_ args: [String]) throws {
            try TestMedia.run("/usr/sbin/ip", args)
        }

        func up() throws {
            try Self.ip(["link", "add", bridge, "type", "bridge"])
            try Self.ip(["link", "set", bridge, "up"])
            for (name, address) in hosts {
                try Self.ip(["netns", "add", ns(name)])
                try Self.ip(["link", "add", hostLink(name), "type", "veth", "peer", "name", "e0", "netns", ns(name)])
                try Self.ip(["link", "set", hostLink(name), "master", bridge, "up"])
                try Self.ip(["-n", ns(name), "addr", "add", "\(address)/24", "dev", "e0"])
                try Self.ip(["-n", ns(name), "link", "set", "e0", "up"])
                try Self.ip(["-n", ns(name), "link", "set", "lo", "up"])
            }
        }

        func setLink(_ name: String, up: Bool) throws {
            try Self.ip(["link", "set", hostLink(name), up ? "up" : "down"])
        }

        func down() {
            for (name, _) in hosts {
                _ = try? TestMedia.runCapturing("/usr/sbin/ip", ["link", "del", hostLink(name)])
                _ = try? TestMedia.runCapturing("/usr/sbin/ip", ["netns", "del", ns(name)])
            }
            _ = try? TestMedia.runCapturing("/usr/sbin/ip", ["link", "del", bridge])
        }
    }

    /// Whether this process may make namespaces; prints why not when it may not.
    static var permitted: Bool {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") else {
            print("⚠️ FarmNetworkTests NOT RUN: creating network namespaces needs root and iproute2 (uid \(getuid()))")
            return false
        }
        return true
    }

    @Test("workers on other hosts finish a job; one worker's link cut for 10 s is survived")
    func multiHostWithLinkCut() throws {
        guard Self.permitted else { return }
        let net = Network()
        defer { net.down() }
        try net.up()
        let farm = try FarmFixture()
        farm.coordinatorNamespace = net.ns("c")
        farm.coordinatorAddress = "10.77.0.1"
        let src = farm.media.appendingPathComponent("src.mp4")
        try TestMedia.make(
            src, seconds: 12, width: 640, height: 360,
            video: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p"])
        try farm.startCoordinator()
        try farm.startWorker("w1", namespace: net.ns("w1"))
        try farm.startWorker("w2", namespace: net.ns("w2"))
        #expect(
            try farm.eventually(20) {
                let w = try farm.client(["workers", "--json"]).stdout
                return w.contains("\"w1\"") && w.contains("\"w2\"")
            }, "both remote workers joined: \(farm.log("w1").suffix(500))")
        let id = try farm.submit(src, output: "out.mp4", ["--segment-duration", "1", "--speed", "slower"])
        #expect(try farm.eventually(60) { farm.log("w1").contains(" done: ") })
        try net.setLink("w1", up: false)
        Thread.sleep(forTimeInterval: 10)
        try net.setLink("w1", up: true)
        let status = try farm.wait(id)
        #expect(status["state"] as? String == "completed", "\(status)\n\(farm.log("coordinator").suffix(2000))")
        #expect(
            farm.log("coordinator").contains("worker w1 went silent") || farm.log("coordinator").contains("w1 silent"),
            "the cut was noticed")
        // The worker came back over the restored link.
        #expect(
            try farm.eventually(30) { try farm.client(["workers", "--json"]).stdout.contains("\"w1\"") },
            "w1 reconnected: \(farm.log("w1").suffix(800))")
        let verify = try TestMedia.runCapturing(
            TestMedia.tesseraBinary.path,
            ["verify", farm.outputs.appendingPathComponent("out.mp4").path, "--against", src.path])
        #expect(verify.status == 0, "\(verify.stdout)")
    }
}
