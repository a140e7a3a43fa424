import Foundation
import TesseraTestSupport
import Testing

/// A bounded schemathesis pass (PyPI, installed by Scripts/install-deps.sh) against a real coordinator:
/// status codes, content types, response schemas, 405 for undeclared methods, schema-violating requests
/// refused, across every operation of Protocols/openapi.yaml and a stateful run through its links.
///
/// One check is left out: `positive_data_acceptance` (ST202) needs the spec to express rules that
/// span fields and the machine (a profile with a pixel format, a codec in a container, a speed in the
/// chosen encoder's vocabulary, a source that exists); the server refuses those with 400 naming the
/// field, as the spec's description says. Per-field bounds are in the spec and checked.
///
/// One operation is left out: `GET /v1/events` never ends (Server-Sent Events), so no response can be
/// checked; FarmDashboardTests follows it in a browser, and DashboardTests checks it refuses strangers.
@Suite("Farm API conformance", .serialized)
struct FarmAPIConformanceTests {
    static let spec = TestMedia.repositoryRoot.appendingPathComponent("Protocols/openapi.yaml")

    @Test("schemathesis finds no mismatch between openapi.yaml and the coordinator")
    func schemathesis() throws {
        let tool = "/usr/local/bin/schemathesis"
        try #require(
            FileManager.default.isExecutableFile(atPath: tool), "Scripts/install-deps.sh installs schemathesis")
        let farm = try FarmFixture()
        try TestMedia.make(farm.media.appendingPathComponent("a.mp4"), seconds: 1)
        try farm.startCoordinator()
        // Run from the farm's temporary folder: schemathesis keeps a cache in its working directory.
        let r = try TestMedia.runCapturing(
            "/usr/bin/env",
            [
                "-C", farm.root.path, "/usr/bin/timeout", "300", tool, "run", Self.spec.path, "--url", farm.httpURL,
                "-H", "Authorization: Bearer \(farm.token)",
                "--max-examples", "25", "--seed", "7", "--exclude-checks", "positive_data_acceptance", "--no-color",
                "--exclude-path", "/v1/events",
            ])
        #expect(r.status == 0, "\(r.stdout.suffix(6000))\(r.stderr.suffix(2000))")
        #expect(r.stdout.contains("generated"), "\(r.stdout.suffix(2000))")
        #expect(
            farm.coordinator?.isRunning == true,
            "the coordinator died under the fuzzer:\n\(farm.log("coordinator").suffix(3000))")
    }
}
