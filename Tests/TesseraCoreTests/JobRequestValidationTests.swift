import Foundation
import TesseraCore
import Testing

/// Every field of a job request is checked against stated bounds before any work, and a refusal names
/// the field. Values that trapped a coordinator or worker (Double → Int64, Int → Int32) are among them.
@Suite struct JobRequestValidationTests {
    static func video(_ change: (inout VideoSettings) -> Void) -> JobRequest {
        var v = VideoSettings(
            codec: .h264, maxWidth: 1280, maxHeight: 720, rateControl: .crf(23), speed: "veryfast",
            gopLength: 60, profile: "high", level: 41)
        change(&v)
        return JobRequest(source: "/m/a.mp4", settings: OutputSettings(video: v, audio: AudioSettings(codec: .aac)))
    }

    static func audio(_ change: (inout AudioSettings) -> Void) -> JobRequest {
        var a = AudioSettings(codec: .aac, bitRate: 128_000, sampleRate: 48_000, channelCount: 2)
        change(&a)
        return JobRequest(source: "/m/a.mp4", settings: OutputSettings(video: VideoSettings(codec: .h264), audio: a))
    }

    static let refused: [(JobRequest, String)] = [
        (JobRequest(source: "/m/a.mp4", segmentDuration: 1e308), "segmentDuration"),
        (JobRequest(source: "/m/a.mp4", segmentDuration: .infinity), "segmentDuration"),
        (JobRequest(source: "/m/a.mp4", segmentDuration: .nan), "segmentDuration"),
        (JobRequest(source: "/m/a.mp4", segmentDuration: 0), "segmentDuration"),
        (JobRequest(source: "/m/a.mp4", segmentDuration: -4), "segmentDuration"),
        (JobRequest(source: "/m/a.mp4", parallelism: 0), "parallelism"),
        (JobRequest(source: "/m/a.mp4", priority: Int.max), "priority"),
        (JobRequest(source: "/m/a.mp4", preset: "gpu-magic"), "preset"),
        (JobRequest(source: "/m/a.mp4", output: "."), "output"),
        (JobRequest(source: "/m/a.mp4", output: "sub/.."), "output"),
        (JobRequest(source: "/m/a.mp4", output: "a/../../b.mp4"), "output"),
        (JobRequest(source: "/m/a.mp4", output: "shows/"), "output"),
        (JobRequest(source: "/m/a.mp4", output: String(repeating: "n", count: 300) + ".mp4"), "output"),
        (
            JobRequest(
                source: "/m/a.mp4",
                timeRange: TimeRange(
                    start: MediaTime(value: -1, timescale: 1),
                    duration: MediaTime(value: 1, timescale: 1))),
            "timeRange"
        ),
        (
            JobRequest(
                source: "/m/a.mp4",
                timeRange: TimeRange(
                    start: MediaTime(value: .max, timescale: 1),
                    duration: MediaTime(value: 1, timescale: 1))),
            "timeRange"
        ),
        (video { $0.gopLength = 1 << 31 }, "settings.video.gopLength"),
        (video { $0.gopLength = (1 << 32) - 1 }, "settings.video.gopLength"),
        (video { $0.gopLength = 0 }, "settings.video.gopLength"),
        (video { $0.level = 1 << 31 }, "settings.video.level"),
        (video { $0.level = (1 << 32) - 1 }, "settings.video.level"),
        (video { $0.level = 43 }, "settings.video.level"),
        (video { $0.rateControl = .crf(1000) }, "settings.video.rateControl.crf"),
        (video { $0.rateControl = .crf(-1) }, "settings.video.rateControl.crf"),
        (video { $0.rateControl = .bitRate(1) }, "settings.video.rateControl.bitRate"),
        (video { $0.speed = "ludicrous" }, "settings.video.speed"),
        (video { $0.profile = "extreme" }, "settings.video.profile"),
        (video { $0.maxWidth = 1 << 40 }, "settings.video.maxWidth"),
        (video { $0.maxHeight = nil }, "settings.video.maxHeight"),
        (
            video {
                $0.codec = .vp9
                $0.speed = "4"
                $0.profile = nil
            }, "settings.video.level"
        ),
        (audio { $0.sampleRate = 1 }, "settings.audio.sampleRate"),
        (audio { $0.channelCount = 100 }, "settings.audio.channelCount"),
        (audio { $0.bitRate = 0 }, "settings.audio.bitRate"),
        (
            JobRequest(
                source: "/m/a.mp4",
                settings: OutputSettings(
                    video: VideoSettings(codec: .h264), audio: nil,
                    fileType: .m4a)), "settings.fileType"
        ),
        (JobRequest(source: "/m/a.mp4", retiming: RetimeRequest(scale: ["1s-2s"])), "retiming.scale[0]"),
        (JobRequest(source: "/m/a.mp4", retiming: RetimeRequest(ramp: ["1s-2s:1-0"])), "retiming.ramp"),
        (
            JobRequest(source: "/m/a.mp4", retiming: RetimeRequest(scale: ["1s-2s:4s", "x"])),
            "retiming.scale[1]"
        ),
        (JobRequest(source: "/m/a.mp4", retiming: RetimeRequest(frameRate: "0")), "retiming.frameRate"),
        (JobRequest(source: "/m/a.mp4", retiming: RetimeRequest(frameRate: "5000")), "retiming.frameRate"),
        (
            JobRequest(source: "/m/a.mp4", retiming: RetimeRequest(frameRate: "30", frameDuration: "1/30")),
            "retiming.frameRate"
        ),
        (JobRequest(source: "/m/a.mp4", retiming: RetimeRequest(frameDuration: "-1")), "retiming.frameDuration"),
        (
            JobRequest(source: "/m/a.mp4", retiming: RetimeRequest(freeze: Array(repeating: "1s:1s", count: 300))),
            "retiming.freeze"
        ),
        (JobRequest(source: "/m/a.mp4", output: "a\nb.mp4"), "output"),
        (JobRequest(source: "/m/a.mp4", output: "a\u{1b}[2Jb.mp4"), "output"),
        (
            JobRequest(source: "/m/a.mp4", preset: "Passthrough", retiming: RetimeRequest(scale: ["1s-2s:4s"])),
            "retiming"
        ),
        (
            JobRequest(source: "/m/a.mp4", targetQuality: TargetQuality(metric: .ssim, value: 1.2)),
            "targetQuality.value"
        ),
        (
            JobRequest(source: "/m/a.mp4", targetQuality: TargetQuality(metric: .ssim, value: .nan)),
            "targetQuality.value"
        ),
        (JobRequest(source: "/m/a.mp4", targetQuality: TargetQuality(metric: .psnr, value: 5)), "targetQuality.value"),
        (
            JobRequest(source: "/m/a.mp4", targetQuality: TargetQuality(metric: .psnr, value: 101)),
            "targetQuality.value"
        ),
        (
            JobRequest(
                source: "/m/a.mp4", preset: "Passthrough", targetQuality: TargetQuality(metric: .psnr, value: 40)),
            "targetQuality"
        ),
        (
            JobRequest(
                source: "/m/a.mp4", targetQuality: TargetQuality(metric: .psnr, value: 40, crfRange: 10...70)),
            "targetQuality.crfRange"
        ),
        (
            JobRequest(
                source: "/m/a.mp4", targetQuality: TargetQuality(metric: .psnr, value: 40, maxBitRate: 0)),
            "targetQuality.maxBitRate"
        ),
        (
            {
                var r = video { $0.rateControl = .bitRate(3_000_000) }
                r.targetQuality = TargetQuality(metric: .ssim, value: 0.97)
                return r
            }(), "targetQuality"
        ),
    ]

    @Test(arguments: refused)
    func refusesNamingTheField(request: JobRequest, field: String) {
        #expect {
            try request.validate()
        } throws: { error in
            (error as? JobRequestError)?.field == field
        }
    }

    @Test(arguments: [
        JobRequest(source: "/m/a.mp4"),
        JobRequest(
            uploadID: "u-1", output: "shows/s01/ep1.mkv", preset: "1280x720", segmentDuration: 0.5,
            parallelism: 8, priority: -5),
        video { _ in },
        video {
            $0.codec = .hevc
            $0.profile = "main10"
            $0.level = 51
            $0.speed = "fast"
        },
        video {
            $0.codec = .av1
            $0.profile = nil
            $0.level = nil
            $0.speed = "8"
            $0.rateControl = .crf(63)
        },
        audio {
            $0.sampleRate = 44_100
            $0.channelCount = 6
        },
    ])
    func acceptsWhatIsInBounds(request: JobRequest) throws {
        try request.validate()
    }

    /// The refusal's message quotes a hostile value bounded and with control characters escaped.
    @Test func messagesQuoteValuesSafely() {
        let preset = String(repeating: "x", count: 10_000) + "\nFAKE LOG LINE"
        #expect {
            try JobRequest(source: "/m/a.mp4", preset: preset).validate()
        } throws: { error in
            let text = "\(error)"
            return text.count < 300 && !text.contains("\n")
        }
        #expect(JobRequestError.quoted("a\nb") == "'a\\u{a}b'")
        #expect("abcdef".logSafe(limit: 3) == "abc…(6 bytes)")
        #expect("a\u{1b}[2Jb\u{2028}".logSafe() == "a\\u{1b}[2Jb\\u{2028}")
        #expect(String(repeating: "é", count: 1_000_000).logSafe(limit: 2) == "éé…(2000000 bytes)")
    }

    /// 257 `--freeze` flags are refused naming `--freeze`, the flag that holds them, not `--scale`.
    @Test func tooManyEditsNameTheFlagThatHoldsThem() {
        #expect {
            _ = try RetimeRequest(freeze: (0..<257).map { "\($0)s:1s" }).retiming(naming: .flags)
        } throws: { error in
            let error = error as? JobRequestError
            return error?.field == "--freeze" && error?.message.contains("257 edits") == true
        }
    }

    /// A ramp's signs stay with their numbers: `-1-1` is from -1 (refused: speeds are positive), not 1 → 1;
    /// `1-0.25` still reads as 1 → 1/4.
    @Test func aRampsSignIsNotDropped() throws {
        #expect {
            _ = try RetimeRequest(ramp: ["0s-1s:-1-1"]).retiming(naming: .flags)
        } throws: { error in (error as? JobRequestError)?.field.hasPrefix("--ramp") == true }
        #expect(throws: JobRequestError.self) { _ = try RetimeEdit.ramp(parsing: "0s-1s:1--") }
        #expect(
            try RetimeEdit.ramp(parsing: "4s-6s:1-0.25")
                == .ramp(
                    TimeRange(start: MediaTime(value: 4, timescale: 1), duration: MediaTime(value: 2, timescale: 1)),
                    from: Rational(1), to: Rational(1, 4)))
    }

    /// Twenty stacked LinearTimeWarps of 0.04 multiply to a speed far under 1/32: refused naming the effect
    /// that crossed the bound, not with a range of 28-digit denominators.
    @Test func stackedTimeWarpsAreHeldToTheSpeedBounds() throws {
        let warp: [String: Any] = ["OTIO_SCHEMA": "LinearTimeWarp.1", "time_scalar": 0.04]
        let time = { (v: Double) -> [String: Any] in ["OTIO_SCHEMA": "RationalTime.1", "value": v, "rate": 24.0] }
        let clip: [String: Any] = [
            "OTIO_SCHEMA": "Clip.2", "effects": Array(repeating: warp, count: 20),
            "source_range": ["OTIO_SCHEMA": "TimeRange.1", "start_time": time(0), "duration": time(48)],
            "media_reference": ["OTIO_SCHEMA": "ExternalReference.1", "target_url": "/m/a.mp4"],
        ]
        let timeline: [String: Any] = [
            "OTIO_SCHEMA": "Timeline.1",
            "tracks": [
                "OTIO_SCHEMA": "Stack.1",
                "children": [["OTIO_SCHEMA": "Track.1", "kind": "Video", "children": [clip]]],
            ],
        ]
        let data = try JSONSerialization.data(withJSONObject: timeline)
        #expect {
            _ = try CompositionSpec(otio: data)
        } throws: { error in
            let error = error as? JobRequestError
            return error?.field == "otio.tracks[0].children[0].effects[1].time_scalar"
                && error?.message.contains("1/32") == true && error?.message.contains("/909") == false
        }
    }

    /// A composition's segments must fit a worker: 8192×8192 in 30-frame segments (9 GB measured) is
    /// refused, 1080p in 4 s at 60 fps is not, and the estimate stops growing past 64 frames in flight.
    @Test func aRenderMustFitAWorker() {
        #expect(throws: JobRequestError.self) {
            try SegmentLayer.checkMemory(width: 8192, height: 8192, frames: 30, field: "renderSize")
        }
        #expect(throws: Never.self) { try SegmentLayer.checkMemory(width: 1920, height: 1080, frames: 240, field: "r") }
        #expect(
            SegmentLayer.memoryEstimate(width: 3840, height: 2160, frames: 64)
                == SegmentLayer.memoryEstimate(width: 3840, height: 2160, frames: 6000))
        #expect(SegmentLayer.memoryEstimate(width: Int.max, height: Int.max, frames: Int.max) > 0, "saturates, no trap")
    }

    /// `backend` is a closed set: "gpu" is a decoding error naming the field, not a silent default.
    @Test func aTargetQualityIsReadAsWrittenAndItsMetricIsAClosedSet() throws {
        let good = try JSONDecoder().decode(
            JobRequest.self,
            from: Data(#"{"source":"/a","targetQuality":{"metric":"ssim","value":0.97,"crfRange":[18,40]}}"#.utf8))
        #expect(good.targetQuality == TargetQuality(metric: .ssim, value: 0.97, crfRange: 18...40))
        try good.validate()
        for bad in [
            #"{"source":"/a","targetQuality":{"metric":"vmaf","value":93}}"#,
            #"{"source":"/a","targetQuality":{"metric":"ssim","value":0.97,"crfRange":[40,18]}}"#,
            #"{"source":"/a","targetQuality":{"metric":"ssim"}}"#,
        ] {
            #expect(throws: DecodingError.self, "\(bad)") {
                try JSONDecoder().decode(JobRequest.self, from: Data(bad.utf8))
            }
        }
        #expect(TargetQuality(parsing: "SSIM:0.97") == TargetQuality(metric: .ssim, value: 0.97))
        #expect(TargetQuality(parsing: "psnr:40")?.description == "psnr:40")
        for text in ["vmaf:93", "ssim", "ssim:", "ssim:high", "psnr:40:1"] {
            #expect(TargetQuality(parsing: text) == nil)
        }
    }

    @Test func backendIsAClosedSet() throws {
        let good = try JSONDecoder().decode(JobRequest.self, from: Data(#"{"source":"/a","backend":"vulkan"}"#.utf8))
        #expect(good.backend == .vulkan)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(JobRequest.self, from: Data(#"{"source":"/a","backend":"gpu"}"#.utf8))
        }
    }
}
