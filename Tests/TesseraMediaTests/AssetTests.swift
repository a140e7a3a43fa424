import Foundation
import TesseraAV
import TesseraCore
import TesseraMedia
import TesseraTestSupport
import Testing

/// `Asset.load` against media made with the ffmpeg CLI, checked independently with ffprobe.
@Suite struct AssetTests {
    // MARK: ffprobe helpers

    /// ffprobe's packets of one stream: pts, dts, byte position and keyframe flag.
    struct ProbedPacket: Equatable {
        let pts: Int64?
        let dts: Int64?
        let pos: Int64
        let isKey: Bool
    }

    static func packets(_ url: URL, stream: String = "v:0") throws -> [ProbedPacket] {
        let text = try TestMedia.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", stream, "-show_entries",
                "packet=pts,dts,pos,flags", "-of", "csv=p=0", url.path,
            ])
        return text.split(separator: "\n").map { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return ProbedPacket(pts: Int64(f[0]), dts: Int64(f[1]), pos: Int64(f[2]) ?? -1, isKey: f[3].contains("K"))
        }
    }

    /// Presentation times (seconds) of the video frames as ffprobe decodes them; only key frames when asked.
    ///
    /// ffprobe ends a frame's CSV line with a comma when side data follows (x264's SEI on the first frame),
    /// so only the first field is read.
    static func frameTimes(_ url: URL, keyOnly: Bool) throws -> [Double] {
        let text = try TestMedia.run(
            "ffprobe",
            ["-v", "error", "-select_streams", "v:0"]
                + (keyOnly ? ["-skip_frame", "nokey"] : [])
                + ["-show_entries", "frame=pts_time", "-of", "csv=p=0", url.path])
        return text.split(separator: "\n").compactMap { line in
            line.split(separator: ",").first.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        }
    }

    static func double(_ value: Any?) -> Double? { (value as? String).flatMap(Double.init) }
    static func int(_ value: Any?) -> Int? { (value as? Int) ?? (value as? String).flatMap { Int($0) } }

    /// `time` equals `value / timescale` exactly (any common factor allowed).
    static func equal(_ time: MediaTime, _ value: Int64, _ timescale: Int64) -> Bool {
        time.isNumeric && Int128(time.value) * Int128(timescale) == Int128(value) * Int128(time.timescale)
    }

    static func withDirectory<T>(_ body: (URL) throws -> T) throws -> T {
        let dir = try TestMedia.makeDirectory("asset")
        defer { TestMedia.cleanup(dir) }
        return try body(dir)
    }

    // MARK: Formats

    @Test func h264WithBFramesAndAAC() throws {
        try Self.withDirectory { dir in
            let url = dir.appendingPathComponent("clip.mp4")
            try TestMedia.make(
                url, seconds: 4,
                video: [
                    "-c:v", "libx264", "-preset", "veryfast", "-bf", "2", "-g", "24",
                    "-pix_fmt", "yuv420p",
                ],
                audio: ["-c:a", "aac", "-ac", "2", "-b:a", "96k"])
            let asset = try Asset.load(url.path)
            let probe = try TestMedia.probe(url, countFrames: true)
            let format = try #require(probe["format"] as? [String: Any])
            let pv = try #require(TestMedia.stream(probe, "video"))
            let pa = try #require(TestMedia.stream(probe, "audio"))

            #expect(asset.path == url.path)
            #expect(asset.container == format["format_name"] as? String)
            #expect(abs(asset.duration.seconds - (Self.double(format["duration"]) ?? -1)) < 1e-6)
            #expect(asset.startTime.seconds == 0)
            #expect(asset.tracks.count == 2)
            #expect(asset.tracks.map(\.trackID) == [0, 1])

            let video = try #require(asset.firstVideoTrack)
            let v = try #require(video.video)
            #expect(video.codec == "h264" && v.codec == "h264")
            #expect(v.profile == pv["profile"] as? String)
            #expect(v.level == Self.int(pv["level"]))
            #expect(v.width == 320 && v.height == 240)
            #expect(v.pixelFormat == .yuv420p)
            #expect(v.hasBFrames)
            #expect(!v.isVariableFrameRate)
            #expect(Self.equal(v.nominalFrameDuration, 1, 30))
            #expect(Self.equal(v.minFrameDuration, 1, 30))
            #expect(video.frameCount == Self.int(pv["nb_read_frames"]))
            #expect(video.frameCount == 120)
            #expect(video.timeBase == Rational(1, 15360))
            let durationTS = try #require(Self.int(pv["duration_ts"]))
            #expect(video.timeRange.duration == MediaTime(value: Int64(durationTS), timescale: 15360))
            #expect(video.isDefault)
            #expect(video.language == nil)  // "und"
            #expect(video.metadata["language"] == "und")
            #expect(asset.tracks(ofType: .video).count == 1)
            #expect(asset.tracks(ofType: .subtitle).isEmpty)

            // Keyframes: exactly ffprobe's packets flagged K, and the times ffprobe decodes key frames at.
            let index = try #require(asset.keyframeIndexes[0])
            let packets = try Self.packets(url)
            let key = packets.filter(\.isKey)
            #expect(index.trackID == 0)
            #expect(index.packetCount == packets.count)
            #expect(index.keyframes.map(\.pts) == key.compactMap(\.pts))
            #expect(index.keyframes.map(\.dts) == key.compactMap(\.dts))
            #expect(index.keyframes.map(\.bytePosition) == key.map(\.pos))
            #expect(index.keyframes.count == 5)
            let times = try Self.frameTimes(url, keyOnly: true)
            #expect(index.keyframes.count == times.count)
            for (keyframe, time) in zip(index.keyframes, times) {
                #expect(abs(keyframe.time.seconds - time) < 1e-6)
                #expect(Self.equal(keyframe.time, keyframe.pts, 15360))
            }
            // With B-frames the keyframe's DTS runs ahead of its PTS.
            #expect(index.keyframes.allSatisfy { $0.dts <= $0.pts })
            #expect(index.keyframes.contains { $0.dts < $0.pts })

            let audio = try #require(asset.firstAudioTrack)
            let a = try #require(audio.audio)
            #expect(audio.codec == "aac" && a.codec == "aac")
            #expect(a.profile == "LC")
            #expect(a.sampleRate == Self.int(pa["sample_rate"]))
            #expect(a.sampleRate == 48_000)
            #expect(a.channelCount == 2 && a.channelCount == Self.int(pa["channels"]))
            #expect(a.channelLayout == pa["channel_layout"] as? String)
            #expect(a.sampleFormat == pa["sample_fmt"] as? String)
            #expect(a.frameSize == 1024)
            #expect(audio.video == nil && video.audio == nil)
            #expect(asset.keyframeIndexes[1] == nil)
        }
    }

    @Test func hevcMain10() throws {
        try Self.withDirectory { dir in
            let url = dir.appendingPathComponent("hevc10.mp4")
            try TestMedia.make(
                url, seconds: 1,
                video: [
                    "-c:v", "libx265", "-preset", "ultrafast", "-pix_fmt", "yuv420p10le",
                    "-x265-params", "log-level=error", "-tag:v", "hvc1",
                ],
                audio: nil)
            let asset = try Asset.load(url.path)
            let v = try #require(asset.firstVideoTrack?.video)
            #expect(v.codec == "hevc")
            #expect(v.profile == "Main 10")
            #expect(v.pixelFormat == .yuv420p10le)
            #expect(v.pixelFormat.bitDepth == 10)
            #expect(asset.firstAudioTrack == nil)
            let probe = try TestMedia.probe(url, countFrames: true)
            #expect(asset.firstVideoTrack?.frameCount == Self.int(TestMedia.stream(probe, "video")?["nb_read_frames"]))
        }
    }

    @Test func vp9AndOpusInWebM() throws {
        try Self.withDirectory { dir in
            let url = dir.appendingPathComponent("clip.webm")
            try TestMedia.make(
                url, seconds: 2,
                video: ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-g", "30"],
                audio: ["-c:a", "libopus", "-b:a", "64k"])
            let asset = try Asset.load(url.path)
            #expect(asset.container.contains("webm"))
            let video = try #require(asset.firstVideoTrack)
            let audio = try #require(asset.firstAudioTrack)
            #expect(video.codec == "vp9")
            #expect(audio.codec == "opus")
            #expect(audio.audio?.sampleRate == 48_000)
            #expect(video.timeBase == Rational(1, 1000))
            // 30 fps in milliseconds steps 33 and 34: rounding, not a variable frame rate.
            #expect(video.video?.isVariableFrameRate == false)
            let probe = try TestMedia.probe(url, countFrames: true)
            #expect(video.frameCount == Self.int(TestMedia.stream(probe, "video")?["nb_read_frames"]))
            let key = try Self.packets(url).filter(\.isKey)
            #expect(asset.keyframeIndexes[video.trackID]?.keyframes.map(\.pts) == key.compactMap(\.pts))
        }
    }

    @Test func mpegTSStartsAfterZero() throws {
        try Self.withDirectory { dir in
            let url = dir.appendingPathComponent("clip.ts")
            try TestMedia.make(
                url, seconds: 2, video: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "15"],
                audio: ["-c:a", "aac"], extra: ["-f", "mpegts"])
            let asset = try Asset.load(url.path)
            let probe = try TestMedia.probe(url)
            let format = try #require(probe["format"] as? [String: Any])
            let pv = try #require(TestMedia.stream(probe, "video"))
            #expect(asset.container == "mpegts")
            #expect(asset.startTime.seconds > 0)
            #expect(abs(asset.startTime.seconds - (Self.double(format["start_time"]) ?? 0)) < 1e-6)
            let video = try #require(asset.firstVideoTrack)
            #expect(video.timeBase == Rational(1, 90000))
            #expect(video.timeRange.start == MediaTime(value: Int64(Self.int(pv["start_pts"]) ?? -1), timescale: 90000))
            let index = try #require(asset.keyframeIndexes[video.trackID])
            let key = try Self.packets(url).filter(\.isKey)
            #expect(index.keyframes.map(\.pts) == key.compactMap(\.pts))
            #expect(index.keyframes.map(\.bytePosition) == key.map(\.pos))
            #expect(index.keyframes.first?.time == video.timeRange.start)
        }
    }

    /// MPEG-PS leaves the PTS out of some anchor frames' packets; with B-frames their display time is
    /// unknown without decoding, so those keyframes are counted but not indexed, and the holes they leave
    /// in the PTS grid do not make the track variable-rate.
    @Test func mpegPSKeyframesWithoutPTS() throws {
        try Self.withDirectory { dir in
            let url = dir.appendingPathComponent("clip.mpg")
            try TestMedia.make(
                url, seconds: 2, rate: "25",
                video: ["-c:v", "mpeg2video", "-bf", "2", "-g", "10"], audio: nil, extra: ["-f", "mpeg"])
            let asset = try Asset.load(url.path)
            let video = try #require(asset.firstVideoTrack)
            let index = try #require(asset.keyframeIndexes[video.trackID])
            let packets = try Self.packets(url)
            let key = packets.filter(\.isKey)
            #expect(key.contains { $0.pts == nil }, "ffmpeg now writes a PTS on every packet; the case is gone")
            #expect(index.keyframes.map(\.pts) == key.compactMap(\.pts))
            #expect(index.unindexedKeyframeCount == key.filter { $0.pts == nil }.count)
            #expect(index.packetCount == packets.count)
            #expect(video.video?.hasBFrames == true)
            #expect(video.video?.isVariableFrameRate == false)
            #expect(Self.equal(try #require(video.video?.minFrameDuration), 1, 25))
        }
    }

    // MARK: Rotation

    /// FFmpeg 5.1's mov muxer turns the `rotate` tag into a display matrix that ffmpeg shows turned
    /// counter-clockwise: `rotate=90` displays as 270° clockwise, `rotate=270` as 90° clockwise (what an
    /// iPhone portrait clip holds). The expected values come from ffmpeg's own autorotate, not from tags.
    @Test(arguments: [(90, 270), (180, 180), (270, 90)])
    func rotationFromDisplayMatrix(tag: Int, clockwise: Int) throws {
        try Self.withDirectory { dir in
            let plain = dir.appendingPathComponent("plain.mp4")
            try TestMedia.run(
                "ffmpeg",
                [
                    "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    "color=black:size=320x240:duration=0.5,"
                        + "drawbox=x=0:y=0:w=40:h=40:color=white:t=fill",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", plain.path,
                ])
            let url = dir.appendingPathComponent("rotated.mp4")
            try TestMedia.tagRotation(plain, tag, to: url)
            let shown = try TestMedia.clockwiseRotationShownByFFmpeg(url, dir: dir)
            #expect(shown.degrees == clockwise)

            let v = try #require(try Asset.load(url.path).firstVideoTrack?.video)
            #expect(v.rotation == Rotation(degrees: clockwise))
            #expect(v.width == 320 && v.height == 240)
            #expect(v.displaySize.width == shown.width && v.displaySize.height == shown.height)
            #expect(v.displaySize == (clockwise == 180 ? (320, 240) : (240, 320)))
        }
    }

    @Test func unrotatedHasNoRotation() throws {
        try Self.withDirectory { dir in
            let url = dir.appendingPathComponent("plain.mp4")
            try TestMedia.make(url, seconds: 0.5, audio: nil)
            let v = try #require(try Asset.load(url.path).firstVideoTrack?.video)
            #expect(v.rotation == .none)
            #expect(v.displaySize == (320, 240))
        }
    }

    /// A horizontal mirror in the track header (FFmpeg 5.1's CLI cannot write one, so the identity matrix
    /// is patched: a = -1). `av_display_rotation_get` alone would call it a 180° turn.
    @Test func mirroredMatrixIsAMirrorNotARotation() throws {
        try Self.withDirectory { dir in
            let plain = dir.appendingPathComponent("plain.mp4")
            try TestMedia.make(plain, seconds: 0.5, audio: nil)
            var bytes = [UInt8](try Data(contentsOf: plain))
            let identity: [UInt8] =
                [0, 1, 0, 0] + [UInt8](repeating: 0, count: 12) + [0, 1, 0, 0]
                + [UInt8](repeating: 0, count: 12) + [0x40, 0, 0, 0]
            let tkhd = try #require(
                bytes.indices.first {
                    bytes[$0..<min($0 + 4, bytes.count)].elementsEqual("tkhd".utf8)
                })
            let matrix = try #require(
                (tkhd..<bytes.count - identity.count).first {
                    bytes[$0..<$0 + identity.count].elementsEqual(identity)
                })
            bytes.replaceSubrange(matrix..<matrix + 4, with: [0xFF, 0xFF, 0, 0])
            let url = dir.appendingPathComponent("mirrored.mp4")
            try Data(bytes).write(to: url)

            let v = try #require(try Asset.load(url.path).firstVideoTrack?.video)
            #expect(v.rotation == Rotation(degrees: 0, mirrored: true))
            #expect(v.displaySize == (320, 240))
        }
    }

    // MARK: Frame rate and colour

    @Test func variableFrameRateFromDroppedFrames() throws {
        try Self.withDirectory { dir in
            let url = dir.appendingPathComponent("vfr.mp4")
            try TestMedia.make(
                url, seconds: 2, audio: nil,
                extra: ["-vf", "select='not(eq(n\\,5)+eq(n\\,6))'", "-fps_mode", "vfr"])
            let asset = try Asset.load(url.path)
            let video = try #require(asset.firstVideoTrack)
            let v = try #require(video.video)
            #expect(v.isVariableFrameRate)
            #expect(Self.equal(v.minFrameDuration, 1, 30))
            let probe = try TestMedia.probe(url, countFrames: true)
            #expect(video.frameCount == 58)
            #expect(video.frameCount == Self.int(TestMedia.stream(probe, "video")?["nb_read_frames"]))
            #expect(try Self.frameTimes(url, keyOnly: false).count == 58)
        }
    }

    @Test func constantFrameRateAt25() throws {
        try Self.withDirectory { dir in
            let url = dir.appendingPathComponent("cfr25.mkv")
            try TestMedia.make(url, seconds: 2, rate: "25", audio: nil)
            let v = try #require(try Asset.load(url.path).firstVideoTrack?.video)
            #expect(!v.isVariableFrameRate)
            #expect(Self.equal(v.nominalFrameDuration, 1, 25))
            #expect(Self.equal(v.averageFrameDuration, 1, 25))
            #expect(Self.equal(v.minFrameDuration, 1, 25))
        }
    }

    @Test func colourTagsReadBack() throws {
        try Self.withDirectory { dir in
            let url = dir.appendingPathComponent("bt709.mp4")
            try TestMedia.make(
                url, seconds: 0.5, audio: nil,
                extra: [
                    "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
                    "-color_range", "tv",
                ])
            let v = try #require(try Asset.load(url.path).firstVideoTrack?.video)
            #expect(v.color.matrix == .bt709)
            #expect(v.color.primaries == .bt709)
            #expect(v.color.transfer == .bt709)
            #expect(v.color.range == .limited)
            let pv = try #require(TestMedia.stream(TestMedia.probe(url), "video"))
            #expect(v.color.matrix.rawValue == pv["color_space"] as? String)
            #expect(v.color.primaries.rawValue == pv["color_primaries"] as? String)
            #expect(v.color.transfer.rawValue == pv["color_transfer"] as? String)
            #expect(v.color.range.rawValue == pv["color_range"] as? String)
            #expect(v.color.chromaLocation.rawValue == (pv["chroma_location"] as? String ?? "unspecified"))
        }
    }

    @Test func loadWithoutScanHasNoIndex() throws {
        try Self.withDirectory { dir in
            let url = dir.appendingPathComponent("clip.mp4")
            try TestMedia.make(url, seconds: 1)
            let asset = try Asset.load(url.path, scanPackets: false)
            #expect(asset.keyframeIndexes.isEmpty)
            #expect(asset.tracks.count == 2)
            #expect(asset.firstVideoTrack?.frameCount == 30)  // the container's nb_frames
            let v = try #require(asset.firstVideoTrack?.video)
            #expect(v.minFrameDuration == v.nominalFrameDuration)
        }
    }

    @Test func assetEncodesAndDecodesAsJSON() throws {
        try Self.withDirectory { dir in
            let url = dir.appendingPathComponent("clip.mp4")
            try TestMedia.make(url, seconds: 1)
            let asset = try Asset.load(url.path)
            let data = try JSONEncoder().encode(asset)
            let back = try JSONDecoder().decode(Asset.self, from: data)
            #expect(back.path == asset.path)
            #expect(back.tracks.map(\.codec) == ["h264", "aac"])
            #expect(back.keyframeIndexes[0]?.keyframes == asset.keyframeIndexes[0]?.keyframes)
            #expect(back.firstVideoTrack?.video == asset.firstVideoTrack?.video)
        }
    }

    // MARK: Errors

    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case missing, directory, empty, garbage, truncated, truncatedFastStart
        var testDescription: String { rawValue }
    }

    @Test(arguments: Damage.allCases)
    func unusableInputsFailWithTheirCause(_ damage: Damage) throws {
        try Self.withDirectory { dir in
            let url = dir.appendingPathComponent("input-\(damage.rawValue).mp4")
            let expected: MediaError.Kind
            let words: String
            switch damage {
            case .missing:
                (expected, words) = (.notFound, "no such file")
            case .directory:
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
                (expected, words) = (.notFound, "is a directory")
            case .empty:
                _ = FileManager.default.createFile(atPath: url.path, contents: Data())
                (expected, words) = (.emptyFile, "empty")
            case .garbage:
                _ = FileManager.default.createFile(atPath: url.path, contents: TestMedia.garbage(count: 100_000))
                (expected, words) = (.notMedia, "not a media file FFmpeg recognises")
            case .truncated:
                // Without +faststart the moov index is written last, so the first half has none.
                let whole = dir.appendingPathComponent("whole.mp4")
                try TestMedia.make(whole, seconds: 2)
                let data = try Data(contentsOf: whole)
                try data.prefix(data.count / 2).write(to: url)
                (expected, words) = (.corrupt, "moov")
            case .truncatedFastStart:
                // With the index in front the demuxer opens it and would just stop reading early.
                let whole = dir.appendingPathComponent("whole.mp4")
                try TestMedia.make(whole, seconds: 2, extra: ["-movflags", "+faststart"])
                let data = try Data(contentsOf: whole)
                try data.prefix(data.count / 2).write(to: url)
                (expected, words) = (.corrupt, "samples are missing")
            }
            let error = try #require(throws: MediaError.self) { try Asset.load(url.path) }
            #expect(error.kind == expected)
            #expect(error.path == url.path)
            #expect(error.description.hasPrefix(url.path + ": "))
            #expect(error.description.contains(words), "\(error.description)")
        }
    }

    @Test func fileWithoutAudioOrVideoIsNotMedia() throws {
        try Self.withDirectory { dir in
            let url = dir.appendingPathComponent("subtitles.srt")
            try "1\n00:00:00,000 --> 00:00:01,000\nhello\n".write(to: url, atomically: true, encoding: .utf8)
            let error = try #require(throws: MediaError.self) { try Asset.load(url.path) }
            #expect(error.kind == .notMedia)
            #expect(error.description.contains("no audio or video"), "\(error.description)")
        }
    }
}

extension AssetTests {
    /// The keyframe lookups the segment planner relies on.
    @Suite struct KeyframeLookups {
        static func index(_ pts: [Int64]) -> KeyframeIndex {
            KeyframeIndex(
                trackID: 0, timeBase: Rational(1, 30),
                keyframes: pts.map {
                    Keyframe(
                        pts: $0, dts: $0, time: MediaTime(value: $0, timescale: 30),
                        bytePosition: $0 * 100)
                },
                packetCount: 100)
        }

        @Test func lookups() {
            let index = Self.index([60, 0, 30, 90, 30])  // unsorted, with a duplicate
            #expect(index.keyframes.map(\.pts) == [0, 30, 60, 90])
            #expect(index.keyframe(atOrBefore: -1) == nil)
            #expect(index.keyframe(atOrBefore: 0)?.pts == 0)
            #expect(index.keyframe(atOrBefore: 29)?.pts == 0)
            #expect(index.keyframe(atOrBefore: 30)?.pts == 30)
            #expect(index.keyframe(atOrBefore: 1000)?.pts == 90)
            #expect(index.keyframe(after: -1)?.pts == 0)
            #expect(index.keyframe(after: 0)?.pts == 30)
            #expect(index.keyframe(after: 89)?.pts == 90)
            #expect(index.keyframe(after: 90) == nil)
        }

        @Test func emptyIndex() {
            let index = Self.index([])
            #expect(index.keyframe(atOrBefore: 0) == nil)
            #expect(index.keyframe(after: 0) == nil)
        }
    }
}
