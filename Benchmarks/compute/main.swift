// tessera-compute-bench: frames per second of TesseraCompute's processors on raw video read from a
// file (made by Benchmarks/compute/run.sh with ffmpeg), one line per measurement:
//   RESULT <label> <frames> <seconds> <frames/s>
// Frames start and end in system memory, so Vulkan figures include upload and download.
//
// usage: tessera-compute-bench <raw file> <width> <height> <pix_fmt> <out w> <out h> <out pix_fmt> <filter>
//        <frames> <label:backend>...   backend: vulkan | vulkan-sync | cpu-frames | cpu | cpu1
//   cpu-frames: FrameParallelProcessor, a frame per core in flight; cpu: libswscale slice threads, one per
//   core; cpu1: libswscale, one thread.
import CFFmpeg
import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("tessera-compute-bench: \(message)\n".utf8))
    exit(1)
}

/// Up to 8 distinct source frames read from a raw file, cycled by the measurements.
func loadFrames(path: String, width: Int, height: Int, format: PixelFormat) -> [Frame] {
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    let frameBytes = Int(av_image_get_buffer_size(format.avFormat, Int32(width), Int32(height), 1))
    let available = data.count / frameBytes
    guard available > 0 else { fail("\(path) holds no whole \(width)x\(height) \(format) frame") }
    var frames: [Frame] = []
    do {
        for i in 0..<min(available, 8) {
            let frame = try Frame(width: width, height: height, format: format.avFormat)
            frame.pointer.pointee.colorspace = AVCOL_SPC_BT709
            frame.pointer.pointee.color_range = AVCOL_RANGE_MPEG
            try copyRaw(data, offset: i * frameBytes, into: frame, format: format)
            frames.append(frame)
        }
    } catch { fail("\(error)") }
    return frames
}

func copyRaw(_ data: Data, offset: Int, into frame: Frame, format: PixelFormat) throws {
    try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws in
        guard let start = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var source = [UnsafeMutablePointer<UInt8>?](repeating: nil, count: 4)
        var lines = [Int32](repeating: 0, count: 4)
        try ff(
            av_image_fill_arrays(
                &source, &lines, start + offset, format.avFormat, Int32(frame.width),
                Int32(frame.height), 1), "map raw frame")
        var sourceConst = source.map { UnsafePointer($0) }
        let f = frame.pointer
        withUnsafeMutablePointer(to: &f.pointee.data) { dataTuple in
            withUnsafeMutablePointer(to: &f.pointee.linesize) { lineTuple in
                dataTuple.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { d in
                    lineTuple.withMemoryRebound(to: Int32.self, capacity: 8) { l in
                        av_image_copy(
                            d, l, &sourceConst, lines, format.avFormat, Int32(frame.width),
                            Int32(frame.height))
                    }
                }
            }
        }
    }
}

func measure(_ label: String, count: Int, _ body: (Int) throws -> Void) {
    do {
        try body(min(5, count))  // warm-up: contexts, buffers, pipelines
        let start = DispatchTime.now().uptimeNanoseconds
        try body(count)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        print(String(format: "RESULT %@ %d %.3f %.1f", label, count, seconds, Double(count) / seconds))
    } catch {
        print("RESULT \(label) error \(String(describing: error).replacingOccurrences(of: " ", with: "_"))")
    }
}

/// Keeps the processor's slots full: submit until all are pending, then receive one per submit.
func measurePipelined(_ label: String, count: Int, _ frames: [Frame], _ processor: (any PipelinedFrameProcessor)?) {
    measure(label, count: count) { n in
        guard let p = processor else { throw MediaError(.unsupported, "\(label): no processor (no device?)") }
        for i in 0..<n {
            if p.pendingCount == p.framesInFlight { _ = try p.receive() }
            try p.submit(frames[i % frames.count])
        }
        while try p.receive() != nil {}
    }
}

func main() {
    let args = CommandLine.arguments
    guard args.count >= 11, let width = Int(args[2]), let height = Int(args[3]), let outW = Int(args[5]),
        let outH = Int(args[6]), let filter = ScalingFilter(rawValue: args[8]), let count = Int(args[9])
    else { fail("bad arguments; see the header of Benchmarks/compute/main.swift") }
    let format = PixelFormat(rawValue: args[4])
    let spec = ProcessingSpec(
        outputWidth: outW, outputHeight: outH, outputFormat: PixelFormat(rawValue: args[7]),
        filter: filter)
    let frames = loadFrames(path: args[1], width: width, height: height, format: format)
    for request in args[10...] {
        let parts = request.split(separator: ":").map(String.init)
        guard parts.count == 2 else { fail("expected label:backend, got \(request)") }
        let (label, backend) = (parts[0], parts[1])
        switch backend {
        case "vulkan":
            // Frames in flight: the next frame's upload overlaps the current one's kernels.
            measurePipelined(label, count: count, frames, try? VulkanProcessor(spec: spec, framesInFlight: 3))
        case "vulkan-sync":
            let p = try? VulkanProcessor(spec: spec)
            measure(label, count: count) { n in
                guard let p else { throw MediaError(.unsupported, "no Vulkan device") }
                for i in 0..<n { _ = try p.process(frames[i % frames.count]) }
            }
        case "cpu-frames":
            // One frame per core in flight, each converted whole on its own lane.
            measurePipelined(label, count: count, frames, try? FrameParallelProcessor(spec: spec))
        case "cpu", "cpu1", "swscale1":
            // cpu/cpu1: the CPU path as jobs run it (Tessera's PlaneScaler where the job qualifies);
            // swscale1: libswscale alone on one thread, the anchor.
            let p = try? SwscaleProcessor(
                spec: spec, threads: backend == "cpu" ? 0 : 1,
                allowsPlaneScaler: backend != "swscale1")
            measure(label, count: count) { n in
                guard let p else { throw MediaError(.unsupported, "no CPU processor") }
                for i in 0..<n { _ = try p.process(frames[i % frames.count]) }
            }
        default: fail("unknown backend \(backend)")
        }
    }
}

main()
