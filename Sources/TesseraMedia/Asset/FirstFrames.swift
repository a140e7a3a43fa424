import CFFmpeg
import TesseraAV
import TesseraCore

/// What a video track's first decoded frames state that its container does not: HEVC's and AV1's HDR10
/// metadata (in the frames, not the container), and CEA-608/708 closed captions carried as ATSC A/53 user
/// data in the pictures (H.264 and HEVC SEI, MPEG-2 user data), which libavcodec exports as frame side
/// data. One decode of at most `frames` frames; a track that cannot be decoded states nothing.
struct FirstFrames {
    var hdr: HDRMetadata?
    var closedCaptions = false

    /// Frames looked at for captions: a broadcast stream carries caption data (or its padding) in every
    /// picture, an edited file at least within its first GOP's opening frames.
    static let captionFrames = 8

    static func read(path: String, track: Int, knownHDR: HDRMetadata?, frames: Int = captionFrames) -> FirstFrames {
        var facts = FirstFrames(hdr: knownHDR)
        func look() throws(MediaError) {
            let reader = try AssetReader(path: path)
            let output = try reader.addOutput(trackID: track)
            try reader.startReading()
            defer {
                reader.cancelReading()
                reader.waitUntilFinished()
            }
            for n in 0..<max(1, frames) {
                guard let frame = try output.copyNextFrame() else { return }
                if n == 0 { facts.hdr = (knownHDR ?? HDRMetadata()).adding(frame: frame) }
                if av_frame_get_side_data(frame.pointer, AV_FRAME_DATA_A53_CC) != nil {
                    facts.closedCaptions = true
                    return
                }
            }
        }
        try? look()
        if facts.hdr?.isEmpty != false { facts.hdr = nil }
        return facts
    }
}
