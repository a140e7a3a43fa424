import CFFmpeg
import Foundation
import TesseraCore

/// The times the verifier's checks compare, derived from what the scan collected.
extension MediaTimingScan {
    /// One tick of the video time base: the finest time the container can store.
    var videoTick: MediaTime { Asset.time(1, in: videoTimeBase) }

    /// Video ticks as exact time.
    func videoTime(_ ticks: Int64) -> MediaTime { Asset.time(ticks, in: videoTimeBase) }

    /// Decoded frame times in presentation order; frames without a time are left out.
    var sortedFramePTS: [Int64] {
        frames.map(\.pts).filter { $0 != tessera_AV_NOPTS_VALUE() }.sorted()
    }

    /// From the first frame's time to the end of the last frame: its time plus its packet's duration,
    /// or, where the container states none, the step before it (a lone frame: one frame at the average
    /// rate). Nil without frames.
    var videoSpan: (start: MediaTime, end: MediaTime)? {
        let sorted = sortedFramePTS
        guard let first = sorted.first, let last = sorted.last else { return nil }
        var duration = frames.filter { $0.pts == last }.map(\.duration).max() ?? 0
        if duration <= 0, sorted.count >= 2 { duration = last - sorted[sorted.count - 2] }
        if duration <= 0, videoFrameRate.num > 0, videoFrameRate.den > 0 {
            duration = av_rescale_q(1, AVRational(num: videoFrameRate.den, den: videoFrameRate.num), videoTimeBase)
        }
        return (videoTime(first), videoTime(last + max(duration, 0)))
    }

    /// One coded audio frame's duration (1024/48000 s for AAC at 48 kHz); nil without audio.
    var audioFrameDuration: MediaTime? {
        guard let audio, audio.sampleRate > 0 else { return nil }
        return MediaTime(value: Int64(audio.frameSize), timescale: audio.sampleRate)
    }

    /// How much of the audio's lead over the video is its encoder's priming, played as samples because
    /// the container cannot mark it: Matroska and WebM store no negative times, so the muxer shifts the
    /// whole file by the priming (one AAC frame) instead of an edit list hiding it (MP4) or a CodecDelay
    /// skipping it (Opus). Zero elsewhere.
    var unmarkedPriming: MediaTime {
        guard formatName.contains("matroska"), let audio, audio.codec != "opus", let frame = audioFrameDuration
        else { return .zero }
        return frame
    }

    /// The first audio sample's time minus the first video frame's.
    var avStartOffset: MediaTime? {
        guard let audioStart = audio?.firstSampleTime, audioStart.isNumeric, let video = videoSpan else { return nil }
        return audioStart - video.start
    }

    /// Whether `ticks` of the video time base lie within one tick of `time`, compared exactly:
    /// |ticks · num / den − v / s| ≤ num / den  ⇔  |ticks · num · s − v · den| ≤ num · s (all below 2¹²⁶).
    func isWithinOneTick(_ ticks: Int64, of time: MediaTime) -> Bool {
        guard time.isNumeric else { return false }
        let num = Int128(videoTimeBase.num), den = Int128(videoTimeBase.den), scale = Int128(time.timescale)
        let difference = Int128(ticks) * num * scale - Int128(time.value) * den
        return difference.magnitude <= (num * scale).magnitude
    }
}

/// Seconds with milliseconds, for check details: `1.567s`.
func secondsText(_ time: MediaTime) -> String {
    time.isNumeric ? String(format: "%.3fs", time.seconds) : "unknown time"
}

extension MediaTimingScan {
    /// Gives every video packet the reader left without a duration its decode-time step (the next packet's
    /// decode time less its own; the last, its predecessor's), and the frames read from those packets
    /// likewise. For a fragmented MP4 whose fragments state a default duration the reader does not report.
    mutating func fillDurationsFromDecodeTimes() {
        let none = tessera_AV_NOPTS_VALUE()
        for i in packets.indices where packets[i].duration <= 0 {
            if i + 1 < packets.count, packets[i].dts != none, packets[i + 1].dts != none,
                packets[i + 1].dts > packets[i].dts
            {
                let (step, overflow) = packets[i + 1].dts.subtractingReportingOverflow(packets[i].dts)
                if !overflow { packets[i].duration = step }
            } else if i > 0 {
                packets[i].duration = packets[i - 1].duration
            }
        }
        // Frames made from packets without decoding are in the same order.
        guard frames.count == packets.count else { return }
        for i in frames.indices where frames[i].duration <= 0 { frames[i].duration = packets[i].duration }
    }
}
