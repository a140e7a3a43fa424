import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore
import Testing

@testable import TesseraCompute

/// The per-plane fast path (`PlaneResampling`): which jobs take it, and that it gives the generic kernels'
/// pictures (both are also held to the double-precision reference).
@Suite(.enabled(if: VulkanAvailability.isAvailable, VulkanAvailability.reason))
struct PlaneKernelTests {
    typealias Job = CPUProcessorTests.Job

    static func job(
        _ input: PixelFormat, _ width: Int, _ height: Int, _ output: PixelFormat, _ outWidth: Int,
        _ outHeight: Int, _ filter: ScalingFilter = .bicubic, range: ColorRange? = nil
    ) -> Job {
        Job(
            input: input, width: width, height: height,
            spec: ProcessingSpec(
                outputWidth: outWidth, outputHeight: outHeight, outputFormat: output,
                outputRange: range, filter: filter))
    }

    static let fastJobs: [Job] = [
        job(.yuv420p, 1918, 1078, .yuv420p, 1280, 720),
        job(.yuv420p10le, 642, 362, .yuv420p, 320, 180, .lanczos3),
        job(.yuv420p10le, 255, 143, .yuv420p, 101, 57, .mitchell),
        job(.yuv422p, 130, 74, .yuv420p, 131, 75, .bilinear),
        job(.yuv444p, 96, 64, .yuv422p, 191, 127),
        job(.yuv420p, 161, 97, .yuv444p, 161, 97),
        job(.yuv420p, 320, 180, .yuv420p, 200, 100, range: .full),
    ]

    @Test("jobs that qualify take the fast path and match the generic kernels", arguments: fastJobs)
    func matchesGeneric(_ job: Job) throws {
        let picture = TestPicture.pattern(job.input, width: job.width, height: job.height)
        let fast = try VulkanProcessor(spec: job.spec)
        let fastPicture = try run(fast, picture)
        #expect(fast.usesPlaneKernels)
        let generic = try VulkanProcessor(spec: job.spec)
        generic.planeTuning = nil
        let genericPicture = try run(generic, picture)
        #expect(!generic.usesPlaneKernels)
        // The other device kind's tuning splits the work differently, for the same pictures.
        let other = try VulkanProcessor(spec: job.spec)
        other.planeTuning = fast.deviceIsCPU ? .gpu : .cpu
        #expect(differences(try run(other, picture).channels, fastPicture.channels) == 0)

        let reference = Reference.process(picture, job.spec)
        let psnr = Reference.psnr(fastPicture, reference)
        #expect(psnr.allSatisfy { $0 >= 50 }, "PSNR \(formatted(psnr)) dB")
        let agreement = Reference.psnr(fastPicture, genericPicture)
        #expect(agreement.allSatisfy { $0 >= 60 }, "PSNR against the generic kernels \(formatted(agreement)) dB")
    }

    static let genericJobs: [Job] = [
        job(.nv12, 320, 180, .yuv420p, 160, 90),
        job(.yuv420p, 320, 180, .nv12, 160, 90),
        job(.yuv420p, 320, 180, .p010le, 160, 90),
        job(.yuv420p, 320, 180, .rgba, 160, 90),
        job(.rgba, 320, 180, .yuv420p, 160, 90),
        Job(
            input: .yuv420p, width: 320, height: 180,
            spec: ProcessingSpec(
                outputWidth: 90, outputHeight: 160, outputFormat: .yuv420p,
                rotation: Rotation(degrees: 90))),
        Job(
            input: .yuv420p, width: 320, height: 180,
            spec: ProcessingSpec(outputWidth: 160, outputHeight: 90, outputFormat: .yuv420p, flipHorizontal: true)),
        Job(
            input: .yuv420p, width: 320, height: 180,
            spec: ProcessingSpec(outputWidth: 160, outputHeight: 90, outputFormat: .yuv420p, outputMatrix: .bt601)),
        Job(
            input: .yuv420p, width: 320, height: 180,
            spec: ProcessingSpec(outputWidth: 160, outputHeight: 90, outputFormat: .yuv420p, opacity: 0.5)),
        job(.yuv420p, 1920, 1080, .yuv420p, 160, 90),  // a wider span than the kernels hold
    ]

    @Test("jobs that do not qualify keep the generic kernels", arguments: genericJobs)
    func staysGeneric(_ job: Job) throws {
        let picture = TestPicture.pattern(job.input, width: job.width, height: job.height)
        let processor = try VulkanProcessor(spec: job.spec)
        _ = try run(processor, picture)
        #expect(!processor.usesPlaneKernels)
    }

    @Test("frames read in place and frames copied (rows not 16-byte aligned) alternate with the same pictures")
    func inPlaceAndCopied() throws {
        let picture = TestPicture.pattern(.yuv420p, width: 322, height: 182)
        let aligned = try picture.makeFrame()
        let packed = try Frame()  // rows back to back: 322 and 161 bytes
        packed.pointer.pointee.width = 322
        packed.pointer.pointee.height = 182
        packed.pointer.pointee.format = aligned.pointer.pointee.format
        #expect(av_frame_get_buffer(packed.pointer, 1) == 0)
        #expect(av_frame_copy(packed.pointer, aligned.pointer) == 0)
        #expect(av_frame_copy_props(packed.pointer, aligned.pointer) == 0)

        let spec = ProcessingSpec(outputWidth: 200, outputHeight: 100, outputFormat: .yuv420p)
        let processor = try VulkanProcessor(spec: spec, framesInFlight: 3)  // slots 0 and 1 switch ways
        let pictures = try [aligned, packed, aligned, packed, aligned].map { frame in
            TestPicture(frame: try processor.process(frame))
        }
        #expect(processor.usesPlaneKernels)
        #expect(processor.framesReadInPlace == (processor.deviceIsCPU ? 3 : 0))
        for p in pictures.dropFirst() { #expect(differences(p.channels, pictures[0].channels) == 0) }
        let psnr = Reference.psnr(pictures[0], Reference.process(picture, spec))
        #expect(psnr.allSatisfy { $0 >= 50 }, "PSNR \(formatted(psnr)) dB")
    }

    @Test("the fast path with staging buffers gives the same pictures")
    func staging() throws {
        let picture = TestPicture.pattern(.yuv420p10le, width: 300, height: 170)
        let spec = ProcessingSpec(outputWidth: 211, outputHeight: 119, outputFormat: .yuv420p)
        let direct = try VulkanProcessor(spec: spec)
        let directPicture = try run(direct, picture)
        let staged = try run(try VulkanProcessor(spec: spec, forceStaging: true), picture)
        #expect(direct.usesPlaneKernels)
        #expect(differences(directPicture.channels, staged.channels) == 0)
    }
}

/// The fast path's layout rules, which need no device: pass 2 writes whole 64-bit words, the last of a row
/// into the row's padding, so an output plane qualifies only with 8-byte-aligned offset and stride and room
/// for that word.
struct PlaneResamplingLayoutTests {
    func plan(outputWidth: Int, offset: Int, stride: Int) -> PlaneResampling? {
        let (width, height, outHeight) = (64, 16, 8)
        func weights(_ count: Int, _ sourceCount: Int) -> ResamplingWeights {
            let step = Double(sourceCount) / Double(count)
            return ResamplingWeights(filter: .bicubic, count: count, sourceCount: sourceCount, step: step) { k in
                (Double(k) + 0.5) * step - 0.5
            }
        }
        let input = PlaneResampling.PlaneInput(
            source: ProcessingPlan.PlaneSlot(offset: 0, stride: width, rowBytes: width, rows: height),
            bytesPerSample: 1, bitDepth: 8, width: width, height: height,
            vertical: weights(outHeight, height), horizontal: weights(outputWidth, width),
            output: ProcessingPlan.PlaneSlot(offset: offset, stride: stride, rowBytes: outputWidth, rows: outHeight),
            outputWidth: outputWidth, outputHeight: outHeight, scale: 1, bias: 0)
        return PlaneResampling([input], dither: false, tuning: .cpu)
    }

    @Test("an output plane qualifies only with 8-byte alignment and room for a row's last 64-bit word")
    func outputLayout() {
        #expect(plan(outputWidth: 32, offset: 0, stride: 32) != nil)
        #expect(plan(outputWidth: 30, offset: 0, stride: 32) != nil)  // the last word's 2 spare bytes are padding
        #expect(plan(outputWidth: 30, offset: 256, stride: 64) != nil)
        #expect(plan(outputWidth: 30, offset: 0, stride: 36) == nil)  // 4-byte aligned only
        #expect(plan(outputWidth: 28, offset: 0, stride: 28) == nil)  // the last word's 4 spare bytes: no room
        #expect(plan(outputWidth: 32, offset: 4, stride: 32) == nil)  // plane not 8-byte aligned
    }
}
