import CFFmpeg
import TesseraCore

/// Properties of a demuxed stream that several stages need, read once from libavformat.
struct StreamDescription {
    let stream: UnsafeMutablePointer<AVStream>

    var parameters: AVCodecParameters { stream.pointee.codecpar.pointee }
    var timeBase: AVRational { stream.pointee.time_base }

    /// The preferred transform (clockwise; see `AssetTrack.rotation(_:)`).
    var rotation: Rotation { AssetTrack.rotation(stream) }

    /// The declared frame rate (`r_frame_rate`), else the average, else 30/1.
    var frameRate: AVRational {
        let r = stream.pointee.r_frame_rate, a = stream.pointee.avg_frame_rate
        if r.num > 0 && r.den > 0 && r.num / r.den <= 1000 { return r }
        if a.num > 0 && a.den > 0 { return a }
        return AVRational(num: 30, den: 1)
    }

    /// The stream's own duration in seconds, when the container states it.
    var durationSeconds: Double? {
        let d = stream.pointee.duration
        guard d != tessera_AV_NOPTS_VALUE(), d > 0 else { return nil }
        return Double(d) * Double(timeBase.num) / Double(timeBase.den)
    }

    var language: String? {
        guard let e = av_dict_get(stream.pointee.metadata, "language", nil, 0) else { return nil }
        let value = String(cString: e.pointee.value)
        return value == "und" ? nil : value
    }
}
