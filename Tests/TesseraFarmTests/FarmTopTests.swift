import Foundation
import TesseraTestSupport
import Testing

/// `tessera top` against a real coordinator and workers: in tmux at 80×24 (the header and a row per
/// worker, `q` exits 0), on a pipe (no escape byte), as JSON, squeezed ("+N more"), and with the
/// coordinator gone ("unreachable, retrying"); and `tessera watch`'s segment map.
@Suite("tessera top", .serialized) struct FarmTopTests {
    /// Runs `tessera top` in a detached tmux session of `width`×`height`; the pane stays after it exits.
    final class Pane {
        let name = "top-\(UUID().uuidString.prefix(8))"

        /// Runs a tmux command. Through Python's subprocess, which closes every inherited descriptor: a
        /// tmux server started here would otherwise keep Foundation's child-watch socket open, and the
        /// test would wait for the client forever (it did, in a fresh clone with no server running).
        @discardableResult
        static func tmux(_ args: [String]) throws -> String {
            let script =
                "import subprocess, sys; r = subprocess.run(['tmux'] + sys.argv[1:], "
                + "stdin=subprocess.DEVNULL, capture_output=True, text=True); print(r.stdout, end='')"
            return try TestMedia.run("/usr/bin/python3", ["-c", script] + args)
        }

        init(_ farm: FarmFixture, width: Int = 80, height: Int = 24, coordinator: String? = nil) throws {
            // A terminal that takes escape codes (this environment may set NO_COLOR).
            let command =
                "env -u NO_COLOR TESSERA_TOKEN=\(farm.token) \(TestMedia.tesseraBinary.path) top --coordinator "
                + "\(coordinator ?? farm.httpURL); echo EXIT=$?; sleep 30"
            try Self.tmux(["new-session", "-d", "-s", name, "-x", "\(width)", "-y", "\(height)", command])
        }
        var screen: String { (try? Self.tmux(["capture-pane", "-p", "-t", name])) ?? "" }
        func press(_ key: String) throws { try Self.tmux(["send-keys", "-t", name, key]) }
        deinit { _ = try? Self.tmux(["kill-session", "-t", name]) }
    }

    @Test("the live view shows the farm in tmux, q exits 0; piped and JSON snapshots; +N more; unreachable")
    func topShowsTheFarm() throws {
        let farm = try FarmFixture()
        try farm.startCoordinator()
        try farm.startWorker("w-alpha")
        try farm.startWorker("w-beta")
        #expect(try farm.eventually(20) { try farm.client(["workers", "--json"]).stdout.contains("w-beta") })

        let pane = try Pane(farm)
        #expect(
            farm.eventually(10) { pane.screen.contains("w-alpha") && pane.screen.contains("w-beta") },
            "\(pane.screen)")
        let screen = pane.screen
        #expect(screen.contains("frames/s") && screen.contains("workers 2"), "\(screen)")
        #expect(screen.split(separator: "\n").allSatisfy { $0.count <= 80 })
        try pane.press("q")
        #expect(farm.eventually(5) { pane.screen.contains("EXIT=0") }, "\(pane.screen)")

        // Piped: plain text, no escape byte.
        let piped = try farm.client(["top", "--once", "--interval", "0.2"])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(!piped.stdout.utf8.contains(0x1B))
        #expect(piped.stdout.contains("w-alpha") && piped.stdout.contains("workers 2"))
        // JSON: the same numbers.
        let json = try farm.client(["top", "--once", "--json", "--interval", "0.2"])
        let view = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(view["workers"] as? Int == 2)
        #expect(
            Set(((view["rows"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }) == ["w-alpha", "w-beta"])

        // Six rows of terminal: the header and "+2 more" instead of rows that do not fit.
        let small = try Pane(farm, height: 6)
        #expect(farm.eventually(10) { small.screen.contains("+2 more") }, "\(small.screen)")

        // No coordinator there: it says so and keeps trying, instead of dying.
        let gone = try Pane(farm, coordinator: "http://127.0.0.1:1")
        #expect(farm.eventually(20) { gone.screen.contains("unreachable, retrying") }, "\(gone.screen)")
        #expect(!gone.screen.contains("EXIT="))

        // `tessera watch` ends with the job's segment map in text; `--map` prints it at once.
        let src = farm.media.appendingPathComponent("map.mp4")
        try TestMedia.make(
            src, seconds: 2, video: ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "15"])
        let id = try farm.submit(src, output: "map.mp4", ["--segment-duration", "0.5"])
        // While (and for ten seconds after) frames come out, the coordinator's rate book shows them: the
        // farm's rate and a worker's in top's header and rows, from /v1/farm and /v1/workers.
        #expect(
            try farm.eventually(30) {
                let top = try farm.client(["top", "--once", "--json"])
                guard let view = try JSONSerialization.jsonObject(with: Data(top.stdout.utf8)) as? [String: Any],
                    let rows = view["rows"] as? [[String: Any]]
                else { return false }
                return (view["framesPerSecond"] as? Double ?? 0) > 0
                    && rows.contains { ($0["framesPerSecond"] as? Double ?? 0) > 0 }
            })
        let watched = try farm.client(["watch", id])
        #expect(watched.status == 0, "\(watched.stderr)")
        let total = try #require(try farm.job(id)["segmentsTotal"] as? Int)
        #expect(total >= 2 && watched.stderr.contains("# done \(total)"), "\(watched.stderr)")
        let map = try farm.client(["watch", id, "--map"])
        #expect(map.stdout.contains(String(repeating: "#", count: total)), "\(map.stdout)")
    }
}
