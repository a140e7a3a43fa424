import CFFmpeg
import TesseraCore

/// Properties of a demuxed stream that several stages need, read once from libavformat.
struct StreamDescription {
    let stream: UnsafeMutablePointer<AVStream>

    var parameters: AVCodecParameters { stream.pointee.codecpar.pointee }
    var timeBase: AVRational { stream.pointee.time_base }

    /// The preferred transform (clockwise; see `AssetTrack.rotation(_:)`).
    var rotation: Rotation { AssetTrack.rotation(stream) }

    /// The nominal frame rate (`nominalFrameRate(of:)`), else 30/1 where an encoder needs one.
    var frameRate: AVRational { Self.nominalFrameRate(of: stream) ?? AVRational(num: 30, den: 1) }

    /// The one rule for a video stream's nominal frame rate, which the probe reports, a retime's output
    /// takes by default, the checks before a job and the encoders use: libavformat's own guess
    /// (`av_guess_frame_rate`: the declared base rate, or the average where the base rate is a timestamp
    /// grid far above it, as in variable-rate phone recordings), when it is at most 1000 fps; else the
    /// average rate; nil when the stream states neither.
    static func nominalFrameRate(of stream: UnsafeMutablePointer<AVStream>) -> AVRational? {
        let guessed = av_guess_frame_rate(nil, stream, nil)
        if guessed.num > 0 && guessed.den > 0 && guessed.num / guessed.den <= 1000 { return guessed }
        let average = stream.pointee.avg_frame_rate
        return average.num > 0 && average.den > 0 ? average : nil
    }

    /// The stream's own duration in seconds, when the container states it.
    var durationSeconds: Double? {
        let d = stream.pointee.duration
        guard d != tessera_AV_NOPTS_VALUE(), d > 0 else { return nil }
        return Double(d) * Double(timeBase.num) / Double(timeBase.den)
    }

    /// The picture's size as shown: width and height swapped for a quarter turn.
    var displaySize: (width: Int, height: Int) {
        let p = parameters
        return rotation.swapsDimensions ? (Int(p.height), Int(p.width)) : (Int(p.width), Int(p.height))
    }

    /// The track's title, if it has one.
    var title: String? {
        guard let e = av_dict_get(stream.pointee.metadata, "title", nil, 0) else { return nil }
        let value = String(cString: e.pointee.value)
        return value.isEmpty ? nil : value
    }

    var language: String? {
        guard let e = av_dict_get(stream.pointee.metadata, "language", nil, 0) else { return nil }
        let value = String(cString: e.pointee.value)
        return value == "und" ? nil : value
    }
}
