import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore

/// What the coordinator checks of a worker's result before it takes it as the segment: the result
/// decodes, holds the task's frames (their count, and for a plain segment their exact times) at the
/// task's picture size, and its first and last pictures are the source's.
///
/// ```
///  result packets ─▶ decode (loop filter skipped) ─▶ count, times, size ─▶ first / last picture ─┐
///  task's source packets ─▶ decode from the keyframe it starts at (first), and from the last     ├─▶ 64×36
///                           keyframe before its last frame (last) ──────────────────────────────┘   luma PSNR
/// ```
///
/// The pictures are compared as 64×36 luma thumbnails, so scaling, colour conversion and the encoder's
/// loss leave them far above `minimumPSNR` while another second's pictures fall below it. Retimed,
/// composed and rotated segments are checked for decoding, count and size; their pictures are not
/// compared (which source frame each output frame shows is the time map's or the render's to say).
public enum SegmentResultCheck {
    public struct Report: Sendable, Equatable {
        public var frames: Int
        /// Fingerprint PSNR (dB) of the first and last pictures against the source's; nil when not compared.
        public var firstPSNR: Double?
        public var lastPSNR: Double?
    }

    /// Below this a fingerprint shows another picture. Honest encodes measure 35 dB and more at this size.
    public static let minimumPSNR = 24.0
    static let fingerprintWidth = 64
    static let fingerprintHeight = 36

    /// - Throws: `.verificationFailed` naming what is wrong with the result; `.unsupported` or `.ffmpeg`
    ///   when the source cannot be decoded here (then nothing is said of the result).
    public static func check(_ output: SegmentOutput, against work: SegmentWork) throws(MediaError) -> Report {
        // A ladder's renditions are each the task's segment at their own settings: checked alike.
        guard output.renditions.count == work.renditions.count else {
            throw MediaError(
                .verificationFailed,
                "segment \(work.spec.index)'s result holds \(output.renditions.count) renditions, "
                    + "the task asked \(work.renditions.count)")
        }
        for (k, rendition) in output.renditions.enumerated() {
            var one = work
            one.settings = work.renditions[k]
            one.renditions = []
            _ = try check(rendition, against: one)
        }
        let spec = work.spec
        let name = "segment \(spec.index)'s result"
        func refuse(_ what: String) -> MediaError { MediaError(.verificationFailed, "\(name) \(what)") }

        // A plain segment shows each source frame of its range once, moved onto the output timeline (as
        // `VideoGate` passes them), led by the frame on screen at its start when none sits exactly there.
        // Nil where the task is retimed or composed, or this reading of it does not give its frame count.
        let plain = work.retime == nil && work.layer == nil ? shownFrames(work) : nil
        // The output times whose pictures are compared: the first and the last.
        let compared: [Int64] =
            work.rotation == .none ? [plain?.first, plain?.last].compactMap { $0?.output } : []

        let parameters = try CodecParameters(output.parameters)
        let outputTB = work.outputTimeBase
        let decoder = try Decoder(
            parameters: parameters.pointer,
            timeBase: try AVRational(outputTB, "\(name): the output time base"), path: name,
            threads: 1, checkOnly: true)
        var times: [Int64] = []
        var sizes: Set<[Int]> = []
        var pictures: [Int64: [UInt8]] = [:]
        do throws(MediaError) {
            func take(_ f: Frame) throws(MediaError) -> Bool {
                times.append(f.pts)
                sizes.insert([f.width, f.height])
                if compared.contains(f.pts) { pictures[f.pts] = try fingerprint(f) }
                return true
            }
            for p in output.packets { _ = try decoder.decode(try p.makePacket(), take) }
            _ = try decoder.decode(nil, take)
        } catch {
            throw refuse("does not decode: \(error.message)")
        }
        guard times.count == spec.frameCount else {
            throw refuse("decodes to \(times.count) frames; the task has \(spec.frameCount)")
        }
        let size = try expectedSize(work)
        guard sizes == [size] else {
            let seen = sizes.map { "\($0[0])x\($0[1])" }.sorted().joined(separator: ", ")
            throw refuse("is \(seen); the task makes \(size[0])x\(size[1])")
        }
        var report = Report(frames: times.count)
        guard let plain else { return report }
        guard times.sorted() == plain.map(\.output) else {
            throw refuse("shows frames at other times than the task's \(plain.count) source frames")
        }
        guard let first = plain.first, let last = plain.last, !compared.isEmpty else { return report }
        let source = try sourcePictures(work, at: [first.source, last.source])
        var psnrs: [Double] = []
        for frame in [first, last] {
            guard let a = pictures[frame.output], let b = source[frame.source] else { return report }
            psnrs.append(psnr(a, b))
        }
        report.firstPSNR = psnrs[0]
        report.lastPSNR = psnrs[1]
        for (which, value) in zip(["first", "last"], psnrs) where value < minimumPSNR {
            throw refuse(
                "is not the source's pictures: its \(which) frame matches the source's at "
                    + String(format: "%.1f dB (at least %.0f dB expected)", value, minimumPSNR))
        }
        return report
    }

    /// A plain segment's frames in order: each source frame's time and the output time it is shown at.
    /// Nil when that reading of the task does not give its frame count (its times are then not judged).
    static func shownFrames(_ work: SegmentWork) -> [(source: Int64, output: Int64)]? {
        let range = work.spec.presentationRange
        let shift = work.spec.timeMap.output(range.lowerBound)
        var shown = work.packets.map(\.pts).filter { range.contains($0) }.sorted()
        if shown.first != range.lowerBound,
            let before = work.packets.map(\.pts).filter({ $0 < range.lowerBound }).max()
        {
            shown.insert(before, at: 0)
        }
        guard shown.count == work.spec.frameCount else { return nil }
        return shown.map { ($0, max($0, range.lowerBound) &- range.lowerBound &+ shift) }
    }

    /// The picture size the task's settings make of its source (or of the render, for a composition: a
    /// package's smaller rendition is the render scaled into its box).
    static func expectedSize(_ work: SegmentWork) throws(MediaError) -> [Int] {
        if let layer = work.layer {
            let size = LayerRenderer.outputSize(of: layer, settings: work.settings)
            return [size.width, size.height]
        }
        let source = try CodecParameters(work.source)
        let outputTB = work.outputTimeBase
        let encoding = try VideoEncoding(
            work.settings, parameters: source.pointer.pointee,
            timeBase: try AVRational(outputTB, "\(work.sourceName): the output time base"),
            frameRate: try AVRational(work.frameRate, "\(work.sourceName): the frame rate"),
            rotation: work.rotation)
        return [encoding.encoderInput.width, encoding.encoderInput.height]
    }

    /// Fingerprints of the source frames at `times`, each decoded from the last keyframe (in decode order)
    /// at or before it: the segment's own keyframe for its first frame, its last GOP for its last.
    static func sourcePictures(_ work: SegmentWork, at times: [Int64]) throws(MediaError) -> [Int64: [UInt8]] {
        let parameters = try CodecParameters(work.source)
        // Pictures for a 64x36 fingerprint: the loop filter is skipped, and so is every frame no other
        // refers to, but the ones asked for.
        let decoder = try Decoder(
            parameters: parameters.pointer,
            timeBase: try AVRational(work.timeBase, "\(work.sourceName): the time base"),
            path: work.sourceName, threads: 1, checkOnly: true)
        var found: [Int64: [UInt8]] = [:]
        // Each time from the last keyframe (in decode order) at or before it; times sharing that keyframe
        // come out of one pass, which stops once they are all seen.
        var groups: [Int: Set<Int64>] = [:]
        for t in times {
            let start = work.packets.indices.last { work.packets[$0].isKeyframe && work.packets[$0].pts <= t }
            if let start { groups[start, default: []].insert(t) }
        }
        // Packets known from the index alone (a farm's producer reads no more) are read from the source
        // as the decode reaches them, in runs that double: a few for the first picture, its GOP for the last.
        var packets = work.packets
        func load(_ i: Int, from start: Int) throws(MediaError) {
            guard !packets[i].isLoaded else { return }
            let end = min(packets.count, i + max(8, i - start))
            packets[i..<end] = try SourcePacketReader.load(
                Array(packets[i..<end]), from: work.sourceName, stream: work.sourceStream ?? 0,
                sourceBytes: work.sourceBytes)[...]
        }
        for (start, wanted) in groups.sorted(by: { $0.key < $1.key }) {
            decoder.flush()
            var more = true
            func take(_ f: Frame) throws(MediaError) -> Bool {
                if wanted.contains(f.pts), found[f.pts] == nil { found[f.pts] = try fingerprint(f) }
                return !wanted.allSatisfy { found[$0] != nil }
            }
            for i in start..<packets.count where more {
                try load(i, from: start)
                let p = packets[i]
                decoder.context.pointee.skip_frame = wanted.contains(p.pts) ? AVDISCARD_DEFAULT : AVDISCARD_NONREF
                more = try decoder.decode(try p.makePacket(), take)
            }
            decoder.context.pointee.skip_frame = AVDISCARD_DEFAULT
            if more { _ = try decoder.decode(nil, take) }
        }
        return found
    }

    /// The picture's luma as a 64×36 thumbnail (area-averaged).
    static func fingerprint(_ frame: Frame) throws(MediaError) -> [UInt8] {
        let w = fingerprintWidth, h = fingerprintHeight
        let small = try Frame(width: w, height: h, format: AV_PIX_FMT_GRAY8)
        guard
            let sws = sws_getContext(
                Int32(frame.width), Int32(frame.height), frame.pixelFormat, Int32(w), Int32(h), AV_PIX_FMT_GRAY8,
                SWS_AREA, nil, nil, nil)
        else { throw MediaError(.unsupported, "cannot scale \(PixelFormat(frame.pixelFormat)) pictures") }
        defer { sws_freeContext(sws) }
        try ff(sws_scale_frame(sws, small.pointer, frame.pointer), "scale a fingerprint")
        guard let plane = small.pointer.pointee.data.0 else { return [] }
        let stride = Int(small.pointer.pointee.linesize.0)
        return (0..<h).flatMap { y in (0..<w).map { x in plane[y * stride + x] } }
    }

    /// PSNR (dB) of two fingerprints; 100 for identical ones.
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        let squared = zip(a, b).reduce(0.0) { sum, pair in
            let d = Double(pair.0) - Double(pair.1)
            return sum + d * d
        }
        let mse = squared / Double(a.count)
        return mse == 0 ? 100 : 10 * log10(255 * 255 / mse)
    }
}
