import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore
import Testing

@testable import TesseraCompute

/// One `VulkanProcessor` making a ladder's sizes from one upload per frame gives, for every size, the
/// pictures a processor of that size alone gives.
@Suite(.enabled(if: VulkanAvailability.isAvailable, VulkanAvailability.reason))
struct MultiOutputTests {
    static let ladder: [ProcessingSpec] = [
        ProcessingSpec(outputWidth: 640, outputHeight: 360, outputFormat: .yuv420p),
        ProcessingSpec(outputWidth: 426, outputHeight: 240, outputFormat: .yuv420p, filter: .mitchell),
        // Generic kernels: another output format, and a turn.
        ProcessingSpec(outputWidth: 256, outputHeight: 144, outputFormat: .nv12),
        ProcessingSpec(outputWidth: 144, outputHeight: 256, outputFormat: .yuv420p, rotation: Rotation(degrees: 90)),
    ]

    /// Each frame through `processor` (every output), against each spec alone.
    func compare(_ specs: [ProcessingSpec], input: PixelFormat, staging: Bool) throws -> VulkanProcessor {
        let pictures = [
            TestPicture.pattern(input, width: 1280, height: 720),
            TestPicture.pattern(input, width: 1280, height: 720, seed: 7),
            TestPicture.pattern(input, width: 1280, height: 720, seed: 11),
        ]
        let joint = try VulkanProcessor(specs: specs, forceStaging: staging)
        let alone = try specs.map { try VulkanProcessor(spec: $0, forceStaging: staging) }
        for picture in pictures {
            let frame = try picture.makeFrame()
            let outputs = try joint.processAll(frame)
            #expect(outputs.count == specs.count)
            for (i, output) in outputs.enumerated() {
                #expect(output.width == specs[i].outputWidth && output.height == specs[i].outputHeight)
                #expect(PixelFormat(output.pixelFormat) == specs[i].outputFormat)
                #expect(output.pts == frame.pts)
                let single = TestPicture(frame: try alone[i].process(frame))
                #expect(
                    differences(TestPicture(frame: output).channels, single.channels) == 0,
                    "output \(i) (\(specs[i].outputWidth)x\(specs[i].outputHeight)) differs from its processor alone")
            }
        }
        #expect(joint.uploads == pictures.count, "one upload per frame for \(specs.count) outputs")
        #expect(alone.map(\.uploads).reduce(0, +) == pictures.count * specs.count)
        return joint
    }

    @Test("fast-path sizes share each frame's upload (read in place on a CPU device)")
    func fastPath() throws {
        let joint = try compare(Array(Self.ladder.prefix(2)), input: .yuv420p, staging: false)
        #expect(joint.usesPlaneKernels)
        #expect(joint.framesReadInPlace == (joint.deviceIsCPU ? 3 : 0))
    }

    @Test("fast and generic kernels share one upload, through staging buffers too", arguments: [false, true])
    func mixed(staging: Bool) throws {
        let joint = try compare(Self.ladder, input: .yuv420p10le, staging: staging)
        #expect(!joint.usesPlaneKernels)
        #expect(joint.framesReadInPlace == 0)
    }

    @Test("adding a size keeps the others and their order")
    func adding() throws {
        let first = try VulkanProcessor(spec: Self.ladder[0])
        let joined = try first.adding(Self.ladder[1]).adding(Self.ladder[2])
        #expect(joined.specs == Array(Self.ladder.prefix(3)))
        #expect(joined.kind == .vulkan)
        #expect(throws: MediaError.self) { try VulkanProcessor(specs: []) }
    }
}
