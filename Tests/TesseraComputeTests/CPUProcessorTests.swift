import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore
import Testing

/// The CPU path (libswscale + Tessera's turning and compositing) against the same reference, and
/// against the Vulkan path on the same jobs.
struct CPUProcessorTests {
    struct Job: CustomTestStringConvertible, Sendable {
        var input: PixelFormat, width: Int, height: Int
        var spec: ProcessingSpec
        var testDescription: String {
            "\(input) \(width)x\(height) → \(spec.outputFormat) \(spec.outputWidth)x\(spec.outputHeight) "
                + "\(spec.filter) \(spec.rotation)\(spec.flipHorizontal ? " flipH" : "")\(spec.flipVertical ? " flipV" : "")"
                + (spec.opacity < 1 ? " opacity \(spec.opacity)" : "")
        }
    }

    static let jobs: [Job] = [
        Job(
            input: .yuv420p, width: 1918, height: 1078,
            spec: ProcessingSpec(outputWidth: 1280, outputHeight: 720, outputFormat: .yuv420p)),
        Job(
            input: .yuv420p10le, width: 640, height: 360,
            spec: ProcessingSpec(outputWidth: 320, outputHeight: 180, outputFormat: .yuv420p, filter: .lanczos3)),
        Job(
            input: .nv12, width: 321, height: 239,
            spec: ProcessingSpec(outputWidth: 643, outputHeight: 481, outputFormat: .nv12, filter: .bilinear)),
        Job(
            input: .p010le, width: 256, height: 144,
            spec: ProcessingSpec(outputWidth: 200, outputHeight: 112, outputFormat: .p010le, filter: .mitchell)),
        Job(
            input: .yuv422p, width: 130, height: 74,
            spec: ProcessingSpec(outputWidth: 130, outputHeight: 74, outputFormat: .yuv420p)),
        Job(
            input: .yuv444p, width: 96, height: 64,
            spec: ProcessingSpec(outputWidth: 96, outputHeight: 64, outputFormat: .rgba)),
        Job(
            input: .rgba, width: 200, height: 100,
            spec: ProcessingSpec(outputWidth: 100, outputHeight: 50, outputFormat: .yuv420p, outputMatrix: .bt601)),
        Job(
            input: .yuv420p, width: 161, height: 97,
            spec: ProcessingSpec(
                outputWidth: 71, outputHeight: 119, outputFormat: .yuv420p,
                rotation: Rotation(degrees: 90))),
        Job(
            input: .yuv420p, width: 160, height: 96,
            spec: ProcessingSpec(
                outputWidth: 96, outputHeight: 160, outputFormat: .nv12,
                rotation: Rotation(degrees: 270))),
        Job(
            input: .yuv420p, width: 161, height: 97,
            spec: ProcessingSpec(
                outputWidth: 119, outputHeight: 71, outputFormat: .yuv420p,
                rotation: Rotation(degrees: 180))),
        Job(
            input: .yuv420p, width: 160, height: 96,
            spec: ProcessingSpec(
                outputWidth: 96, outputHeight: 160, outputFormat: .yuv420p,
                rotation: Rotation(degrees: 90, mirrored: true), flipVertical: true)),
        Job(
            input: .yuv420p, width: 160, height: 96,
            spec: ProcessingSpec(
                outputWidth: 120, outputHeight: 72, outputFormat: .yuv420p, flipHorizontal: true,
                opacity: 0.5, backgroundColor: RGBColor(red: 0.1, green: 0.8, blue: 0.3))),
    ]

    /// libswscale sizes odd chroma planes by sample count (⌈w/2⌉) rather than by the picture they cover
    /// (w/2), which shifts chroma by up to ¼ sample across an odd-sized picture; these jobs are even.
    static let evenJobs: [Job] = jobs.map { job in
        var j = job
        j.width += j.width % 2
        j.height += j.height % 2
        j.spec.outputWidth += j.spec.outputWidth % 2
        j.spec.outputHeight += j.spec.outputHeight % 2
        return j
    }

    @Test("CPU path against the reference", arguments: evenJobs)
    func reference(_ job: Job) throws {
        let picture = TestPicture.pattern(job.input, width: job.width, height: job.height)
        let actual = try run(try CPUProcessor(spec: job.spec), picture)
        let psnr = Reference.psnr(actual, Reference.process(picture, job.spec))
        #expect(psnr.allSatisfy { $0 >= 50 }, "PSNR \(formatted(psnr)) dB")
    }

    @Test(
        "CPU path on odd sizes: luma exact to the reference, chroma within libswscale's geometry",
        arguments: jobs.filter { ($0.width | $0.height | $0.spec.outputWidth | $0.spec.outputHeight) & 1 == 1 })
    func oddSizes(_ job: Job) throws {
        let picture = TestPicture.pattern(job.input, width: job.width, height: job.height)
        let actual = try run(try CPUProcessor(spec: job.spec), picture)
        let psnr = Reference.psnr(actual, Reference.process(picture, job.spec))
        #expect(psnr[0] >= 50 && psnr.allSatisfy { $0 >= 40 }, "PSNR \(formatted(psnr)) dB")
    }

    @Test(
        "Vulkan and CPU agree on the same job", .enabled(if: VulkanAvailability.isAvailable, VulkanAvailability.reason),
        arguments: evenJobs)
    func agreement(_ job: Job) throws {
        let picture = TestPicture.pattern(job.input, width: job.width, height: job.height)
        let cpu = try run(try CPUProcessor(spec: job.spec), picture)
        let gpu = try run(try VulkanProcessor(spec: job.spec), picture)
        let psnr = Reference.psnr(cpu, gpu)
        #expect(psnr.allSatisfy { $0 >= 45 }, "PSNR \(formatted(psnr)) dB")
    }

    @Test(
        "blend of two frames is first + weight × (second − first)", arguments: [PixelFormat.yuv420p, .p010le, .rgba],
        [0.0, 0.25, 0.5, 1.0])
    func blend(format: PixelFormat, weight: Double) throws {
        let a = try TestPicture.pattern(format, width: 45, height: 31, seed: 1).makeFrame()
        let b = try TestPicture.pattern(format, width: 45, height: 31, seed: 5).makeFrame()
        let mixed = TestPicture(frame: try FrameBlend.blend(a, b, weight: weight))
        let pa = TestPicture(frame: a), pb = TestPicture(frame: b)
        let reference = zip(pa.channels, pb.channels).map { ca, cb in
            zip(ca, cb).map { Double($0) + weight * Double($1 - $0) }
        }
        let psnr = Reference.psnr(mixed, reference)
        #expect(psnr.allSatisfy { $0 >= 50 }, "PSNR \(formatted(psnr)) dB")
    }

    @Test("turning a 4:2:2 output by 90° is refused with a reason")
    func refusedTurn() {
        let spec = ProcessingSpec(
            outputWidth: 64, outputHeight: 64, outputFormat: .yuv422p, rotation: Rotation(degrees: 90))
        #expect(throws: MediaError.self) { try CPUProcessor(spec: spec) }
    }
}
