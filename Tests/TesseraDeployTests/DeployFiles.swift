import Foundation
import TesseraTestSupport

/// The files of Deploy/ and what the deployment tests read from them. YAML is parsed by PyYAML (through
/// `python3`), an independent parser, so a file that PyYAML rejects fails the tests.
enum DeployFiles {
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    /// The repository's Deploy folder, found from this source file.
    static var folder: URL {
        TestMedia.repositoryRoot.appendingPathComponent("Deploy")
    }

    /// Every regular file under `deploy`, sorted.
    static func list(_ deploy: URL) throws -> [URL] {
        guard let walk = FileManager.default.enumerator(at: deploy, includingPropertiesForKeys: [.isRegularFileKey])
        else { throw Missing(description: "cannot list \(deploy.path)") }
        return try walk.compactMap { $0 as? URL }
            .filter { try $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true }
            .sorted { $0.path < $1.path }
    }

    static func relative(_ file: URL, to deploy: URL) -> String {
        String(file.standardizedFileURL.path.dropFirst(deploy.standardizedFileURL.path.count + 1))
    }

    /// The Kubernetes manifests: the YAML files directly in Deploy/k8s (subfolders hold Helm values).
    static func manifests(_ deploy: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(atPath: deploy.appendingPathComponent("k8s").path)
            .filter { $0.hasSuffix(".yaml") }.sorted().map { deploy.appendingPathComponent("k8s/\($0)") }
    }

    /// Every document of a YAML file, as JSONSerialization objects.
    static func yamlDocuments(_ file: URL) throws -> [Any] {
        let script =
            "import json, sys, yaml\njson.dump([d for d in yaml.safe_load_all(open(sys.argv[1])) "
            + "if d is not None], sys.stdout)"
        // Debian's python3, where install-deps.sh puts python3-yaml; another python3 on PATH otherwise.
        let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"
        let result = try TestMedia.runCapturing(python, ["-c", script, file.path])
        if result.stderr.contains("No module named 'yaml'") || result.status == 127 {
            throw Missing(
                description: "python3 with PyYAML is needed to read \(file.lastPathComponent): "
                    + "run Scripts/install-deps.sh (Debian package python3-yaml)")
        }
        guard result.status == 0 else {
            throw Missing(description: "\(file.lastPathComponent) is not valid YAML: \(result.stderr.suffix(800))")
        }
        return try (JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [Any]) ?? []
    }

    /// compose.yaml's services by name.
    static func composeServices(_ deploy: URL) throws -> [String: [String: Any]] {
        let compose = try yamlDocuments(deploy.appendingPathComponent("compose.yaml")).first as? [String: Any]
        return (compose?["services"] as? [String: [String: Any]]) ?? [:]
    }

    /// The containers of a Kubernetes object (a workload's pod template, or a pod).
    static func containers(of object: [String: Any]) -> [[String: Any]] {
        let spec = object["spec"] as? [String: Any]
        let pod = ((spec?["template"] as? [String: Any])?["spec"] as? [String: Any]) ?? spec
        return (pod?["containers"] as? [[String: Any]]) ?? []
    }

    /// The argv of every container in a compose file or Kubernetes manifest. An unset entrypoint or
    /// command is the image's: `tessera`.
    static func containerCommands(in file: URL) throws -> [[String]] {
        let documents = try yamlDocuments(file).compactMap { $0 as? [String: Any] }
        func words(_ value: Any?) -> [String]? {
            if let list = value as? [Any] { return list.map { "\($0)" } }
            if let text = value as? String { return DeployCommandLine.tokens(text) }
            return nil
        }
        if file.lastPathComponent == "compose.yaml" {
            let services = documents.first?["services"] as? [String: [String: Any]] ?? [:]
            return services.values.map { (words($0["entrypoint"]) ?? ["tessera"]) + (words($0["command"]) ?? []) }
        }
        return documents.flatMap(containers(of:)).map {
            (words($0["command"]) ?? ["tessera"]) + (words($0["args"]) ?? [])
        }
    }

    /// The port at the end of an address: `tcp://*:5555`, `0.0.0.0:8080`, `127.0.0.1:8080:8080`, `5555/tcp`.
    static func port(_ address: String) -> Int? {
        guard let last = address.split(separator: ":").last, let digits = last.split(separator: "/").first
        else { return nil }
        return Int(digits)
    }
}
