import Foundation
import TesseraTestSupport
import Testing

/// The committed SPIR-V (Vulkan/ShaderCode.swift) is what glslc makes of the committed GLSL today.
struct ShaderSourceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let hasGlslc = (try? TestMedia.runCapturing("glslc", ["--version"]).status) == 0

    @Test("committed SPIR-V matches a fresh glslc compile of the GLSL sources",
          .enabled(if: hasGlslc, "glslc is not installed; cannot recompile the shaders"))
    func spirvIsFresh() throws {
        let fresh = FileManager.default.temporaryDirectory.appendingPathComponent("ShaderCode-\(UUID().uuidString).swift")
        defer { try? FileManager.default.removeItem(at: fresh) }
        try TestMedia.run("bash", [Self.root.appendingPathComponent("Scripts/build-shaders.sh").path, fresh.path])
        let committed = try String(contentsOf: Self.root.appendingPathComponent(
            "Sources/TesseraCompute/Vulkan/ShaderCode.swift"), encoding: .utf8)
        let rebuilt = try String(contentsOf: fresh, encoding: .utf8)
        #expect(committed == rebuilt, "run Scripts/build-shaders.sh and commit Sources/TesseraCompute/Vulkan/ShaderCode.swift")
    }
}
