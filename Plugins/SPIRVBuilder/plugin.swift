import Foundation
import PackagePlugin

/// Compiles TesseraCompute's GLSL compute shaders (`Shaders/*.comp`) to SPIR-V with glslc while the
/// package builds, each into a Swift file that holds its words in base64 (`ShaderCode` decodes them).
/// The tree carries the GLSL only; the SPIR-V is made fresh, so it cannot go stale.
@main
struct SPIRVBuilder: BuildToolPlugin {
    struct NoCompiler: Error, CustomStringConvertible {
        var description: String {
            "glslc (the GLSL to SPIR-V compiler) is not on the PATH; `make` installs it (Debian: apt-get install glslc)"
        }
    }

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let shaders = target.directoryURL.appending(path: "Shaders")
        let files = try FileManager.default.contentsOfDirectory(at: shaders, includingPropertiesForKeys: nil)
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let includes = files.filter { $0.pathExtension == "glsl" }
        let glslc = try Self.find("glslc")
        // sh: glslc writes the SPIR-V, then the Swift file is the constant's head, the base64, its tail.
        let script = """
            set -e
            "$1" -O --target-env=vulkan1.0 -mfmt=bin "$2" -o "$3.spv"
            printf '// Generated at build time by Plugins/SPIRVBuilder from %s; do not edit.\\n' "$(basename "$2")" > "$3"
            printf 'extension ShaderCode {\\n    static let %sBase64 = "' "$4" >> "$3"
            base64 -w0 "$3.spv" >> "$3"
            printf '"\\n}\\n' >> "$3"
            """
        return files.filter { $0.pathExtension == "comp" }.map { source in
            let name = source.deletingPathExtension().lastPathComponent
            let output = context.pluginWorkDirectoryURL.appending(path: "\(name).spirv.swift")
            return .buildCommand(
                displayName: "Compiling shader \(name).comp", executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "sh", glslc.path, source.path, output.path, Self.identifier(name)],
                inputFiles: [source] + includes, outputFiles: [output])
        }
    }

    /// "horizontal_pass" → "horizontalPass".
    static func identifier(_ name: String) -> String {
        let parts = name.split(separator: "_")
        return parts.enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.capitalized }.joined()
    }

    static func find(_ tool: String) throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let folders = path.split(separator: ":").map { String($0) } + ["/usr/bin", "/usr/local/bin"]
        for folder in folders {
            let candidate = URL(fileURLWithPath: folder).appending(path: tool)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw NoCompiler()
    }
}
