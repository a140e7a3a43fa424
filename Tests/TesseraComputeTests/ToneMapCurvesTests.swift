import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore
import Testing

@testable import TesseraCompute

/// The tone map's sampled curves (`ToneMapCurves`), from their definitions: BT.2390's EETF leaves what lies
/// below its knee alone, takes the source's peak to SDR white and never turns back; BT.1886's inverse
/// takes the display's black to 0 and white to 1; the gamut matrix keeps white white.
struct ToneMapCurvesTests {
    static func curves(peak: Double, transfer: TransferFunction = .smpte2084) -> ToneMapCurves {
        ToneMapCurves(
            ToneMap(transfer: transfer, sourcePeak: peak), inputDepth: 10, inputRange: .limited,
            inputMatrix: .bt2020nc, primaries: .bt2020)
    }

    /// The tone-mapped value of `nits`, relative to SDR white, as the kernels read the gain curve.
    static func mapped(_ c: ToneMapCurves, nits: Double) -> Double {
        let m = nits / ToneMap.sdrWhite
        let q = sqrt(sqrt(m / Double(c.gainDomain))) * Double(ToneMapCurves.curveSamples)
        let k = min(Int(q), ToneMapCurves.curveSamples - 1)
        let g = Double(c.gain[k]) + (q - Double(k)) * Double(c.gain[k + 1] - c.gain[k])
        return m * g
    }

    @Test func theCurveKeepsTheMidtonesTakesThePeakToWhiteAndNeverTurnsBack() {
        let c = Self.curves(peak: 1000)
        #expect(abs(Self.mapped(c, nits: 1000) - 1) < 0.01, "\(Self.mapped(c, nits: 1000))")
        // Below the knee only BT.2390's black-point adaptation lifts it a little (towards a 1000:1 display's
        // black), less the brighter it is.
        let lift20 = Self.mapped(c, nits: 20) / (20 / ToneMap.sdrWhite),
            lift50 = Self.mapped(c, nits: 50) / (50 / ToneMap.sdrWhite)
        #expect(lift20 > 1 && lift50 > 1 && lift50 < lift20 && lift50 < 1.05, "\(lift20), \(lift50)")
        var previous = 0.0
        for nits in stride(from: 0.5, through: 1000, by: 0.5) {
            let v = Self.mapped(c, nits: nits)
            #expect(v >= previous - 1e-6, "at \(nits) cd/m²")
            previous = v
        }
        // A source no brighter than SDR white is not compressed at all.
        let dim = Self.curves(peak: 150)
        #expect(abs(Self.mapped(dim, nits: 100) / (100 / ToneMap.sdrWhite) - 1) < 0.01)
    }

    @Test func theOutputTransferAndTheGamutMatrixMeetTheirEnds() {
        let c = Self.curves(peak: 1000)
        #expect(c.oetf.first == 0 && abs(Double(c.oetf.last!) - 1) < 1e-6)
        #expect(zip(c.oetf, c.oetf.dropFirst()).allSatisfy { $0 <= $1 })
        for row in c.gamut { #expect(abs(row.reduce(0, +) - 1) < 1e-4, "\(row)") }
        // BT.2020 → BT.709's first row, as BT.2087 writes it.
        #expect(abs(c.gamut[0][0] - 1.6605) < 1e-3 && abs(c.gamut[0][1] + 0.5876) < 1e-3)
        // Limited-range 10-bit white (940, 512, 512) is R'G'B' 1, 1, 1.
        for row in c.toRGB { #expect(abs(Double(row[0] * 940 + row[1] * 512 + row[2] * 512 + row[3]) - 1) < 1e-5) }
    }

    @Test func theSourcePeakComesFromItsMetadata() {
        let mastering = HDRMetadata.MasteringDisplay(
            primaries: [[0.68, 0.32], [0.265, 0.69], [0.15, 0.06]], whitePoint: [0.3127, 0.329],
            minLuminance: 0.005, maxLuminance: 4000)
        #expect(ToneMap(transfer: .smpte2084, hdr: HDRMetadata(masteringDisplay: mastering)).sourcePeak == 4000)
        #expect(
            ToneMap(transfer: .smpte2084, hdr: HDRMetadata(masteringDisplay: mastering, maxContentLightLevel: 1500))
                .sourcePeak == 1500)
        #expect(ToneMap(transfer: .smpte2084, hdr: nil).sourcePeak == ToneMap.defaultPeak)
        #expect(ToneMap(transfer: .smpte2084, hdr: HDRMetadata(maxContentLightLevel: 0)).sourcePeak == 1000)
        #expect(ToneMap(transfer: .aribStdB67, hdr: HDRMetadata(maxContentLightLevel: 4000)).sourcePeak == 1000)
    }
}

/// The CPU kernel (`tessera_tonemap`): its AVX2 loop writes what its portable loop writes (within the last
/// bit of a fused multiply-add).
struct ToneMapKernelTests {
    /// A 16-bit 4:4:4 picture of limited-range codes: a luma ramp across, chroma swinging down the rows.
    static func picture(width: Int, height: Int) throws -> Frame {
        let frame = try Frame(width: width, height: height, format: AV_PIX_FMT_YUV444P16LE)
        for p in 0..<3 {
            let base = try #require(frame.plane(p))
            for y in 0..<height {
                let row = UnsafeMutableRawPointer(base + y * frame.linesize(p)).assumingMemoryBound(to: UInt16.self)
                for x in 0..<width {
                    let v: Int =
                        p == 0
                        ? 4096 + (60160 - 4096) * x / max(width - 1, 1)
                        : 32768 + (p == 1 ? 1 : -1) * (y * 53 % 200 - 100) * 120 + (x * 7 % 50)
                    row[x] = UInt16(clamping: v)
                }
            }
        }
        return frame
    }

    static func mapped(_ input: Frame, simd: Bool, grey: Bool = false) throws -> [[UInt8]] {
        let layout = try #require(PictureLayout(.yuv420p))
        let mapper = try ToneMapper(
            ToneMap(transfer: .smpte2084, sourcePeak: 1000), inputRange: .limited, inputMatrix: .bt2020nc,
            primaries: .bt2020, output: layout, outputMatrix: .bt709, outputRange: .limited, dither: true, simd: simd)
        let out = try Frame(width: input.width, height: input.height, format: AV_PIX_FMT_YUV420P)
        try mapper.map(input, into: out)
        return try (0..<3).map { p in
            let size = layout.planeSize(p, width: out.width, height: out.height)
            let base = try #require(out.plane(p))
            return (0..<size.height).flatMap { y in
                Array(UnsafeBufferPointer(start: base + y * out.linesize(p), count: size.width))
            }
        }
    }

    @Test func theAVX2AndPortableLoopsAgree() throws {
        // 67 wide: eight at a time, then three by the portable loop; odd height: a last chroma row of one.
        let input = try Self.picture(width: 67, height: 37)
        let fast = try Self.mapped(input, simd: true), portable = try Self.mapped(input, simd: false)
        for p in 0..<3 {
            let pairs = zip(fast[p], portable[p])
            #expect(pairs.allSatisfy { abs(Int($0) - Int($1)) <= 1 }, "plane \(p)")
            #expect(pairs.filter { $0 != $1 }.count * 200 <= fast[p].count, "plane \(p): more than 0.5 % differ")
        }
        // The luma ramp rises across every row.
        for y in 0..<37 { #expect(Int(fast[0][y * 67 + 66]) > Int(fast[0][y * 67]) + 100, "row \(y)") }
    }
}
