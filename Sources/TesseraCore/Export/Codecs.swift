/// Video codecs Tessera encodes, with the FFmpeg encoder that does it.
public enum VideoCodec: String, Sendable, Hashable, Codable, CaseIterable {
    case h264, hevc, av1, vp9

    /// The libavcodec encoder name.
    public var encoderName: String {
        switch self {
        case .h264: "libx264"
        case .hevc: "libx265"
        case .av1: "libsvtav1"
        case .vp9: "libvpx-vp9"
        }
    }

    /// The encoder's default speed/quality trade-off, in its own vocabulary.
    public var defaultSpeed: String {
        switch self {
        case .h264, .hevc: "medium"
        case .av1: "8"
        case .vp9: "4"
        }
    }
}

/// Audio codecs Tessera encodes.
public enum AudioCodec: String, Sendable, Hashable, Codable, CaseIterable {
    case aac, opus

    public var encoderName: String {
        switch self {
        case .aac: "aac"
        case .opus: "libopus"
        }
    }
}

/// Output container, as AVFileType.
public enum FileType: String, Sendable, Hashable, Codable, CaseIterable {
    case mp4, mov, matroska = "mkv", webm, m4a

    /// The libavformat muxer name.
    public var muxerName: String {
        switch self {
        case .mp4: "mp4"
        case .mov: "mov"
        case .matroska: "matroska"
        case .webm: "webm"
        case .m4a: "ipod"
        }
    }

    /// The file type a path's extension names, if any.
    public static func inferred(fromPath path: String) -> FileType? {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        switch path[path.index(after: dot)...].lowercased() {
        case "mp4", "m4v": return .mp4
        case "mov", "qt": return .mov
        case "mkv": return .matroska
        case "webm": return .webm
        case "m4a": return .m4a
        default: return nil
        }
    }

    public func canHold(_ codec: VideoCodec) -> Bool {
        switch self {
        case .webm: codec == .vp9 || codec == .av1
        case .m4a: false
        case .mov: codec == .h264 || codec == .hevc
        default: true
        }
    }

    public func canHold(_ codec: AudioCodec) -> Bool {
        switch self {
        case .webm: codec == .opus
        case .m4a, .mov: codec == .aac
        default: true
        }
    }

    /// Whether the moov atom can be moved to the front (`optimizeForNetworkUse`).
    public var supportsFastStart: Bool { self == .mp4 || self == .mov || self == .m4a }
}
