import Foundation

/// SPIR-V of the compute kernels, one array of 32-bit words per shader, compiled from `Shaders/*.comp` by
/// glslc while the package builds (Plugins/SPIRVBuilder writes each as base64 beside this type).
enum ShaderCode {
    static let horizontalPass = words(horizontalPassBase64)
    static let planeHorizontal = words(planeHorizontalBase64)
    static let planeVertical = words(planeVerticalBase64)
    static let verticalPass = words(verticalPassBase64)

    /// Every shader by its file's name, for the test that compares them with a fresh compile.
    static var all: [String: [UInt32]] {
        [
            "horizontal_pass": horizontalPass, "plane_horizontal": planeHorizontal, "plane_vertical": planeVertical,
            "vertical_pass": verticalPass,
        ]
    }

    /// Little-endian words; empty for text that is not whole base64 words (the build wrote it, so never).
    static func words(_ base64: String) -> [UInt32] {
        guard let data = Data(base64Encoded: base64), data.count % 4 == 0 else { return [] }
        return data.withUnsafeBytes { raw in
            (0..<data.count / 4).map {
                UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))
            }
        }
    }
}
