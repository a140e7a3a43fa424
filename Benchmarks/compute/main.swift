// tessera-compute-bench: frames per second of TesseraCompute's processors on raw video read from a
// file (made by Benchmarks/compute/run.sh with ffmpeg), one line per measurement:
//   RESULT <label> <frames> <seconds> <frames/s>
// Frames start and end in system memory, so Vulkan figures include upload and download.
//
// usage: tessera-compute-bench <raw file> <width> <height> <pix_fmt> <out w> <out h> <out pix_fmt> <filter>
//        <frames> <label:backend>...   backend: vulkan | vulkan-sync | cpu-frames | cpu | cpu1 | agree
//   cpu-frames: FrameParallelProcessor, a frame per core in flight; cpu: libswscale slice threads, one per
//   core; cpu1: libswscale, one thread. agree: not a speed; the chosen Vulkan device's output against the
//   CPU path's on every loaded frame, one line:  AGREE <label> <device> <worst PSNR dB> <largest difference>
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

/// Every sample of a frame, plane after plane (16-bit formats as two bytes each, little-endian).
func samples(_ frame: Frame) throws -> [UInt8] {
    let format = frame.pointer.pointee.format
    let size = Int(
        av_image_get_buffer_size(
            AVPixelFormat(format), frame.pointer.pointee.width,
            frame.pointer.pointee.height, 1))
    var bytes = [UInt8](repeating: 0, count: max(size, 0))
    let f = frame.pointer
    let written = withUnsafePointer(to: &f.pointee.data) { dataTuple in
        withUnsafePointer(to: &f.pointee.linesize) { lineTuple in
            dataTuple.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { d in
                lineTuple.withMemoryRebound(to: Int32.self, capacity: 8) { l in
                    av_image_copy_to_buffer(
                        &bytes, Int32(bytes.count), d, l, AVPixelFormat(format),
                        f.pointee.width, f.pointee.height, 1)
                }
            }
        }
    }
    try ff(written, "copy frame out")
    return bytes
}

/// The Vulkan device's pictures against the CPU path's (Tessera's own, as a job would run it): the worst
/// frame's PSNR over all samples, and the largest difference of one sample, in code values.
func agree(_ label: String, _ frames: [Frame], _ spec: ProcessingSpec, sixteenBit: Bool) {
    do {
        let gpu = try VulkanProcessor(spec: spec, framesInFlight: 1)
        let cpu = try CPUProcessor(spec: spec, threads: 1, allowsPlaneScaler: true)
        var worst = Double.infinity
        var largest = 0
        for frame in frames {
            let a = try samples(gpu.process(frame)), b = try samples(cpu.process(frame))
            guard a.count == b.count else { fail("\(label): outputs differ in size") }
            var squares = 0.0
            var count = 0
            let step = sixteenBit ? 2 : 1
            for i in stride(from: 0, to: a.count - step + 1, by: step) {
                let x = sixteenBit ? Int(a[i]) | Int(a[i + 1]) << 8 : Int(a[i])
                let y = sixteenBit ? Int(b[i]) | Int(b[i + 1]) << 8 : Int(b[i])
                squares += Double((x - y) * (x - y))
                largest = max(largest, abs(x - y))
                count += 1
            }
            let peak = sixteenBit ? 1023.0 : 255.0
            let mse = squares / Double(max(count, 1))
            worst = min(worst, mse == 0 ? 100 : 10 * log10(peak * peak / mse))
        }
        print(
            String(
                format: "AGREE %@ %@ %.2f %d", label,
                gpu.deviceDescription.replacingOccurrences(of: " ", with: "_"), worst, largest))
    } catch {
        print("AGREE \(label) error \(String(describing: error).replacingOccurrences(of: " ", with: "_"))")
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
            let p = try? CPUProcessor(
                spec: spec, threads: backend == "cpu" ? 0 : 1,
                allowsPlaneScaler: backend != "swscale1")
            measure(label, count: count) { n in
                guard let p else { throw MediaError(.unsupported, "no CPU processor") }
                for i in 0..<n { _ = try p.process(frames[i % frames.count]) }
            }
        case "agree":
            agree(label, frames, spec, sixteenBit: args[7].hasSuffix("10le") || args[7].hasSuffix("16le"))
        default: fail("unknown backend \(backend)")
        }
    }
}

main()
