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
