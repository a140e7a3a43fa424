import CFFmpeg
import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore

/// Measures a finished file against its source (`tessera verify OUT --against SRC --quality`), whoever
/// made it: both are decoded, each source frame is converted to the output's size and format with the
/// CPU path's scaler (a job's own), and the k-th output frame is measured against the k-th source frame
/// with FFmpeg's `psnr` and `ssim` filters (`QualityMeter`). The figures are listed per GOP of the output
/// (a Tessera output's segments each start one) and as a whole.
public enum FileQuality {
    public struct Result: Sendable, Codable {
        public var quality: QualityReport?
        public var outputFrames: Int
        public var sourceFrames: Int
        /// What the pairing could not cover (frame counts that differ).
        public var note: String?
    }

    /// - Throws: `.invalidArgument` for a file without video or pictures turned differently from the
    ///   source's; `.unsupported` for a format the filters cannot compare; reading and decoding errors.
    public static func measure(output: String, against source: String) throws(MediaError) -> Result {
        let made = try Reading(output), original = try Reading(source)
        defer {
            made.reader.cancelReading()
            original.reader.cancelReading()
        }
        // A file that keeps its source's rotation tag keeps its pictures unturned; one without a tag has them
        // upright (as Tessera writes them), so the source is turned to compare.
        let rotation: Rotation
        switch (made.rotation, original.rotation) {
        case (let a, let b) where a == b: rotation = .none
        case (.none, let b): rotation = b
        default:
            throw MediaError(
                .invalidArgument, path: output,
                "is tagged \(made.rotation) and its source \(original.rotation): the pictures cannot be paired")
        }
        var meter: QualityMeter?
        var processor: (any FrameProcessor)?
        var windows: [(first: Int, stats: QualityStats, bytes: Int, frames: Int)] = []
        var outputCount = 0, sourceCount = 0
        while let encoded = try made.output.copyNextFrame() {
            outputCount += 1
            guard let reference = try original.output.copyNextFrame() else { continue }
            sourceCount += 1
            let f = encoded.pointer.pointee
            if processor == nil {
                let spec = ProcessingSpec(
                    outputWidth: Int(f.width), outputHeight: Int(f.height),
                    outputFormat: PixelFormat(encoded.pixelFormat),
                    outputMatrix: encoded.colorMatrix, outputRange: encoded.colorRange, rotation: rotation)
                processor = try makeFrameProcessor(backend: .cpu, spec: spec, calibrationFrame: nil)
                meter = try QualityMeter(
                    width: Int(f.width), height: Int(f.height), format: encoded.pixelFormat, timeBase: Rational(1, 1))
            }
            let converted = try processor!.process(reference)
            // Paired by position: both at the same instant of the meter's own clock.
            let k = Int64(outputCount - 1)
            // A keyframe starts the next window: the meter's pairs so far are the last window's.
            if f.key_frame != 0 || windows.isEmpty {
                if let last = windows.indices.last, let done = meter {
                    windows[last].stats = try done.finish()
                    meter = try QualityMeter(
                        width: Int(f.width), height: Int(f.height), format: encoded.pixelFormat,
                        timeBase: Rational(1, 1))
                }
                windows.append((outputCount - 1, QualityStats(peak: 0), 0, 0))
            }
            encoded.pts = k
            converted.pts = k
            try meter!.measure(encoded, against: converted)
            windows[windows.count - 1].bytes += Int(max(0, f.pkt_size))
            windows[windows.count - 1].frames += 1
        }
        while try original.output.copyNextFrame() != nil { sourceCount += 1 }
        if let meter, let last = windows.indices.last { windows[last].stats = try meter.finish() }
        let frameSeconds = made.frameDuration
        let segments = windows.enumerated().compactMap { (i, w) -> SegmentQuality? in
            let start = Double(w.first) * frameSeconds
            return SegmentQuality(
                index: i, stats: w.stats, frames: w.frames, span: start...(start + Double(w.frames) * frameSeconds),
                bytes: w.bytes, encodeSeconds: 0, rateControl: .bitRate(0))
        }
        let note =
            outputCount == sourceCount
            ? nil
            : "the output has \(outputCount) frames and the source \(sourceCount): the first "
                + "\(min(outputCount, sourceCount)) of each were paired in order"
        return Result(
            quality: QualityReport(segments: segments), outputFrames: outputCount, sourceFrames: sourceCount,
            note: note)
    }

    /// A file's first video track, decoded.
    private struct Reading {
        let reader: AssetReader
        let output: AssetReaderTrackOutput
        let rotation: Rotation
        /// Seconds per frame, as the track declares it.
        let frameDuration: Double

        init(_ path: String) throws(MediaError) {
            reader = try AssetReader(path: path)
            guard let id = reader.videoTrackID else {
                throw MediaError(.invalidArgument, path: path, "has no video track")
            }
            let description = StreamDescription(stream: reader.input.streams[id])
            rotation = description.rotation
            let rate = description.frameRate
            frameDuration = rate.num > 0 && rate.den > 0 ? Double(rate.den) / Double(rate.num) : 0
            output = try reader.addOutput(trackID: id)
            try reader.startReading()
        }
    }
}
