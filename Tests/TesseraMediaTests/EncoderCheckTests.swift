import TesseraAV
import TesseraCore
import TesseraMedia
import Testing

/// `EncoderCheck` opens the real encoders with a job's settings, so settings an encoder or container
/// refuses are refused before any work; values out of a C field's range throw instead of trapping.
@Suite struct EncoderCheckTests {
    static func h264(_ change: (inout VideoSettings) -> Void) -> OutputSettings {
        var v = VideoSettings(codec: .h264, rateControl: .crf(23), speed: "superfast")
        change(&v)
        return OutputSettings(video: v, audio: AudioSettings(codec: .aac))
    }

    @Test func openableSettingsPass() throws {
        try EncoderCheck.check(Self.h264 { _ in }, fileType: .mp4)
        try EncoderCheck.check(
            Self.h264 {
                $0.profile = "high"
                $0.level = 41
                $0.gopLength = 48
            }, fileType: .matroska)
        try EncoderCheck.check(
            OutputSettings(
                video: VideoSettings(codec: .vp9, speed: "8"),
                audio: AudioSettings(codec: .opus, bitRate: 96_000)), fileType: .webm)
    }

    @Test(arguments: [
        // Past Int32: these trapped every worker that received such a segment.
        Self.h264 { $0.gopLength = 1 << 31 },
        Self.h264 { $0.level = (1 << 32) - 1 },
        Self.h264 { $0.speed = "ludicrous" },
        Self.h264 { $0.profile = "extreme" },
        Self.h264 {
            $0.profile = "baseline"
            $0.pixelFormat = .yuv422p
        },
        OutputSettings(video: VideoSettings(codec: .h264), audio: AudioSettings(codec: .aac, sampleRate: 1)),
        OutputSettings(video: VideoSettings(codec: .h264), audio: AudioSettings(codec: .aac, channelCount: 100)),
        OutputSettings(video: VideoSettings(codec: .h264), audio: AudioSettings(codec: .aac, sampleRate: 1 << 33)),
    ])
    func refusedSettingsThrow(settings: OutputSettings) {
        #expect(throws: MediaError.self) { try EncoderCheck.check(settings, fileType: .mp4) }
    }

    @Test func aContainerThatCannotHoldTheCodecIsRefused() {
        #expect(throws: MediaError.self) { try EncoderCheck.check(Self.h264 { _ in }, fileType: .webm) }
    }
}
