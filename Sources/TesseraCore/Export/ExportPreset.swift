/// The export presets, named as AVAssetExportSession's (`AVAssetExportPreset1280x720` → `1280x720`).
///
/// Sized presets fit the picture into the named box with its aspect ratio kept and never enlarge it.
public enum ExportPreset: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case lowQuality = "LowQuality"
    case mediumQuality = "MediumQuality"
    case highestQuality = "HighestQuality"
    case preset640x480 = "640x480"
    case preset960x540 = "960x540"
    case preset1280x720 = "1280x720"
    case preset1920x1080 = "1920x1080"
    case preset3840x2160 = "3840x2160"
    case hevc1920x1080 = "HEVC1920x1080"
    case hevc3840x2160 = "HEVC3840x2160"
    case hevcHighestQuality = "HEVCHighestQuality"
    case passthrough = "Passthrough"
    case appleM4A = "AppleM4A"

    public var description: String { rawValue }

    /// The settings this preset stands for.
    public var settings: OutputSettings {
        func h264(_ w: Int?, _ h: Int?, crf: Int, audio: Int) -> OutputSettings {
            OutputSettings(
                video: VideoSettings(codec: .h264, maxWidth: w, maxHeight: h, rateControl: .crf(crf)),
                audio: AudioSettings(codec: .aac, bitRate: audio))
        }
        func hevc(_ w: Int?, _ h: Int?, crf: Int) -> OutputSettings {
            OutputSettings(
                video: VideoSettings(codec: .hevc, maxWidth: w, maxHeight: h, rateControl: .crf(crf)),
                audio: AudioSettings(codec: .aac, bitRate: 160_000))
        }
        switch self {
        case .lowQuality: return h264(320, 240, crf: 30, audio: 64_000)
        case .mediumQuality: return h264(480, 360, crf: 26, audio: 96_000)
        case .highestQuality: return h264(nil, nil, crf: 18, audio: 192_000)
        case .preset640x480: return h264(640, 480, crf: 23, audio: 128_000)
        case .preset960x540: return h264(960, 540, crf: 23, audio: 128_000)
        case .preset1280x720: return h264(1280, 720, crf: 23, audio: 128_000)
        case .preset1920x1080: return h264(1920, 1080, crf: 23, audio: 160_000)
        case .preset3840x2160: return h264(3840, 2160, crf: 23, audio: 160_000)
        case .hevc1920x1080: return hevc(1920, 1080, crf: 26)
        case .hevc3840x2160: return hevc(3840, 2160, crf: 26)
        case .hevcHighestQuality: return hevc(nil, nil, crf: 20)
        case .passthrough: return OutputSettings(video: nil, audio: nil, passthrough: true)
        case .appleM4A:
            return OutputSettings(video: nil, audio: AudioSettings(codec: .aac, bitRate: 128_000), fileType: .m4a)
        }
    }

    /// The file types this preset can write, as `supportedFileTypes`.
    public var supportedFileTypes: [FileType] {
        switch self {
        case .appleM4A: [.m4a]
        case .passthrough: [.mp4, .mov, .matroska, .webm]
        case .hevc1920x1080, .hevc3840x2160, .hevcHighestQuality: [.mp4, .mov, .matroska]
        default: [.mp4, .mov, .matroska]
        }
    }

    /// A preset named as the user typed it: `1280x720`, `AVAssetExportPreset1280x720`, `hevc1920x1080`.
    public init?(name: String) {
        let bare = name.hasPrefix("AVAssetExportPreset") ? String(name.dropFirst(19)) : name
        guard let hit = Self.allCases.first(where: { $0.rawValue.lowercased() == bare.lowercased() }) else {
            return nil
        }
        self = hit
    }
}
