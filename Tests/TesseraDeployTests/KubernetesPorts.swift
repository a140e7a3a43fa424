import Foundation
import Testing

/// The ports of one Kubernetes manifest file: Services, containers' ports and HTTP probes, and
/// NetworkPolicy rules, resolved through the containers' port names.
struct KubernetesPorts {
    let objects: [[String: Any]]
    /// Container port names of every workload in the file (`zmq` → 5555).
    let named: [String: Int]

    init(_ documents: [Any]) {
        objects = documents.compactMap { $0 as? [String: Any] }
        var named: [String: Int] = [:]
        for container in objects.flatMap(DeployFiles.containers(of:)) {
            for port in container["ports"] as? [[String: Any]] ?? [] {
                if let name = port["name"] as? String, let number = port["containerPort"] as? Int {
                    named[name] = number
                }
            }
        }
        self.named = named
    }

    /// A port given as a number or as a container port's name.
    func resolve(_ port: Any?) -> Int? {
        if let number = port as? Int { return number }
        return (port as? String).flatMap { named[$0] }
    }

    /// Records an issue for every port outside `expected` and for Services whose port and target differ.
    func check(_ expected: Set<Int>, file: String) {
        for object in objects {
            let kind = object["kind"] as? String ?? "", name = (object["metadata"] as? [String: Any])?["name"] ?? ""
            let spec = object["spec"] as? [String: Any] ?? [:]
            switch kind {
            case "Service":
                let ports = spec["ports"] as? [[String: Any]] ?? []
                for port in ports {
                    let target = resolve(port["targetPort"] ?? port["port"])
                    #expect(target == port["port"] as? Int, "\(file): Service \(name) maps \(port) to \(target ?? -1)")
                }
                #expect(Set(ports.compactMap { $0["port"] as? Int }) == expected, "\(file): Service \(name) ports")
            case "NetworkPolicy":
                let rules = spec["ingress"] as? [[String: Any]] ?? []
                let ports = rules.flatMap { $0["ports"] as? [[String: Any]] ?? [] }.map { resolve($0["port"]) }
                #expect(
                    ports.allSatisfy { $0.map(expected.contains) ?? false }, "\(file): NetworkPolicy ports \(ports)")
            default:
                for container in DeployFiles.containers(of: object) {
                    let ports = (container["ports"] as? [[String: Any]] ?? []).map { $0["containerPort"] as? Int }
                    #expect(ports.allSatisfy { $0.map(expected.contains) ?? false }, "\(file): \(name) ports \(ports)")
                    if container["name"] as? String == "coordinator" {
                        #expect(Set(ports.compactMap { $0 }) == expected, "\(file): the coordinator's ports \(ports)")
                    }
                    for probe in ["startupProbe", "readinessProbe", "livenessProbe"] {
                        guard let get = (container[probe] as? [String: Any])?["httpGet"] as? [String: Any] else {
                            continue
                        }
                        #expect(resolve(get["port"]) == DeployTests.httpPort, "\(file): \(name) \(probe) port")
                    }
                }
            }
        }
    }
}
