import CTesseraKernels

/// SPIR-V of the compute kernels, one array of 32-bit words per shader. The words are generated C
/// (`CTesseraKernels/shader_code.c`, by Scripts/build-shaders.sh from `Shaders/*.comp`).
enum ShaderCode {
    static let blend = words(tessera_spirv_blend)
    static let horizontalPass = words(tessera_spirv_horizontal_pass)
    static let planeHorizontal = words(tessera_spirv_plane_horizontal)
    static let planeVertical = words(tessera_spirv_plane_vertical)
    static let verticalPass = words(tessera_spirv_vertical_pass)

    private static func words(_ accessor: (UnsafeMutablePointer<Int>?) -> UnsafePointer<UInt32>?) -> [UInt32] {
        var count = 0
        guard let start = accessor(&count) else { return [] }
        return Array(UnsafeBufferPointer(start: start, count: count))
    }
}
