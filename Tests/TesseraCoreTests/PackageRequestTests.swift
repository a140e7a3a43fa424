import Foundation
import Testing

@testable import TesseraCore

/// The package request, its ladder and checks, and the manifests' text (no media needed).
struct PackageRequestTests {
    @Test func renditionsParseAsUsersWriteThem() throws {
        let r = try Rendition(parsing: "1280x720:3M", field: "--rendition")
        #expect(r == Rendition(width: 1280, height: 720, bitRate: 3_000_000, codec: .h264))
        #expect(try Rendition(parsing: "640x360:800k:HEVC", field: "f").codec == .hevc)
        #expect(r.maxBitRate == 4_500_000)
        for bad in ["1280x720", "1280x720:fast", "1280:3M", "1280x720:3M:mpeg2", "x:3M", "1280x720:1e300M"] {
            #expect(throws: JobRequestError.self, "\(bad)") { try Rendition(parsing: bad, field: "f") }
        }
        #expect(MediaText.bitRate("1e300M") == nil && MediaText.bitRate("-5k") == nil)
        #expect(try PackageFormat.list("dash,HLS,dash", field: "f") == [.dash, .hls])
        #expect(throws: JobRequestError.self) { try PackageFormat.list("hls,", field: "f") }
    }

    @Test func theJSONFormIsTheIssues() throws {
        let json = """
            {"formats": ["hls", "dash"], "renditions": [{"size": "1280x720", "bitRate": 3000000}], "segmentDuration": 6}
            """
        let request = try JSONDecoder().decode(PackageRequest.self, from: Data(json.utf8))
        #expect(request.formats == [.hls, .dash] && request.segmentDuration == 6 && !request.ladder)
        #expect(request.renditions == [Rendition(width: 1280, height: 720, bitRate: 3_000_000)])
        let back = try JSONDecoder().decode(PackageRequest.self, from: JSONEncoder().encode(request))
        #expect(back == request)
        let ladder = try JSONDecoder().decode(
            PackageRequest.self, from: Data(#"{"formats": ["hls"], "ladder": "auto"}"#.utf8))
        #expect(ladder.ladder && ladder.segmentDuration == 6)
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(PackageRequest.self, from: Data(#"{"formats": ["hls"], "ladder": "big"}"#.utf8))
        }
        let job = try JSONDecoder().decode(
            JobRequest.self,
            from: Data(#"{"source": "a.mp4", "package": {"formats": ["dash"], "ladder": "auto"}}"#.utf8))
        #expect(job.package?.formats == [.dash])
    }

    @Test func everyRuleIsCheckedBeforeAnyWork() {
        func refusal(_ r: PackageRequest) -> String? {
            do throws(JobRequestError) {
                try r.check(field: "package")
                return nil
            } catch { return error.field }
        }
        let one = [Rendition(width: 640, height: 360, bitRate: 800_000)]
        #expect(refusal(PackageRequest(formats: [.hls], renditions: one)) == nil)
        #expect(refusal(PackageRequest(formats: [], renditions: one)) == "package.formats")
        #expect(
            refusal(PackageRequest(formats: [.hls], renditions: one, segmentDuration: 0.9)) == "package.segmentDuration"
        )
        #expect(
            refusal(PackageRequest(formats: [.hls], renditions: one, segmentDuration: 31)) == "package.segmentDuration")
        #expect(refusal(PackageRequest(formats: [.hls], renditions: [])) == "package.renditions")
        #expect(
            refusal(PackageRequest(formats: [.hls], renditions: Array(repeating: one[0], count: 17)))
                == "package.renditions")
        let vp9 = [Rendition(width: 640, height: 360, bitRate: 800_000, codec: .vp9)]
        #expect(refusal(PackageRequest(formats: [.hls], renditions: vp9)) == "package.renditions[0].codec")
        #expect(refusal(PackageRequest(formats: [.dash], renditions: vp9)) == nil)
        let av1 = [Rendition(width: 640, height: 360, bitRate: 800_000, codec: .av1)]
        #expect(refusal(PackageRequest(formats: [.dash], renditions: av1)) == nil)
        #expect(
            refusal(PackageRequest(formats: [.hls], renditions: [.init(width: 640, height: 360, bitRate: 1)]))
                == "package.renditions[0].bitRate")
    }

    @Test func theLadderIsApplesCappedAtTheSourceAndSizesNeverGrow() throws {
        let auto = PackageRequest(formats: [.hls], renditions: [], ladder: true)
        let hd = try auto.resolved(sourceWidth: 1280, sourceHeight: 720, field: "p").map { "\($0.width)x\($0.height)" }
        #expect(hd == ["1280x720", "960x540", "768x432", "640x360", "416x234"])
        // A portrait phone clip gets portrait boxes.
        let portrait = try auto.resolved(sourceWidth: 1080, sourceHeight: 1920, field: "p")
        #expect(portrait.first.map { "\($0.width)x\($0.height)" } == "1080x1920")
        // A tiny source gets the smallest rung fitted to it.
        #expect(try auto.resolved(sourceWidth: 320, sourceHeight: 180, field: "p").map(\.width) == [320])
        let bigger = PackageRequest(formats: [.hls], renditions: [.init(width: 1920, height: 1080, bitRate: 5_000_000)])
        #expect(throws: JobRequestError.self) { try bigger.resolved(sourceWidth: 1280, sourceHeight: 720, field: "p") }
        let same = PackageRequest(
            formats: [.hls],
            renditions: [
                .init(width: 640, height: 360, bitRate: 1_000_000), .init(width: 640, height: 480, bitRate: 2_000_000),
            ])
        #expect(throws: JobRequestError.self) { try same.resolved(sourceWidth: 1280, sourceHeight: 720, field: "p") }
    }

    static func track(_ name: String, video: Bool, durations: [Int64], bytes: [Int]) -> PackagedTrack {
        var start: Int64 = 0
        var segments: [PackagedTrack.Segment] = []
        for (d, b) in zip(durations, bytes) {
            segments.append(.init(start: start, duration: d, bytes: b, keyframeBytes: video ? b / 4 : nil))
            start += d
        }
        return PackagedTrack(
            name: name,
            kind: video
                ? .video(width: 1280, height: 720, frameRate: Rational(30000, 1001))
                : .audio(language: "eng", title: nil, channels: 2, sampleRate: 48_000),
            codecs: video ? "avc1.64001f" : "mp4a.40.2", timescale: video ? 30000 : 48000, segments: segments)
    }

    @Test func playlistsDeclareMeasuredRatesAndExactDurations() {
        // 6.006 s, 6.006 s, 2.5 s at 30000/1001; the second segment twice the bytes of the first.
        let v = Self.track(
            "720p", video: true, durations: [180_180, 180_180, 75_000], bytes: [750_750, 1_501_500, 312_500])
        let a = Self.track(
            "audio0", video: false, durations: [288_768, 288_768, 120_000], bytes: [96_000, 96_000, 40_000])
        let media = HLSPlaylists.media(v)
        #expect(media.contains("#EXT-X-TARGETDURATION:6\n") && media.contains("#EXTINF:6.006000,\nseg_00002.m4s"))
        #expect(media.hasSuffix("#EXT-X-ENDLIST\n") && media.contains("#EXT-X-MAP:URI=\"init.mp4\""))
        let master = HLSPlaylists.master(video: [v], audio: [a])
        // Peak: segment 2, (1,501,500 + 96,000) bytes over 6.006 s; average: all bytes over 14.512 s.
        let peak = Int((Double(1_501_500 + 96_000) * 8 / 6.006).rounded(.up))
        #expect(master.contains("BANDWIDTH=\(peak),"), "\(master)")
        #expect(master.contains("CODECS=\"avc1.64001f,mp4a.40.2\",RESOLUTION=1280x720,FRAME-RATE=29.970"))
        // The file's ISO 639-2 "eng" is named as RFC 5646 asks: "en".
        #expect(master.contains("LANGUAGE=\"en\"") && master.contains("#EXT-X-I-FRAME-STREAM-INF:"))
        let mpd = DASHManifest.render(video: [v], audio: [a])
        #expect(mpd.contains("<S t=\"0\" d=\"180180\" r=\"1\"/>") && mpd.contains("<S d=\"75000\"/>"))
        #expect(mpd.contains("mediaPresentationDuration=\"PT14.512S\"") && mpd.contains("frameRate=\"30000/1001\""))
        #expect(DASHManifest.escaped("a\"<b>&'") == "a&quot;&lt;b&gt;&amp;&#39;")
    }

    @Test(arguments: [
        ("eng", "en"), ("fra", "fr"), ("FRE", "fr"), ("ger", "de"), ("deu", "de"), ("chi", "zh"), ("und", "und"),
        ("yue", "yue"), ("en", "en"),
    ])
    func languagesAreNamedInTheirShortestForm(code: String, tag: String) {
        #expect(LanguageTag.bcp47(code) == tag)
    }

    @Test func codecStringsComeFromTheInitSegmentsBoxes() {
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let size = UInt32(8 + body.count)
            return [UInt8(size >> 24), UInt8(size >> 16 & 0xff), UInt8(size >> 8 & 0xff), UInt8(size & 0xff)]
                + Array(type.utf8) + body
        }
        #expect(CodecString.of(initSegment: box("avcC", [1, 0x64, 0x00, 0x1f, 0xff])) == "avc1.64001f")
        // HEVC Main, compat flags 0x60000000, level 93, constraint 0xB0.
        let hvcC: [UInt8] = [1, 0x01, 0x60, 0, 0, 0, 0xB0, 0, 0, 0, 0, 0, 93]
        #expect(CodecString.of(initSegment: box("hvc1", []) + box("hvcC", hvcC)) == "hvc1.1.6.L93.B0")
        #expect(CodecString.of(initSegment: box("av1C", [0x81, 0x08, 0x0c])) == "av01.0.08M.08")
        // esds: ES descriptor, decoder config (AAC, 0x40), AudioSpecificConfig of AAC-LC (object type 2).
        let esds: [UInt8] = [
            0, 0, 0, 0, 0x03, 25, 0, 1, 0, 0x04, 17, 0x40, 0x15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x05, 2, 0x11, 0x90,
        ]
        #expect(CodecString.of(initSegment: box("esds", esds)) == "mp4a.40.2")
        #expect(CodecString.of(initSegment: box("dOps", [0])) == "opus")
        #expect(CodecString.of(initSegment: box("free", [1, 2, 3])) == nil)
    }
}
