import CFFmpeg
import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore
import Testing

/// The CPU path with frames in flight gives exactly what one libswscale thread gives, in order.
struct FrameParallelProcessorTests {
    @Test(
        "every frame matches CPUProcessor bit for bit and comes back in submission order",
        arguments: [1, 2, 3])
    func matchesSingleThread(lanes: Int) throws {
        let spec = ProcessingSpec(outputWidth: 320, outputHeight: 180, outputFormat: .yuv420p)
        let parallel = try FrameParallelProcessor(spec: spec, lanes: lanes)
        #expect(parallel.framesInFlight == lanes)
        let reference = try CPUProcessor(spec: spec, threads: 1)
        let inputs = try (0..<7).map { seed in
            let frame = try TestPicture.pattern(.yuv420p, width: 638, height: 358, seed: seed + 1).makeFrame()
            frame.pts = Int64(100 + seed)
            return frame
        }
        var outputs: [Frame] = []
        for input in inputs {
            if parallel.pendingCount == parallel.framesInFlight { outputs.append(try #require(try parallel.receive())) }
            try parallel.submit(input)
        }
        while let out = try parallel.receive() { outputs.append(out) }
        #expect(parallel.pendingCount == 0)
        #expect(outputs.map(\.pts) == inputs.map(\.pts))
        for (input, output) in zip(inputs, outputs) {
            let expected = TestPicture(frame: try reference.process(input))
            let got = TestPicture(frame: output)
            #expect(got.channels == expected.channels, "frame \(input.pts)")
        }
    }

    @Test("submitting past the lanes is refused, process() drains first, errors come back on receive")
    func contract() throws {
        let spec = ProcessingSpec(outputWidth: 160, outputHeight: 90, outputFormat: .yuv420p)
        let p = try FrameParallelProcessor(spec: spec, lanes: 2)
        let frame = try TestPicture.pattern(.yuv420p, width: 320, height: 180).makeFrame()
        try p.submit(frame)
        try p.submit(frame)
        #expect(throws: MediaError.self) { try p.submit(frame) }
        let out = try p.process(frame)  // receives the two pending ones first
        #expect(out.width == 160 && p.pendingCount == 0)

        // A frame libswscale cannot read: the lane's error surfaces on receive, and the lane keeps working.
        let bad = try TestPicture.pattern(.yuv420p, width: 64, height: 64).makeFrame()
        bad.pointer.pointee.format = AV_PIX_FMT_NONE.rawValue
        try p.submit(bad)
        #expect(throws: MediaError.self) { _ = try p.receive() }
        #expect(try p.process(frame).height == 90)
    }
}
