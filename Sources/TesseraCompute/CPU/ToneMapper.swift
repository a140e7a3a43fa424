import CTesseraKernels
import TesseraAV
import TesseraCore

/// The CPU path's tone map (`tessera_tonemap`): from a 16-bit 4:4:4 picture at the output size (what
/// libswscale made of the source, its matrix and range kept) into the output's planar Y'CbCr.
final class ToneMapper {
    private let curves: ToneMapCurves
    private var parameters = TesseraToneMap()
    private let output: PictureLayout

    /// - Throws: `.unsupported` for an output that is not planar Y'CbCr.
    init(
        _ map: ToneMap, inputRange: ColorRange, inputMatrix: ColorMatrix, primaries: ColorPrimaries,
        output: PictureLayout, outputMatrix: ColorMatrix, outputRange: ColorRange, dither: Bool, simd: Bool = true
    ) throws(MediaError) {
        guard !output.isRGB, !output.hasAlpha, output.planeCount == 3,
            output.channels.allSatisfy({ $0.shift == 0 && $0.pixelStride == $0.bytesPerSample })
        else {
            throw MediaError(.unsupported, "the CPU tone map writes planar Y'CbCr, not \(output.format)")
        }
        self.output = output
        curves = ToneMapCurves(
            map, inputDepth: 16, inputRange: inputRange, inputMatrix: inputMatrix, primaries: primaries)
        let from = ColorTransform.fromNormalisedRGB(output: output, matrix: outputMatrix, range: outputRange)
        var p = TesseraToneMap()
        withUnsafeMutableBytes(of: &p.toRGB) { copy(curves.toRGB.flatMap { $0 }, into: $0) }
        withUnsafeMutableBytes(of: &p.gamut) { copy(curves.gamut.flatMap { $0 }, into: $0) }
        withUnsafeMutableBytes(of: &p.fromRGB) { copy(from.flatMap { $0 }.map(Float.init), into: $0) }
        withUnsafeMutableBytes(of: &p.lumaWeights) { copy(curves.lumaWeights, into: $0) }
        p.samples = Int32(ToneMapCurves.curveSamples)
        p.gainDomain = curves.gainDomain
        p.black = curves.black
        p.hlg = curves.hlg == nil ? 0 : 1
        p.hlgScale = curves.hlg?.scale ?? 0
        p.hlgExponent = curves.hlg?.exponent ?? 0
        p.maxCode = Int32(output.maxCode)
        p.dither = dither && output.bitDepth < 16 ? 1 : 0
        p.simd = simd ? 1 : 0
        parameters = p
    }

    private func copy(_ values: [Float], into raw: UnsafeMutableRawBufferPointer) {
        let floats = raw.bindMemory(to: Float.self)
        for (i, v) in values.enumerated() where i < floats.count { floats[i] = v }
    }

    /// Tone-maps `input` (yuv444p16, the output's size) into `target`'s planes.
    /// - Throws: `.internal` when the kernel cannot allocate its rows.
    func map(_ input: Frame, into target: Frame) throws(MediaError) {
        let bytes = output.channels[0].bytesPerSample
        let status = curves.eotf.withUnsafeBufferPointer { eotf in
            curves.gain.withUnsafeBufferPointer { gain in
                curves.oetf.withUnsafeBufferPointer { oetf in
                    var p = parameters
                    p.eotf = eotf.baseAddress
                    p.gain = gain.baseAddress
                    p.oetf = oetf.baseAddress
                    let inputs: [UnsafePointer<UInt16>?] = (0..<3).map {
                        UnsafeRawPointer(input.plane($0)).map { $0.assumingMemoryBound(to: UInt16.self) }
                    }
                    let inStrides = (0..<3).map { input.linesize($0) }
                    let outputs: [UnsafeMutablePointer<UInt8>?] = (0..<3).map { target.plane($0) }
                    let outStrides = (0..<3).map { target.linesize($0) }
                    return tessera_tonemap(
                        &p, inputs, inStrides, Int32(target.width), Int32(target.height), outputs, outStrides,
                        Int32(bytes), Int32(output.log2ChromaX), Int32(output.log2ChromaY))
                }
            }
        }
        guard status == 0 else { throw MediaError(.internal, "out of memory for the tone map's rows") }
    }
}
