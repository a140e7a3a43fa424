import Testing

@testable import TesseraCore

@Suite struct ExportPresetTests {
    @Test(arguments: [
        (ExportPreset.preset1280x720, 1920, 1080, 1280, 720),
        (.preset1280x720, 1080, 1920, 404, 720),  // portrait fits by height
        (.preset640x480, 1920, 1080, 640, 360),
        (.preset1920x1080, 1280, 720, 1280, 720),  // never enlarged
        (.preset1280x720, 1918, 1078, 1280, 718),  // odd source: even output
        (.highestQuality, 1918, 1078, 1918, 1078),
    ])
    func sizedPresetsFitTheBox(preset: ExportPreset, w: Int, h: Int, ew: Int, eh: Int) throws {
        let video = try #require(preset.settings.video)
        let size = video.outputSize(forDisplayWidth: w, height: h)
        #expect(size.width == ew && size.height == eh)
    }

    @Test func presetNamesParseInAVFoundationSpelling() {
        #expect(ExportPreset(name: "AVAssetExportPreset1280x720") == .preset1280x720)
        #expect(ExportPreset(name: "hevc1920x1080") == .hevc1920x1080)
        #expect(ExportPreset(name: "Passthrough")?.settings.passthrough == true)
        #expect(ExportPreset(name: "1280x721") == nil)
    }

    @Test func recommendedSettingsRaiseTheH264LevelForHighFrameRates() {
        let tick = MediaTime(value: 1, timescale: 30)
        var source = VideoFormatDescription(
            codec: "h264", width: 1920, height: 1080, pixelFormat: .yuv420p,
            nominalFrameDuration: tick, averageFrameDuration: tick,
            minFrameDuration: tick)
        #expect(OutputSettings.recommended(for: source, audio: nil).video?.level == 40)
        let fast = MediaTime(value: 1, timescale: 120)
        source.nominalFrameDuration = fast
        #expect(OutputSettings.recommended(for: source, audio: nil).video?.level == 51)
        #expect(H264Level.minimum(width: 3840, height: 2160, framesPerSecond: 60) == 52)
    }
}
