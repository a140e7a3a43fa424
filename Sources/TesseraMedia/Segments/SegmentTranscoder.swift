import CFFmpeg
import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore

/// Runs one `SegmentTask`: decode its packets, keep the frames it presents, process, encode.
///
/// Each segment's encoder starts fresh, so the segment begins with a keyframe; every segment uses the
/// same settings, so their packets concatenate. Runs on the calling (dedicated) thread.
enum SegmentTranscoder {
    /// - Throws: `.corrupt` for damaged source data, `.unsupported` for codecs or formats that cannot be
    ///   decoded or encoded, `.ffmpeg` for other library failures.
    static func run(_ task: SegmentTask,
                    makeProcessor: @escaping (ProcessingSpec, Frame) throws(MediaError) -> any FrameProcessor,
                    progress: @escaping (SegmentProgress) -> Void = { _ in }) throws(MediaError) -> SegmentResult {
        let started = Date()
        let spec = task.spec
        let decoder = try Decoder(parameters: task.source.pointer, timeBase: task.sourceTimeBase, path: task.sourcePath,
                                  threads: task.threads)
        let encoder = try Encoder(video: task.settings, input: task.encoderInput, globalHeader: true,
                                  threads: task.threads)
        let range = spec.presentationRange
        var gate = VideoGate(range: TickRange(start: range.lowerBound, end: range.upperBound, offset: 0))
        let shift = spec.timeMap.output(range.lowerBound)
        var processor: (any FrameProcessor)? = nil
        var timing = FrameDurations()
        var out: [EncodedPacket] = []
        var durations: [Int64: Int64] = [:]
        var frames = 0

        func encode(_ frame: Frame?) throws(MediaError) {
            if let frame {
                durations[frame.pts] = frame.pointer.pointee.pkt_duration
                frame.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
                frames += 1
            }
            try encoder.encode(frame) { packet in
                var p = EncodedPacket(packet)
                if let d = durations.removeValue(forKey: p.pts) { p.duration = d }
                out.append(p)
            }
        }
        /// Processes a frame onto the output timeline and encodes the one before it (see `FrameDurations`).
        func accept(_ decoded: Frame) throws(MediaError) -> Bool {
            var frame = decoded
            if let pspec = task.processing {
                if processor == nil { processor = try makeProcessor(pspec, decoded) }
                frame = try processor!.process(decoded)
            }
            frame.pts = decoded.pts + shift
            if let previous = timing.push(frame) {
                try encode(previous)
                if frames % 16 == 0 { progress(SegmentProgress(segment: spec.index, framesDone: frames,
                                                               framesTotal: spec.frameCount)) }
            }
            return true
        }

        // The gate's emit closure cannot throw: keep the first error and stop, then rethrow it.
        var failure: MediaError? = nil
        let emit: (Frame) -> Bool = { g in
            do throws(MediaError) { return try accept(g) } catch {
                failure = error
                return false
            }
        }
        var more = true
        for encoded in task.packets where more {
            let packet = try encoded.makePacket()
            more = try decoder.decode(packet) { (f) throws(MediaError) in try gate.accept(f, emit) }
        }
        if more { _ = try decoder.decode(nil) { (f) throws(MediaError) in try gate.accept(f, emit) } }
        if let failure { throw failure }
        guard let last = timing.finish(endTick: task.endTick) else {
            throw MediaError(.corrupt, path: task.sourcePath, "segment \(spec.index) decoded no frame")
        }
        try encode(last)
        try encode(nil)
        guard frames == spec.frameCount else {
            throw MediaError(.corrupt, path: task.sourcePath,
                             "segment \(spec.index) produced \(frames) frames, planned \(spec.frameCount)")
        }
        return SegmentResult(index: spec.index, parameters: try CodecParameters(encoder: encoder.context),
                             packets: out, frames: frames, seconds: Date().timeIntervalSince(started),
                             processor: processor?.backendName ?? "none")
    }
}
