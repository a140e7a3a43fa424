import Foundation
import TesseraTestSupport
import Testing

/// The committed SPIR-V (CTesseraKernels/shader_code.c and its header) is what glslc makes of the
/// committed GLSL today.
struct ShaderSourceTests {
    static let root = TestMedia.repositoryRoot
    static let hasGlslc = (try? TestMedia.runCapturing("glslc", ["--version"]).status) == 0

    @Test(
        "committed SPIR-V matches a fresh glslc compile of the GLSL sources",
        .enabled(if: hasGlslc, "glslc is not installed; cannot recompile the shaders"))
    func spirvIsFresh() throws {
        let fresh = FileManager.default.temporaryDirectory.appendingPathComponent("ShaderCode-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: fresh, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: fresh) }
        try TestMedia.run("bash", [Self.root.appendingPathComponent("Scripts/build-shaders.sh").path, fresh.path])
        for (name, committedPath) in [
            ("shader_code.c", "Sources/CTesseraKernels/shader_code.c"),
            ("TesseraShaderCode.h", "Sources/CTesseraKernels/include/TesseraShaderCode.h"),
        ] {
            let committed = try String(contentsOf: Self.root.appendingPathComponent(committedPath), encoding: .utf8)
            let rebuilt = try String(contentsOf: fresh.appendingPathComponent(name), encoding: .utf8)
            #expect(committed == rebuilt, "run Scripts/build-shaders.sh and commit \(committedPath)")
        }
    }
}
