import Foundation
import TesseraTestSupport
import Testing

/// Deploy/ checked by the tools that will read it and against the real binary: the Kubernetes schemas
/// (kubernetes-validate), systemd's own parser (systemd-analyze verify), PyYAML, and the help of
/// `tessera coordinator|worker|keys generate`, which must know every flag Deploy/ passes.
@Suite struct DeployTests {
    let deploy = DeployFiles.folder
    static let zmqPort = 5555, httpPort = 8080
    /// The flags every deployment of a role must pass (compose, Kubernetes, systemd).
    static let required = [
        "coordinator": [
            "--listen", "--http", "--data", "--media-root", "--output-root", "--curve-secret",
            "--allowed-keys", "--token-file",
        ],
        "worker": ["--coordinator", "--curve-key", "--coordinator-key"],
    ]

    @Test func kubernetesManifestsMatchTheSchemas() throws {
        let manifests = try DeployFiles.manifests(deploy)
        #expect(manifests.count >= 5, "Deploy/k8s holds \(manifests.count) manifests")
        let tool = try #require(
            Self.kubernetesValidate,
            """
            kubernetes-validate is not installed: run Scripts/install-deps.sh \
            (it installs the PyPI package kubernetes-validate into /opt/tessera-tools)
            """)
        let result = try TestMedia.runCapturing(
            tool,
            ["--kubernetes-version", "1.30.0", "--strict", "--quiet"]
                + manifests.map(\.path))
        let output = result.stdout + result.stderr
        // Unknown kinds are only warnings to the tool; here they fail too (a misspelt kind is an error).
        #expect(result.status == 0 && !output.contains("WARN") && !output.contains("ERROR"), "\(output)")
    }

    @Test func everyFlagInDeployIsOneTheBinaryKnows() throws {
        let lines = try DeployCommandLine.all(in: deploy)
        let roles = Set(lines.map { $0.subcommand.joined(separator: " ") })
        #expect(roles.isSuperset(of: ["coordinator", "worker", "keys generate"]), "found \(roles.sorted())")
        for (subcommand, uses) in Dictionary(grouping: lines, by: \.subcommand).sorted(by: { "\($0.key)" < "\($1.key)" }
        ) {
            let name = "tessera " + subcommand.joined(separator: " ")
            let flags = Set(uses.flatMap(\.flags)).sorted()
            let files = Set(uses.map(\.file)).sorted().joined(separator: ", ")
            let help = try Self.help(subcommand)
            guard help.contains("USAGE: \(name)") else {
                let problem =
                    "`\(name)` is not a subcommand of \(TestMedia.tesseraBinary.path) (its --help "
                    + "shows another command's); Deploy/ passes it \(flags.joined(separator: " ")) in \(files)"
                Issue.record(Comment(rawValue: problem))
                continue
            }
            let unknown = flags.filter { !Self.lists(help, $0) }
            #expect(
                unknown.isEmpty, "`\(name) --help` does not list \(unknown.joined(separator: " ")), used in \(files)")
        }
        // The deployments themselves (not the examples in comments and README) pass every required flag.
        for line in lines where ["compose.yaml", "k8s/", "systemd/"].contains(where: line.file.hasPrefix) {
            let missing = (Self.required[line.subcommand[0]] ?? []).filter { !line.flags.contains($0) }
            #expect(missing.isEmpty, "\(line.file): tessera \(line.subcommand[0]) lacks \(missing)")
        }
    }

    @Test func portsAgreeEverywhere() throws {
        let expected: Set = [Self.zmqPort, Self.httpPort]
        let dockerfile = try String(contentsOf: deploy.appendingPathComponent("docker/Dockerfile"), encoding: .utf8)
        let exposed = dockerfile.split(separator: "\n").filter { $0.hasPrefix("EXPOSE ") }
            .flatMap { $0.split(separator: " ").dropFirst() }.compactMap { DeployFiles.port(String($0)) }
        #expect(Set(exposed) == expected, "EXPOSE \(exposed)")

        let published = (try DeployFiles.composeServices(deploy)["coordinator"]?["ports"] as? [Any] ?? [])
            .map { DeployFiles.port("\($0)") }
        #expect(Set(published) == expected, "compose coordinator ports \(published)")

        for manifest in try DeployFiles.manifests(deploy) {
            KubernetesPorts(try DeployFiles.yamlDocuments(manifest)).check(expected, file: manifest.lastPathComponent)
        }

        for line in try DeployCommandLine.all(in: deploy) {
            let flags = ["--listen": Self.zmqPort, "--coordinator": Self.zmqPort, "--http": Self.httpPort]
            for (flag, port) in flags {
                guard let value = line.value(of: flag), !value.contains("$") else { continue }
                #expect(DeployFiles.port(value) == port, "\(line.file): \(flag) \(value)")
            }
        }
        for file in try DeployFiles.list(deploy) {
            let text = try String(contentsOf: file, encoding: .utf8), name = DeployFiles.relative(file, to: deploy)
            for match in text.matches(of: #/tcp://[^\s"':]+:(\d+)/#) {
                #expect(Int(match.output.1) == Self.zmqPort, "\(name): \(match.output.0)")
            }
            for match in text.matches(of: #/127\.0\.0\.1:(\d+)/healthz/#) {
                #expect(Int(match.output.1) == Self.httpPort, "\(name): \(match.output.0)")
            }
        }
    }

    @Test func coordinatorDefaultsUseTheDeployPorts() throws {
        let help = try Self.help(["coordinator"])
        let isCoordinatorHelp = help.contains("USAGE: tessera coordinator")
        try #require(isCoordinatorHelp, "\(TestMedia.tesseraBinary.path) has no `tessera coordinator`")
        for (flag, port) in [("--listen", Self.zmqPort), ("--http", Self.httpPort)] {
            // A flag without a default (required) has nothing to disagree with.
            guard let value = Self.defaultValue(of: flag, in: help) else { continue }
            #expect(DeployFiles.port(value) == port, "\(flag) defaults to \(value)")
        }
    }

    @Test func composeHasACoordinatorAndAScalableWorker() throws {
        let services = try DeployFiles.composeServices(deploy)
        let coordinator = try #require(services["coordinator"], "compose.yaml has no `coordinator` service")
        let worker = try #require(services["worker"], "compose.yaml has no `worker` service")
        #expect(coordinator["healthcheck"] != nil)
        #expect(worker["container_name"] == nil, "a fixed container name prevents --scale worker=N")
        #expect(worker["ports"] == nil, "ports published by workers collide when scaled")
    }

    @Test func systemdUnitsPassSystemdAnalyzeVerify() throws {
        let analyze = try #require(
            ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            }, "systemd-analyze is not installed (Debian package systemd)")
        let root = try TestMedia.makeDirectory("units")
        defer { TestMedia.cleanup(root) }
        let fm = FileManager.default
        try fm.createDirectory(at: root.appendingPathComponent("lib/systemd"), withIntermediateDirectories: true)
        try fm.copyItem(atPath: "/lib/systemd/system", toPath: root.appendingPathComponent("lib/systemd/system").path)
        let units = root.appendingPathComponent("etc/systemd/system"),
            bin = root.appendingPathComponent("usr/local/bin")
        for dir in [units, bin] { try fm.createDirectory(at: dir, withIntermediateDirectories: true) }
        for unit in ["tessera-coordinator.service", "tessera-worker@.service"] {
            try fm.copyItem(
                at: deploy.appendingPathComponent("systemd/\(unit)"), to: units.appendingPathComponent(unit))
        }
        // ExecStart must name an executable file inside the root.
        let binary = bin.appendingPathComponent("tessera")
        do { try fm.linkItem(at: TestMedia.tesseraBinary, to: binary) } catch {
            try fm.copyItem(at: TestMedia.tesseraBinary, to: binary)
        }
        let result = try TestMedia.runCapturing(
            analyze,
            [
                "verify", "--root=\(root.path)",
                "tessera-coordinator.service", "tessera-worker@1.service",
            ])
        #expect(result.status == 0 && (result.stdout + result.stderr).isEmpty, "\(result.stdout)\(result.stderr)")
    }

    // MARK: - Helpers

    static var kubernetesValidate: String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return (path + ["/usr/local/bin", "/opt/tessera-tools/bin"]).map { $0 + "/kubernetes-validate" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func help(_ subcommand: [String]) throws -> String {
        let result = try TestMedia.runCapturing(TestMedia.tesseraBinary.path, subcommand + ["--help"])
        return result.stdout + result.stderr
    }

    /// Whether `flag` appears in `help` as a whole word (`--data` is not `--data-dir`).
    static func lists(_ help: String, _ flag: String) -> Bool {
        let wordCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-"))
        var rest = help[...]
        while let found = rest.range(of: flag) {
            let before = found.lowerBound == help.startIndex ? nil : help[help.index(before: found.lowerBound)]
            let after = found.upperBound == help.endIndex ? nil : help[found.upperBound]
            let isWord = { (c: Character?) in c.map { $0.unicodeScalars.allSatisfy(wordCharacters.contains) } ?? false }
            if !isWord(before) && !isWord(after) { return true }
            rest = help[found.upperBound...]
        }
        return false
    }

    /// The `(default: …)` of an option in swift-argument-parser's help, which may wrap across lines.
    static func defaultValue(of flag: String, in help: String) -> String? {
        let lines = help.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let start = lines.firstIndex(where: { $0.hasPrefix(flag + " ") || $0 == flag }) else { return nil }
        let end = lines[(start + 1)...].firstIndex { $0.hasPrefix("-") } ?? lines.endIndex
        let entry = lines[start..<end].joined(separator: " ")
        guard let match = entry.firstMatch(of: #/\(default:\s*([^)\s]+)\)/#) else { return nil }
        return String(match.output.1)
    }
}
