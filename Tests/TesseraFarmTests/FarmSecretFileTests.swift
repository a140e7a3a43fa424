import Foundation
import TesseraTestSupport
import Testing

/// Secrets kept where others can change them are refused, as ssh refuses such keys; ones others can read
/// are taken with a warning; an empty token file does not start a coordinator that refuses everything.
@Suite("Farm secret files", .serialized)
struct FarmSecretFileTests {
    @Test("world-writable or empty token files and world-writable keys are refused; world-readable ones warned about")
    func permissions() throws {
        let farm = try FarmFixture(curve: true)
        try farm.makeWorkerKey("w1", allowed: true)  // a coordinator with CURVE needs one allowed key
        let token = farm.keys.appendingPathComponent("token").path
        let secret = farm.keys.appendingPathComponent("coordinator.key").path
        func coordinator() throws -> (status: Int32, stdout: String, stderr: String) {
            // Exits before it serves when a secret is refused; a short timeout stops one that starts.
            try TestMedia.runCapturing(
                "/usr/bin/timeout",
                [
                    "5", TestMedia.tesseraBinary.path, "coordinator",
                    "--listen", "tcp://127.0.0.1:*", "--http", "127.0.0.1:0",
                    "--data", farm.data.path, "--token-file", token, "--curve-secret", secret,
                    "--allowed-keys", farm.keys.appendingPathComponent("allowed").path,
                ])
        }
        chmod(token, 0o666)
        var r = try coordinator()
        #expect(r.status != 0 && r.status != 124, "a world-writable token file started a coordinator")
        #expect(r.stderr.contains("writable by anyone"), "\(r.stderr)")

        chmod(token, 0o600)
        chmod(secret, 0o646)
        r = try coordinator()
        #expect(r.status != 0 && r.status != 124)
        #expect(r.stderr.contains("CURVE secret key") && r.stderr.contains("writable by anyone"), "\(r.stderr)")

        chmod(secret, 0o600)
        try Data().write(to: URL(fileURLWithPath: token))
        chmod(token, 0o600)
        r = try coordinator()
        #expect(r.status != 0 && r.status != 124)
        #expect(r.stderr.contains("is empty"), "\(r.stderr)")

        // World-readable: it starts (and is stopped by the timeout), with a warning naming the fix.
        try Data(farm.token.utf8).write(to: URL(fileURLWithPath: token))
        chmod(token, 0o644)
        r = try coordinator()
        #expect(r.status == 124, "\(r.stderr)")
        #expect((r.stdout + r.stderr).contains("readable by anyone"), "\(r.stdout)\(r.stderr)")

        // A worker's world-writable key is refused too.
        let key = farm.keys.appendingPathComponent("w1.key").path
        chmod(key, 0o606)
        let w = try TestMedia.runCapturing(
            "/usr/bin/timeout",
            [
                "5", TestMedia.tesseraBinary.path, "worker",
                "--coordinator", farm.endpoint, "--curve-key", key,
                "--coordinator-key", farm.keys.appendingPathComponent("coordinator.pub").path,
            ])
        #expect(w.status != 0 && w.status != 124)
        #expect(w.stderr.contains("writable by anyone"), "\(w.stderr)")
    }
}
