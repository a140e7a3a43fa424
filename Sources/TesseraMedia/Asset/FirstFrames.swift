import CFFmpeg
import TesseraAV
import TesseraCore

/// What a video track's first decoded frames state that its container does not: HEVC's and AV1's HDR10
/// metadata (in the frames, not the container), and CEA-608/708 closed captions carried as ATSC A/53 user
/// data in the pictures (H.264 and HEVC SEI, MPEG-2 user data), which libavcodec exports as frame side
/// data; and, asked for, how the fields of the first `fieldFrames` pictures look to libavfilter's idet.
/// One decode of at most that many frames; a track that cannot be decoded states nothing.
struct FirstFrames {
    var hdr: HDRMetadata?
    var closedCaptions = false
    var fieldScan: FieldScan?

    /// Frames idet looks at: two seconds of 25i, enough for its multiple-frame detection to settle.
    static let fieldFrames = 48

    /// Frames looked at for captions: a broadcast stream carries caption data (or its padding) in every
    /// picture, an edited file at least within its first GOP's opening frames.
    static let captionFrames = 8

    static func read(
        path: String, track: Int, knownHDR: HDRMetadata?, frames: Int = captionFrames, scanFields: Bool = false
    ) -> FirstFrames {
        var facts = FirstFrames(hdr: knownHDR)
        func look() throws(MediaError) {
            let reader = try AssetReader(path: path)
            let output = try reader.addOutput(trackID: track)
            try reader.startReading()
            defer {
                reader.cancelReading()
                reader.waitUntilFinished()
            }
            let idet = scanFields ? SourceFilter(filter: "idet", timeBase: output.timeBase) : nil
            var counted = 0
            var last: Frame?
            for n in 0..<max(1, frames, scanFields ? fieldFrames : 0) {
                guard let frame = try output.copyNextFrame() else { break }
                if n == 0 { facts.hdr = (knownHDR ?? HDRMetadata()).adding(frame: frame) }
                if n < frames, av_frame_get_side_data(frame.pointer, AV_FRAME_DATA_A53_CC) != nil {
                    facts.closedCaptions = true
                    if idet == nil { return }
                }
                if let idet {
                    counted += 1
                    last = try idet.push(frame).last ?? last
                }
            }
            if let idet {
                last = try idet.finish().last ?? last
                facts.fieldScan = last.map { Self.fieldScan(of: $0, frames: counted) }
            }
        }
        try? look()
        if facts.hdr?.isEmpty != false { facts.hdr = nil }
        return facts
    }

    /// idet's running counts, as its last frame's metadata carries them (`lavfi.idet.multiple.tff`: "12.00").
    private static func fieldScan(of frame: Frame, frames: Int) -> FieldScan {
        func count(_ key: String) -> Int {
            guard let entry = av_dict_get(frame.pointer.pointee.metadata, "lavfi.idet.multiple." + key, nil, 0),
                let value = Double(String(cString: entry.pointee.value)), value.isFinite
            else { return 0 }
            // Written as "12.00"; a count, so at most the frames looked at.
            return Int(min(max(0, value.rounded()), Double(frames)))
        }
        return FieldScan(
            frames: frames, topFieldFirst: count("tff"), bottomFieldFirst: count("bff"),
            progressive: count("progressive"),
            undetermined: count("undetermined"))
    }
}
