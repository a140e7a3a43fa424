import CFFmpeg

/// What kind of data a track carries, as AVFoundation's `AVMediaType`.
public enum MediaType: String, Sendable, Codable {
    case video, audio, subtitle, data, attachment, unknown
}

extension MediaType {
    /// The type libavformat reports for a stream (`AVCodecParameters.codec_type`).
    init(_ type: AVMediaType) {
        switch type {
        case AVMEDIA_TYPE_VIDEO: self = .video
        case AVMEDIA_TYPE_AUDIO: self = .audio
        case AVMEDIA_TYPE_SUBTITLE: self = .subtitle
        case AVMEDIA_TYPE_DATA: self = .data
        case AVMEDIA_TYPE_ATTACHMENT: self = .attachment
        default: self = .unknown
        }
    }
}
