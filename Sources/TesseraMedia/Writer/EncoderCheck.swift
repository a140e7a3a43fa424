import CFFmpeg
import TesseraAV
import TesseraCore

/// Opens the encoders a job's settings name, on a small picture and the chosen audio format, and asks
/// the muxer whether it holds their codecs: what a job would refuse after minutes of work is refused
/// before any work starts.
public enum EncoderCheck {
    /// - Throws: `MediaError.invalidArgument` naming the setting an encoder or the container refuses,
    ///   `.unsupported` when an encoder is missing from this FFmpeg build.
    public static func check(_ settings: OutputSettings, fileType: FileType) throws(MediaError) {
        let muxer = av_guess_format(fileType.muxerName, nil, nil)
        if let video = settings.video {
            let format = video.pixelFormat ?? .yuv420p
            guard Encoder.supports(video.codec.encoderName, pixelFormat: format.avFormat) else {
                throw MediaError(.invalidArgument, "\(video.codec.encoderName) cannot encode pixel format \(format)")
            }
            let input = Encoder.VideoInput(
                width: 64, height: 64, pixelFormat: format.avFormat, timeBase: AVRational(num: 1, den: 30),
                frameRate: AVRational(num: 30, den: 1), sampleAspectRatio: AVRational(num: 1, den: 1),
                colorSpace: AVCOL_SPC_BT709, colorPrimaries: AVCOL_PRI_BT709, colorTransfer: AVCOL_TRC_BT709,
                colorRange: AVCOL_RANGE_MPEG, chromaLocation: AVCHROMA_LOC_LEFT)
            do {
                _ = try Encoder(video: video, input: input, globalHeader: false, threads: 1)
            } catch {
                throw MediaError(
                    .invalidArgument,
                    "the video settings do not open \(video.codec.encoderName): "
                        + error.message, code: error.code)
            }
            try requireMuxer(
                muxer, holds: video.codec.encoderName, "\(fileType.rawValue) cannot hold \(video.codec.rawValue) video")
        }
        if let audio = settings.audio {
            do {
                _ = try Encoder(
                    audio: audio, sampleRate: audio.sampleRate ?? 48_000, channels: audio.channelCount ?? 2,
                    globalHeader: false)
            } catch {
                throw MediaError(
                    .invalidArgument,
                    "the audio settings do not open \(audio.codec.encoderName): "
                        + error.message, code: error.code)
            }
            try requireMuxer(
                muxer, holds: audio.codec.encoderName, "\(fileType.rawValue) cannot hold \(audio.codec.rawValue) audio")
        }
    }

    /// libavformat's own answer to whether the muxer stores what the encoder makes.
    private static func requireMuxer(
        _ muxer: UnsafePointer<AVOutputFormat>?, holds encoderName: String,
        _ refusal: String
    ) throws(MediaError) {
        guard let muxer, let codec = avcodec_find_encoder_by_name(encoderName) else { return }
        if avformat_query_codec(muxer, codec.pointee.id, FF_COMPLIANCE_NORMAL) != 1 {
            throw MediaError(.invalidArgument, refusal)
        }
    }
}
