import Foundation
import TesseraAV
import TesseraCore
import Testing

@testable import TesseraCompute

/// Tessera's own CPU scaler (`PlaneScaler`): which jobs take it, that it meets the double-precision
/// reference, and that its AVX2 and portable loops write the same bytes.
struct PlaneScalerTests {
    typealias Job = CPUProcessorTests.Job

    static func job(
        _ input: PixelFormat, _ width: Int, _ height: Int, _ output: PixelFormat, _ outWidth: Int,
        _ outHeight: Int, _ filter: ScalingFilter = .bicubic, range: ColorRange? = nil
    ) -> Job {
        PlaneKernelTests.job(input, width, height, output, outWidth, outHeight, filter, range: range)
    }

    /// 8-bit planar YUV, only resized (each plane on its own, so 4:2:0 → 4:4:4 too): odd sizes, up and down, eight taps and more (3× down), every filter.
    static let qualifying: [Job] = [
        job(.yuv420p, 1918, 1078, .yuv420p, 1280, 720),
        job(.yuv420p, 1920, 1080, .yuv420p, 640, 360),
        job(.yuv420p, 321, 239, .yuv420p, 643, 481, .bilinear),
        job(.yuv420p, 255, 143, .yuv420p, 101, 57, .mitchell),
        job(.yuv420p, 642, 362, .yuv420p, 320, 180, .lanczos3),
        job(.yuv422p, 130, 74, .yuv422p, 67, 41),
        job(.yuv444p, 96, 64, .yuv444p, 191, 127),
        job(.yuv420p, 161, 97, .yuv420p, 161, 97),
        job(.yuv420p, 160, 96, .yuv444p, 96, 64),
    ]

    /// Each needs what only libswscale (with Tessera's turning) does here.
    static let others: [Job] = [
        job(.yuv420p10le, 640, 360, .yuv420p, 320, 180),
        job(.yuv420p, 320, 180, .yuv420p, 200, 100, range: .full),
        job(.yuv420p, 160, 96, .nv12, 96, 64),
        Job(
            input: .yuv420p, width: 160, height: 96,
            spec: ProcessingSpec(
                outputWidth: 96, outputHeight: 160, outputFormat: .yuv420p, rotation: Rotation(degrees: 90))),
    ]

    @Test("qualifying jobs run Tessera's scaler and meet the reference", arguments: qualifying)
    func reference(_ job: Job) throws {
        let picture = TestPicture.pattern(job.input, width: job.width, height: job.height)
        let processor = try CPUProcessor(spec: job.spec)
        let actual = try run(processor, picture)
        #expect(processor.kind == .simd)
        let psnr = Reference.psnr(actual, Reference.process(picture, job.spec))
        #expect(psnr.allSatisfy { $0 >= 50 }, "PSNR \(formatted(psnr)) dB")
    }

    @Test("other jobs stay on libswscale", arguments: others)
    func fallsBack(_ job: Job) throws {
        let picture = TestPicture.pattern(job.input, width: job.width, height: job.height)
        let processor = try CPUProcessor(spec: job.spec)
        _ = try run(processor, picture)
        #expect(processor.kind == .swscale)
    }

    @Test("the AVX2 and portable loops write the same bytes", arguments: qualifying)
    func simdMatchesPortable(_ job: Job) throws {
        let picture = TestPicture.pattern(job.input, width: job.width, height: job.height, seed: 7)
        let input = try picture.makeFrame()
        let key = ProcessingPlan.Input(
            format: job.input, width: job.width, height: job.height,
            matrix: input.colorMatrix, range: input.colorRange,
            chromaLocation: input.chromaLocation)
        var scaler = try #require(PlaneScaler(plan: try ProcessingPlan(input: key, spec: job.spec, planeKernels: nil)))
        let simd = try Frame(
            width: job.spec.outputWidth, height: job.spec.outputHeight, format: job.spec.outputFormat.avFormat)
        let portable = try Frame(
            width: job.spec.outputWidth, height: job.spec.outputHeight,
            format: job.spec.outputFormat.avFormat)
        scaler.scale(input, into: simd, simd: true)
        scaler.scale(input, into: portable, simd: false)
        let a = TestPicture(frame: simd), b = TestPicture(frame: portable)
        #expect(differences(a.channels, b.channels) == 0)
        #expect(a.channels.flatMap { $0 }.contains { $0 != 0 })
    }

    @Test("Q14 weights sum to exactly one, so a flat picture stays flat")
    func flatStaysFlat() throws {
        let weights = ResamplingWeights(filter: .lanczos3, count: 37, sourceCount: 101, step: 101.0 / 37) {
            (Double($0) + 0.5) * 101 / 37 - 0.5
        }
        let fixed = PlaneScaler.fixedPoint(weights, paddedTo: (weights.taps + 7) / 8 * 8)
        let taps = (weights.taps + 7) / 8 * 8
        for k in 0..<37 {
            #expect(fixed[(k * taps)..<((k + 1) * taps)].reduce(0) { $0 + Int($1) } == 1 << PlaneScaler.fractionBits)
        }
    }
}
