import CFFmpeg
import Foundation
import Synchronization
import TesseraAV
import TesseraCompute
import TesseraCore
import Testing

@testable import TesseraMedia

/// A segment's legs share the processing of each decoded frame: one processor per distinct size and
/// format, each frame processed once per spec however many legs ask.
struct SharedProcessingTests {
    @Test func eachFrameIsProcessedOncePerSpecWithOneProcessorPerSpec() throws {
        let made = Mutex(0)
        let shared = SharedProcessing { (spec, frame) throws(MediaError) in
            made.withLock { $0 += 1 }
            return try makeFrameProcessor(backend: .cpu, spec: spec, calibrationFrame: frame)
        }
        let small = ProcessingSpec(outputWidth: 160, outputHeight: 90, outputFormat: .yuv420p)
        let smaller = ProcessingSpec(outputWidth: 64, outputHeight: 36, outputFormat: .yuv420p)
        let first = try Frame(width: 320, height: 180, format: AV_PIX_FMT_YUV420P)
        let a = try shared.process(first, small)
        #expect(try shared.process(first, small) === a, "a second leg of the same size gets the same picture")
        let b = try shared.process(first, smaller)
        #expect(b !== a && b.pointer.pointee.width == 64)
        let second = try Frame(width: 320, height: 180, format: AV_PIX_FMT_YUV420P)
        #expect(try shared.process(second, small) !== a, "the next frame is processed afresh")
        #expect(made.withLock { $0 } == 2, "one processor per spec, kept across frames")
        #expect(shared.kind(small) == .simd)
    }
}

/// On Vulkan the sizes share one processor, so each frame is uploaded once for all of them.
@Suite(.enabled(if: (try? VulkanProcessor.availableDevice().get()) != nil, "needs a Vulkan device"))
struct SharedUploadTests {
    @Test func vulkanSizesShareOneUploadPerFrame() throws {
        let shared = SharedProcessing { (spec, frame) throws(MediaError) in
            try makeFrameProcessor(backend: .vulkan, spec: spec, calibrationFrame: frame)
        }
        let sizes = [
            ProcessingSpec(outputWidth: 640, outputHeight: 360, outputFormat: .yuv420p),
            ProcessingSpec(outputWidth: 320, outputHeight: 180, outputFormat: .yuv420p),
            ProcessingSpec(outputWidth: 160, outputHeight: 90, outputFormat: .yuv420p),
        ]
        var pictures: [[Frame]] = []
        for n in 0..<3 {
            let frame = try Frame(width: 1280, height: 720, format: AV_PIX_FMT_YUV420P)
            frame.pointer.pointee.pts = Int64(n)
            // Two legs of every size, as a ladder with two codecs per size asks.
            let outputs = try sizes.flatMap { spec in
                [try shared.process(frame, spec), try shared.process(frame, spec)]
            }
            #expect(outputs.map { $0.pointer.pointee.pts } == Array(repeating: Int64(n), count: 6))
            #expect(zip(outputs, sizes.flatMap { [$0, $0] }).allSatisfy { $0.width == $1.outputWidth })
            pictures.append(outputs)
        }
        #expect(shared.processorCount == 1, "one processor for the three sizes")
        #expect(sizes.allSatisfy { shared.kind($0) == .vulkan })
        let processor = try #require(shared.joint as? VulkanProcessor)
        #expect(processor.specs == sizes)
        // One upload per frame: frame 1 when the last size joined, then frames 2 and 3.
        #expect(processor.uploads == 3)
        #expect(pictures.count == 3)
    }
}
