extension OutputSettings {
    /// Settings derived from a source, as AVOutputSettingsAssistant does: H.264 at the source size with
    /// a level that admits the source's size and frame rate (so 120 fps 1080p gets level 4.2+, not 4.0),
    /// a keyframe about every two seconds, and AAC at a bit rate that suits the channel count.
    public static func recommended(
        for video: VideoFormatDescription?, audio: AudioFormatDescription?
    )
        -> OutputSettings
    {
        var videoSettings: VideoSettings? = nil
        if let video {
            let (w, h) = video.displaySize
            let rate = video.nominalFrameRate > 0 ? video.nominalFrameRate : 30
            videoSettings = VideoSettings(
                codec: .h264, rateControl: .crf(rate > 60 ? 20 : 21), gopLength: max(1, Int((rate * 2).rounded())),
                pixelFormat: .yuv420p, profile: "high",
                level: H264Level.minimum(width: w, height: h, framesPerSecond: rate))
        }
        var audioSettings: AudioSettings? = nil
        if let audio {
            let channels = min(audio.channelCount, 6)
            audioSettings = AudioSettings(
                codec: .aac, bitRate: channels <= 2 ? 64_000 * max(channels, 1) : 384_000,
                sampleRate: audio.sampleRate > 48_000 ? 48_000 : nil,
                channelCount: channels)
        }
        return OutputSettings(video: videoSettings, audio: audioSettings, fileType: .mp4, optimizeForNetworkUse: true)
    }
}

/// H.264 levels (ITU-T H.264 Table A-1): the limits on frame size and macroblock rate.
public enum H264Level {
    /// (level ×10, max macroblocks per second, max frame size in macroblocks)
    static let table: [(Int, Int, Int)] = [
        (30, 40_500, 1_620), (31, 108_000, 3_600), (32, 216_000, 5_120), (40, 245_760, 8_192),
        (41, 245_760, 8_192), (42, 522_240, 8_704), (50, 589_824, 22_080), (51, 983_040, 36_864),
        (52, 2_073_600, 36_864), (60, 4_177_920, 139_264), (61, 8_355_840, 139_264), (62, 16_711_680, 139_264),
    ]

    /// The lowest level that admits this size and rate, ×10 (e.g. 42 for level 4.2).
    public static func minimum(width: Int, height: Int, framesPerSecond: Double) -> Int {
        let mbs = ((width + 15) / 16) * ((height + 15) / 16)
        let mbps = Double(mbs) * framesPerSecond
        return table.first { Double($0.1) >= mbps && $0.2 >= mbs }?.0 ?? 62
    }
}
