import Foundation
import TesseraTestSupport
import Testing

/// The commands that talk to a coordinator, run as the built binary where no coordinator listens.
@Suite struct FarmCommandTests {
    /// Nothing listens on port 1 of the loopback interface.
    static let closed = "http://127.0.0.1:1"

    static func tessera(
        _ arguments: [String], environment: [String: String] = [:]
    )
        throws -> (status: Int32, stdout: String, stderr: String)
    {
        var env = ProcessInfo.processInfo.environment
        env["TESSERA_COORDINATOR"] = nil
        env["TESSERA_TOKEN"] = nil
        env.merge(environment) { $1 }
        return try TestMedia.runCapturing(TestMedia.tesseraBinary.path, arguments, environment: env)
    }

    @Test(arguments: [
        ["status"], ["status", "job-1"], ["cancel", "job-1"], ["workers"], ["watch", "job-1"],
        ["submit", "/media/a.mov", "-o", "a.mp4"],
    ])
    func unreachableCoordinatorExits69(command: [String]) throws {
        let result = try Self.tessera(command + ["--coordinator", Self.closed, "--token", "t"])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr == "tessera: cannot reach the coordinator at \(Self.closed) (connection refused)\n")
        #expect(result.stdout.isEmpty)
    }

    @Test func coordinatorAndTokenComeFromTheEnvironment() throws {
        let result = try Self.tessera(["workers"], environment: ["TESSERA_COORDINATOR": "http://127.0.0.1:1/"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("at http://127.0.0.1:1/ "))
        let fallback = try Self.tessera(["status", "--coordinator", "http://127.0.0.1:9"])
        #expect(fallback.stderr.contains("http://127.0.0.1:9"))
    }

    @Test func fetchRefusesAnExistingFileBeforeAsking() throws {
        let dir = try TestMedia.makeDirectory("fetch")
        defer { TestMedia.cleanup(dir) }
        let file = dir.appendingPathComponent("out.mp4")
        try Data("mine".utf8).write(to: file)
        let result = try Self.tessera(["fetch", "job-1", "-o", file.path, "--coordinator", Self.closed])
        #expect(result.status == 73)
        #expect(result.stderr.contains("exists; pass --overwrite"))
        #expect(try Data(contentsOf: file) == Data("mine".utf8))
        // With --overwrite it gets as far as the network, and leaves the file alone when that fails.
        let retry = try Self.tessera(["fetch", "job-1", "-o", file.path, "--overwrite", "--coordinator", Self.closed])
        #expect(retry.status == 69)
        #expect(try Data(contentsOf: file) == Data("mine".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.mp4"])
    }

    @Test func uploadOfAMissingFileExits66() throws {
        let result = try Self.tessera(["submit", "/nonexistent/clip.mov", "--upload", "--coordinator", Self.closed])
        #expect(result.status == 66)
        #expect(result.stderr.contains("cannot read /nonexistent/clip.mov"))
    }

    @Test(arguments: [
        (["status", "--coordinator", "ftp://farm"], "not an http:// or https:// address"),
        (["status", "--token", "a", "--token-file", "/etc/hostname"], "not both"),
        (["status", "--token-file", "/nonexistent/token"], "cannot read --token-file"),
        (["submit", "a.mov", "--preset", "NoSuchPreset"], "unknown preset"),
        (["submit", "a.mov", "--time-range", "soon"], "cannot read time range"),
        // --parallel is the one spelling; the old --parallelism is still read, as a hidden alias.
        (["submit", "a.mov", "--parallelism", "0"], "--parallel must be 1…4096"),
        (["submit", "a.mov", "--parallel", "2", "--parallelism", "3"], "give --parallel once"),
        (["run", "a.mov", "-o", "b.mp4", "--segment-duration", "0"], "--segment-duration must be positive"),
        // Timings become milliseconds on the wire: values past them are refused, not converted.
        (["coordinator", "--stall-timeout", "1e300"], "timings and limits out of range"),
        (["coordinator", "--stall-timeout", "inf"], "timings and limits out of range"),
        (["coordinator", "--heartbeat-ms", "9223372036854775807"], "timings and limits out of range"),
        (["coordinator", "--backup-multiplier", "nan"], "--backup-multiplier must be 0"),
        (["worker", "--media-root", "/a/../b"], "--media-root /a/../b: LOCAL or LOCAL=COORDINATOR"),
    ])
    func badArgumentsExit64(arguments: [String], says: String) throws {
        let result = try Self.tessera(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(says), "\(result.stderr)")
    }

    @Test func helpDocumentsTheExitCodesAndTheOutputRoot() throws {
        /// Help text with its line wrapping undone.
        func help(_ command: String) throws -> String {
            try Self.tessera([command, "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        #expect(try help("submit").contains("OUT is relative to the coordinator's output root"))
        for command in ["submit", "status", "watch", "cancel", "workers", "fetch"] {
            let text = try help(command)
            #expect(text.contains("69 coordinator unreachable or unavailable"), "\(command)")
            #expect(text.contains("130 the job was cancelled"), "\(command)")
            #expect(text.contains("--coordinator <url>"), "\(command)")
        }
    }
}
