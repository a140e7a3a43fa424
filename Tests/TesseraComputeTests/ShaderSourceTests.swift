import Foundation
import TesseraTestSupport
import Testing

@testable import TesseraCompute

/// The SPIR-V built into TesseraCompute (Plugins/SPIRVBuilder, at build time) is what glslc makes of the
/// GLSL in the tree today, with the same flags: a build that skipped a changed shader would show here.
struct ShaderSourceTests {
    static let shaders = TestMedia.repositoryRoot.appendingPathComponent("Sources/TesseraCompute/Shaders")

    @Test("every shader in the tree is built in, as a fresh glslc compile makes it")
    func spirvIsFresh() throws {
        let sources = try FileManager.default.contentsOfDirectory(atPath: Self.shaders.path)
            .filter { $0.hasSuffix(".comp") }.sorted()
        #expect(Set(sources.map { String($0.dropLast(".comp".count)) }) == Set(ShaderCode.all.keys))
        let fresh = FileManager.default.temporaryDirectory.appendingPathComponent("spirv-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: fresh) }
        for source in sources {
            let name = String(source.dropLast(".comp".count))
            try TestMedia.run(
                "glslc",
                [
                    "-O", "--target-env=vulkan1.0", "-mfmt=bin", Self.shaders.appendingPathComponent(source).path, "-o",
                    fresh.path,
                ])
            let bytes = try Data(contentsOf: fresh)
            let words = bytes.withUnsafeBytes { raw in
                (0..<bytes.count / 4).map {
                    UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))
                }
            }
            #expect(words.first == 0x0723_0203, "\(source): not SPIR-V")
            #expect(ShaderCode.all[name] == words, "\(source): the built-in SPIR-V differs from glslc's")
        }
    }
}
