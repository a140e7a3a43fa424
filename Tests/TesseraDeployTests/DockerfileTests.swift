import Foundation
import TesseraTestSupport
import Testing

/// What can be checked of the Dockerfile without a container engine (none here, and no registry to pull
/// the base images from): its apt packages exist in this Debian release (bookworm, the runtime base), and
/// the runtime stage installs every library the tessera binary links, apart from the Swift runtime that
/// `--static-swift-stdlib` builds in.
@Suite struct DockerfileTests {
    static let dockerfile = DeployFiles.folder.appendingPathComponent("docker/Dockerfile")

    /// The packages of each `apt-get install` in the Dockerfile, per stage (continuation lines joined).
    static func stagePackages() throws -> [[String]] {
        let text = try String(contentsOf: dockerfile, encoding: .utf8).replacingOccurrences(of: "\\\n", with: " ")
        var stages: [[String]] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("FROM ") { stages.append([]) }
            guard let install = line.range(of: "apt-get install") else { continue }
            let words = line[install.upperBound...].prefix { $0 != "&" }.split(separator: " ").map(String.init)
            stages[stages.count - 1] += words.filter { !$0.hasPrefix("-") }
        }
        return stages
    }

    @Test("every apt package in the Dockerfile exists in this Debian release")
    func packagesExist() throws {
        let stages = try Self.stagePackages()
        #expect(stages.count == 2, "a build and a runtime stage")
        let packages = stages.flatMap { $0 }
        let known = try TestMedia.runCapturing("apt-cache", ["show", "--no-all-versions"] + packages).stdout
        for package in packages {
            #expect(known.contains("Package: \(package)\n"), "no Debian package \(package)")
        }
    }

    @Test("the runtime stage installs the package of every library the binary links (Swift's aside)")
    func runtimeHasEveryLinkedLibrary() throws {
        let runtime = Set(try Self.stagePackages().last ?? [])
        let dynamic = try TestMedia.runCapturing("readelf", ["-d", TestMedia.tesseraBinary.path])
        let needed = dynamic.stdout.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("(NEEDED)"), let a = line.firstIndex(of: "["), let b = line.lastIndex(of: "]")
            else { return nil }
            return String(line[line.index(after: a)..<b])
        }
        #expect(needed.contains("libavcodec.so.59") && needed.contains("libzmq.so.5"), "\(needed)")
        let swiftRuntime = [
            "libswift", "libFoundation", "libdispatch", "libBlocksRuntime", "lib_Foundation", "libXCTest",
        ]
        let essential: Set = ["libc6", "libgcc-s1", "libstdc++6"]
        let ldconfig = try TestMedia.runCapturing("/sbin/ldconfig", ["-p"]).stdout.split(separator: "\n")
        for library in needed where !swiftRuntime.contains(where: library.hasPrefix) {
            guard let entry = ldconfig.first(where: { $0.hasPrefix("\t\(library) ") && $0.contains("x86-64") }),
                let path = entry.components(separatedBy: " => ").last
            else {
                Issue.record("cannot find \(library) on this machine")
                continue
            }
            // Debian registers files under /usr (merged /usr): /lib/x/y is /usr/lib/x/y to dpkg.
            var owner = "?"
            for candidate in [path, "/usr" + path] {
                let r = try TestMedia.runCapturing("dpkg", ["-S", candidate])
                if r.status == 0, let name = r.stdout.split(separator: ":").first {
                    owner = String(name)
                    break
                }
            }
            #expect(
                runtime.contains(owner) || essential.contains(owner),
                "\(library) (\(path)) comes from \(owner), which the runtime stage does not install")
        }
    }
}
