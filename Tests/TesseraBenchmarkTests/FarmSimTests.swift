import Foundation
import TesseraTestSupport
import Testing

/// Benchmarks/farm-sim/farmsim.py, the farm scheduling model, on inputs whose answer is known.
@Suite struct FarmSimTests {
    static let script = TestMedia.repositoryRoot.appendingPathComponent("Benchmarks/farm-sim/farmsim.py")

    /// Writes `input` as JSON and runs the model on it; returns the runs by worker count.
    func simulate(_ input: [String: Any], _ options: [String] = []) throws -> [Int: [String: Double]] {
        let dir = try TestMedia.makeDirectory("farmsim")
        defer { TestMedia.cleanup(dir) }
        let file = dir.appendingPathComponent("input.json")
        try JSONSerialization.data(withJSONObject: input).write(to: file)
        let output = try TestMedia.run("python3", [Self.script.path, file.path, "--json"] + options)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let runs = try #require(report["runs"] as? [[String: Double]])
        return Dictionary(uniqueKeysWithValues: runs.map { (Int($0["workers"] ?? 0), $0) })
    }

    /// 15 segments of 4 s taking 2 s each, 1 MB in and 0.2 MB out, and the given serial costs.
    func input(verify: Double = 0, audio: Double = 0) -> [String: Any] {
        [
            "segmentSeconds": Array(repeating: 2.0, count: 15),
            "segmentContentSeconds": Array(repeating: 4.0, count: 15),
            "segmentInputBytes": Array(repeating: 1_000_000, count: 15),
            "segmentOutputBytes": Array(repeating: 200_000, count: 15), "verifySeconds": verify, "audioSeconds": audio,
        ]
    }

    @Test func withoutSerialWorkOnlyTheLastSegmentsKeepEfficiencyBelowOne() throws {
        let runs = try simulate(input())
        // 7200 s of content in 1800 segments of 2 s: one worker needs the encode time plus one transfer each way.
        let one = try #require(runs[1]?["makespan"])
        #expect(abs(one - 3600) < 0.1, "\(one)")
        for n in [2, 4, 8, 16, 32, 64] {
            let run = try #require(runs[n])
            #expect(run["makespan"]! >= 3600 / Double(n), "no faster than perfect division")
            #expect(run["makespan"]! <= 3600 / Double(n) + 2 * 2 + 0.1, "at most two segment times of tail")
        }
        #expect(try #require(runs[16]?["efficiency"]) > 0.97)
    }

    @Test func serialVerificationCapsTheSpeedUpUnlessWorkersVerify() throws {
        // Verifying 60 s of content takes 3 s on the coordinator: 360 s for the film, after the last segment.
        let atTheEnd = try simulate(input(verify: 3))
        let onWorkers = try simulate(input(verify: 3), ["--verify", "workers"])
        let end64 = try #require(atTheEnd[64]?["makespan"]), workers64 = try #require(onWorkers[64]?["makespan"])
        #expect(end64 >= 360 + 3600 / 64)
        #expect(workers64 < 360 / 2, "the same decoding spread over 64 workers: \(workers64)")
        let makespans = (atTheEnd.keys.sorted()).map { atTheEnd[$0]!["makespan"]! }
        #expect(makespans == makespans.sorted(by: >), "more workers never take longer")
    }

    @Test func audioEncodedWhileWorkersEncodeBoundsTheMakespanFromBelow() throws {
        let runs = try simulate(input(audio: 6))  // 720 s of audio encoding for the film, on the coordinator
        #expect(try #require(runs[64]?["makespan"]) >= 720)
        #expect(try #require(runs[1]?["makespan"]) < 3600 + 1, "hidden behind the video at one worker")
    }

    @Test func inputWithoutSegmentTimesIsRefusedWithAReason() throws {
        let dir = try TestMedia.makeDirectory("farmsim")
        defer { TestMedia.cleanup(dir) }
        let file = dir.appendingPathComponent("bad.json")
        try Data(#"{"planningSeconds": 1}"#.utf8).write(to: file)
        let result = try TestMedia.runCapturing("python3", [Self.script.path, file.path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("segmentSeconds must be a non-empty list"), "\(result.stderr)")
    }
}
