import TesseraAV
import TesseraCore
import Testing

@testable import TesseraMedia

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

/// x265's HDR10 parameters from a source's metadata: SMPTE ST 2086's units and order, and values from a
/// file that are out of range (or not numbers) bounded rather than trapped on.
@Suite struct X265HDRParameterTests {
    @Test func masteringDisplayAndLightLevelsInX265sUnits() {
        let hdr = HDRMetadata(
            masteringDisplay: .init(
                primaries: [[0.68, 0.32], [0.265, 0.69], [0.15, 0.06]], whitePoint: [0.3127, 0.329],
                minLuminance: 0.0001, maxLuminance: 1000),
            maxContentLightLevel: 1000, maxFrameAverageLightLevel: 400)
        #expect(
            TesseraMedia.Encoder.x265HDR(hdr) == [
                "master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1)",
                "max-cll=1000,400",
            ])
    }

    @Test func hostileValuesAreBoundedNotTrappedOn() {
        let hdr = HDRMetadata(
            masteringDisplay: .init(
                primaries: [[.nan, -1], [2, .infinity], [0.15, 0.06]], whitePoint: [0.3127, 0.329],
                minLuminance: -.infinity, maxLuminance: 1e300),
            maxContentLightLevel: Int.max, maxFrameAverageLightLevel: -5)
        #expect(
            TesseraMedia.Encoder.x265HDR(hdr) == [
                "master-display=G(50000,0)B(7500,3000)R(0,0)WP(15635,16450)L(1000000000,0)", "max-cll=65535,0",
            ])
        #expect(TesseraMedia.Encoder.x265HDR(HDRMetadata()).isEmpty)
    }
}
