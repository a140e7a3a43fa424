import Foundation
import TesseraTestSupport
import Testing

/// `tessera transcode --spec`: compositions of several assets (JSON specs and OpenTimelineIO timelines),
/// checked by measurement: size, frame count, duration, orientation and fades (luma), volume (RMS).
@Suite(.serialized) struct CompositionCommandTests {
    let dir: URL
    init() throws { dir = try TestMedia.makeDirectory("composition") }

    func tessera(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try TestMedia.runCapturing(TestMedia.tesseraBinary.path, arguments)
    }

    /// A flat grey clip with a tone: `size` at `rate` fps, luma about `grey` (0–255 RGB grey).
    func clip(_ name: String, size: String, rate: Int, grey: Int, hz: Int, seconds: Int, rotate: Int = 0) throws -> URL
    {
        let url = dir.appendingPathComponent(name)
        let args = [
            "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
            String(format: "color=0x%02X%02X%02X:size=\(size):rate=\(rate):duration=\(seconds)", grey, grey, grey),
            "-f", "lavfi", "-i", "sine=frequency=\(hz):duration=\(seconds):sample_rate=44100",
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac",
        ]
        guard rotate != 0 else {
            try TestMedia.run("ffmpeg", args + [url.path])
            return url
        }
        // A display matrix, as a phone writes it (ffmpeg sets it from the tag when copying streams).
        let plain = dir.appendingPathComponent("plain-" + name)
        try TestMedia.run("ffmpeg", args + [plain.path])
        try TestMedia.tagRotation(plain, rotate, to: url)
        return url
    }

    /// The mean luma of each frame of `url` inside a crop (`w:h:x:y`, ffmpeg's crop syntax), full range
    /// (video black is 0).
    static func luma(_ url: URL, crop: String) throws -> [Double] {
        let r = try TestMedia.runCapturingBytes(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-i", url.path, "-fps_mode", "passthrough", "-vf",
                "crop=\(crop),scale=1:1:flags=area,format=gray", "-f", "rawvideo", "-",
            ])
        return [UInt8](r.stdout).map(Double.init)
    }

    static func probe(_ url: URL, _ entries: String, stream: String = "v:0") throws -> [String] {
        try TestMedia.run(
            "ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", entries, "-of", "csv=p=0", url.path]
        ).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
    }

    /// RMS of the audio from `start` for `seconds` (astats, 16-bit scale).
    static func rms(_ url: URL, at start: Double, seconds: Double) throws -> Double {
        let r = try TestMedia.runCapturing(
            "ffmpeg",
            [
                "-hide_banner", "-ss", String(start), "-t", String(seconds), "-i", url.path, "-vn", "-af",
                "aformat=sample_fmts=s16,astats=measure_overall=RMS_level:measure_perchannel=none", "-f", "null", "-",
            ])
        let line = r.stderr.split(separator: "\n").last { $0.contains("RMS level dB") } ?? ""
        let db = Double(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? -200
        return 32768 * pow(10, db / 20)
    }

    func write(_ json: String, _ name: String = "job.json") throws -> URL {
        let url = dir.appendingPathComponent(name)
        try json.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// Three clips of different sizes and rates, the middle one shot rotated, into 640x360 at 30 fps with
    /// a fade in from black and a fade out of the sound.
    @Test func threeClipsFadedRotatedAndMixed() throws {
        defer { TestMedia.cleanup(dir) }
        _ = try clip("a.mp4", size: "320x240", rate: 30, grey: 192, hz: 440, seconds: 3)
        _ = try clip("b.mp4", size: "640x360", rate: 25, grey: 128, hz: 660, seconds: 3, rotate: 90)
        _ = try clip("c.mp4", size: "160x120", rate: 60, grey: 64, hz: 880, seconds: 2)
        let spec = try write(
            """
            {"assets": [{"id": "a", "path": "a.mp4"}, {"id": "b", "path": "b.mp4"}, {"id": "c", "path": "c.mp4"}],
             "edits": [{"insert": {"asset": "a", "range": "0s-2s"}}, {"insert": {"asset": "b", "range": "0.5s-2.5s"}},
                       {"insert": {"asset": "c", "range": "0s-1s"}}],
             "videoComposition": {"renderSize": "640x360", "frameRate": "30",
                                  "opacity": [{"range": "0s-1s", "from": 0, "to": 1}]},
             "audioMix": {"volume": [{"range": "4s-5s", "from": 1, "to": 0}]}}
            """)
        let out = dir.appendingPathComponent("out.mp4")
        let r = try tessera(["transcode", "--spec", spec.path, "-o", out.path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.probe(out, "stream=width,height,nb_frames") == ["640", "360", "150"])
        let video = Double(try Self.probe(out, "stream=duration")[0]) ?? 0
        let audio = Double(try Self.probe(out, "stream=duration", stream: "a:0")[0]) ?? 0
        #expect(abs(video - 5) < 1e-6)
        #expect(abs(audio - video) <= 1024.0 / 44100, "audio \(audio) s, video \(video) s")
        // Clip A's middle: black at 0, half way at 0.5 s, its grey from 1 s.
        let whole = try Self.luma(out, crop: "200:200:220:80")
        #expect(whole.count == 150)
        let grey192 = whole[45]
        #expect(whole[0] < 5, "the fade starts black: \(whole[0])")
        #expect(abs(whole[15] - grey192 / 2) < grey192 / 10, "half way at 0.5 s: \(whole[15]) of \(grey192)")
        #expect(whole[30] == grey192 && grey192 > 180, "opaque from 1 s")
        // Clip B (2–4 s) was shot rotated 90°: upright it is portrait, 202 px wide between black bars
        // (x = 219–421); unrotated it would fill the frame.
        let left = try Self.luma(out, crop: "40:ih:90:0"), centre = try Self.luma(out, crop: "100:ih:270:0")
        #expect(left[90] < 5 && centre[90] > 100 && centre[90] < 160, "B: bars \(left[90]), picture \(centre[90])")
        #expect(left[45] > 180, "A (4:3, 480 px wide, from x = 80) covers x = 90–130; B (portrait) does not")
        // Clip C (4–5 s) is darker; the sound fades out over its second.
        #expect(whole[135] > 40 && whole[135] < 90)
        let loud = try Self.rms(out, at: 4.0, seconds: 0.2), quiet = try Self.rms(out, at: 4.8, seconds: 0.19)
        #expect(loud > 1000 && quiet < loud / 4, "volume ramp: \(loud) then \(quiet)")
    }

    /// A spec cut into segments, on local threads (`--segment-duration`) and on `tessera run`'s farm of
    /// local workers, shows frame by frame what one pass shows: segment boundaries inside a speed ramp and
    /// around a freeze change nothing.
    @Test func segmentedAndFarmRendersShowTheOnePassFrames() throws {
        defer { TestMedia.cleanup(dir) }
        let bFrames = ["-preset", "veryfast", "-bf", "3"]
        try TestMedia.makeBarcoded(
            dir.appendingPathComponent("a.mp4"), rate: 50, seconds: 2, audio: true, video: bFrames)
        try TestMedia.makeBarcoded(
            dir.appendingPathComponent("b.mp4"), rate: 30, seconds: 2, audio: true, video: bFrames)
        let spec = try write(
            """
            {"assets": [{"id": "a", "path": "a.mp4"}, {"id": "b", "path": "b.mp4"}],
             "edits": [{"insert": {"asset": "a", "range": "0s-2s"}}, {"insert": {"asset": "b", "range": "0s-1.5s"}},
                       {"ramp": {"range": "0.5s-1.5s", "from": "1", "to": "1/4"}}, {"freeze": {"at": "3s", "duration": "0.5s"}}],
             "videoComposition": {"renderSize": "192x16", "frameRate": "24"},
             "settings": {"video": {"codec": "h264", "rateControl": {"crf": 0}, "speed": "superfast"},
                          "audio": {"codec": "aac", "bitRate": 128000}, "passthrough": false, "optimizeForNetworkUse": false}}
            """)
        func render(_ name: String, _ command: [String]) throws -> [Int] {
            let out = dir.appendingPathComponent(name)
            let r = try tessera(command + ["--spec", spec.path, "-o", out.path, "--quiet"])
            #expect(r.status == 0, "\(name): \(r.stderr)")
            return try TestMedia.barcodeIndices(out)
        }
        let one = try render("one.mp4", ["transcode"])
        // A: 0.5 s, the ramp 2·1/(1 + 1/4) = 1.6 s, 0.5 s; B 1.5 s; the freeze 0.5 s: 4.6 s, ⌈110.4⌉ frames.
        #expect(one.count == 111)
        #expect(Array(one[0..<12]) == (0..<12).map { $0 * 50 / 24 }, "before the ramp: \(one[0..<12])")
        let threads = try render("threads.mp4", ["transcode", "--segment-duration", "0.3", "--parallel", "2"])
        #expect(threads == one, "segments on local threads differ from one pass")
        let farm = try render("farm.mp4", ["run", "--workers", "2", "--segment-duration", "0.3"])
        #expect(farm == one, "the farm's segments differ from one pass")
        // `tessera plan --spec` shows those segments: they tile the 111 frames, run by run, and some start
        // inside the ramp (composition 0.5–2.1 s), where the source moves slower than the output.
        let plan = try tessera(["plan", "--spec", spec.path, "--segment-duration", "0.3", "--json"])
        #expect(plan.status == 0, "\(plan.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [[String: Any]])
        let bounds = rows.compactMap { row in
            (row["firstFrame"] as? Int).flatMap { a in (row["endFrame"] as? Int).map { (a, $0) } }
        }
        #expect(bounds.count == rows.count && bounds.first?.0 == 0 && bounds.last?.1 == 111)
        #expect(zip(bounds, bounds.dropFirst()).allSatisfy { $0.1 == $1.0 }, "segments do not tile: \(bounds)")
        #expect(Set(rows.compactMap { $0["asset"] as? String }) == ["a", "b"])
        #expect(rows.contains { ($0["start"] as? Double ?? 0) > 0.5 && ($0["start"] as? Double ?? 9) < 2.1 })
    }

    /// A composition packaged for streaming (one engine: its segments carry the ladder as a source's do):
    /// every rendition, the render and the render scaled, shows frame for frame what one pass shows, on
    /// local threads and on a farm; its media segments start with the runs' segments, HLS and DASH name
    /// both renditions and the mixed sound, and the audio ends with the video.
    @Test func aCompositionIsPackagedRenditionByRendition() throws {
        defer { TestMedia.cleanup(dir) }
        try TestMedia.makeBarcoded(dir.appendingPathComponent("a.mp4"), rate: 50, seconds: 2, audio: true)
        try TestMedia.makeBarcoded(dir.appendingPathComponent("b.mp4"), rate: 30, seconds: 2, audio: true)
        let spec = try write(
            """
            {"assets": [{"id": "a", "path": "a.mp4"}, {"id": "b", "path": "b.mp4"}],
             "edits": [{"insert": {"asset": "a", "range": "0s-2s"}}, {"insert": {"asset": "b", "range": "0s-1.5s"}},
                       {"ramp": {"range": "0.5s-1.5s", "from": "1", "to": "1/4"}}],
             "videoComposition": {"renderSize": "384x32", "frameRate": "24"},
             "settings": {"video": {"codec": "h264", "rateControl": {"crf": 0}, "speed": "superfast"},
                          "audio": {"codec": "aac", "bitRate": 128000}, "passthrough": false, "optimizeForNetworkUse": false}}
            """)
        let one = dir.appendingPathComponent("one.mp4")
        let made = try tessera(["transcode", "--spec", spec.path, "-o", one.path, "--quiet"])
        #expect(made.status == 0, "\(made.stderr)")
        let frames = try TestMedia.barcodeIndices(one)
        let ladder = [
            "--package", "hls,dash", "--rendition", "384x32:2M", "--rendition", "192x16:1M", "--package-segment", "1",
        ]
        for (name, command) in [("pkg", ["transcode"]), ("farm", ["run", "--workers", "2"])] {
            let out = dir.appendingPathComponent(name)
            let r = try tessera(command + ["--spec", spec.path, "-o", out.path, "--json", "--quiet"] + ladder)
            #expect(r.status == 0, "\(name): \(r.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let package = try #require(report["package"] as? [String: Any])
            let video = try #require(package["video"] as? [[String: Any]])
            #expect(video.map { $0["name"] as? String } == ["384x32", "192x16"], "\(name)")
            #expect((package["audio"] as? [[String: Any]])?.count == 1, "\(name): the mixed sound")
            for track in ["384x32", "192x16"] {
                let file = try TestMedia.joinedTrack(
                    out, track, into: dir.appendingPathComponent("\(name)-\(track).mp4"))
                #expect(try TestMedia.barcodeIndices(file) == frames, "\(name) \(track) shows other frames")
            }
            let master = try String(contentsOf: out.appendingPathComponent("master.m3u8"), encoding: .utf8)
            #expect(master.contains("RESOLUTION=384x32") && master.contains("RESOLUTION=192x16"), "\(master)")
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.mpd").path))
            let audio = (package["audio"] as? [[String: Any]])?.first
            let videoEnd = try #require(video.first?["end"] as? Double)
            #expect(abs((audio?["end"] as? Double ?? 0) - videoEnd) < 0.03, "\(name): \(audio ?? [:])")
        }
    }

    /// `"path": "../media/a.mp4"` in `sub/s.json`, read from `sub/` as `--spec s.json`, is `media/a.mp4`
    /// beside `sub/`, not `sub/media/a.mp4` (a decoy of another length stands there).
    @Test func relativeAssetPathsClimbFromTheSpecsOwnFolder() throws {
        defer { TestMedia.cleanup(dir) }
        let sub = dir.appendingPathComponent("sub"), media = dir.appendingPathComponent("media")
        let decoy = sub.appendingPathComponent("media")
        for folder in [media, decoy] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        try TestMedia.make(media.appendingPathComponent("a.mp4"), seconds: 1, width: 64, height: 48, audio: nil)
        try TestMedia.make(decoy.appendingPathComponent("a.mp4"), seconds: 2, width: 64, height: 48, audio: nil)
        _ = try write(
            #"{"assets": [{"id": "a", "path": "../media/a.mp4"}], "edits": [{"insert": {"asset": "a"}}]}"#,
            "sub/s.json")
        let plan = try TestMedia.runCapturing(
            "env", ["-C", sub.path, TestMedia.tesseraBinary.path, "plan", "--spec", "s.json", "--json"])
        #expect(plan.status == 0, "\(plan.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [[String: Any]])
        #expect(rows.last?["endFrame"] as? Int == 30, "the 1 s asset beside sub/, not the 2 s decoy: \(rows)")
    }

    /// Layer transforms: A at half size with its corner at (100, 50); B at full size half off the left edge.
    @Test func layerTransformsPlaceEachAssetsPictures() throws {
        defer { TestMedia.cleanup(dir) }
        _ = try clip("a.mp4", size: "320x240", rate: 30, grey: 192, hz: 440, seconds: 1)
        _ = try clip("b.mp4", size: "160x120", rate: 30, grey: 128, hz: 440, seconds: 1)
        let spec = try write(
            """
            {"assets": [{"id": "a", "path": "a.mp4", "transform": {"scale": 0.5, "x": 100, "y": 50}},
                        {"id": "b", "path": "b.mp4", "transform": {"scale": 1, "x": -80, "y": 0}}],
             "edits": [{"insert": {"asset": "a"}}, {"insert": {"asset": "b"}}],
             "videoComposition": {"renderSize": "640x360", "frameRate": "30"}}
            """)
        let out = dir.appendingPathComponent("out.mp4")
        let r = try tessera(["transcode", "--spec", spec.path, "-o", out.path, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        // A covers x 100–260, y 50–170.
        let inside = try Self.luma(out, crop: "100:80:130:70"), leftOfA = try Self.luma(out, crop: "60:80:30:70")
        let below = try Self.luma(out, crop: "160:60:100:200"), corner = try Self.luma(out, crop: "8:8:100:50")
        #expect(inside[15] > 180 && leftOfA[15] < 5 && below[15] < 5, "A: \(inside[15]) \(leftOfA[15]) \(below[15])")
        #expect(corner[15] > 180, "A's corner is at (100, 50): \(corner[15])")
        // B shows its right half at x 0–80.
        let shown = try Self.luma(out, crop: "60:100:10:10"), past = try Self.luma(out, crop: "40:100:100:10")
        #expect(shown[45] > 100 && shown[45] < 160 && past[45] < 5, "B: \(shown[45]) then \(past[45])")
        let bad = try write(
            #"{"assets": [{"id": "a", "path": "a.mp4", "transform": {"scale": 0, "x": 0, "y": 0}}], "edits": [{"insert": {"asset": "a"}}]}"#,
            "bad.json")
        let refused = try tessera(["transcode", "--spec", bad.path, "-o", dir.appendingPathComponent("x.mp4").path])
        #expect(refused.status == 64 && refused.stderr.contains("assets[0].transform.scale"), "\(refused.stderr)")
    }

    /// `half.mp4`: 320x240 at 30 fps, white above and black below, so a reading shows which way it turned.
    func halfClip(seconds: Int) throws {
        try TestMedia.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                "color=white:size=320x240:rate=30:duration=\(seconds),drawbox=x=0:y=120:w=320:h=120:color=black:t=fill",
                "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                dir.appendingPathComponent("half.mp4").path,
            ])
    }

    /// A layer turned by its transform: a right angle exactly, 45° resampled with the background in the
    /// corners. The source is white above and black below, on a grey background, so a reading shows
    /// which way it turned.
    @Test func layerTransformsTurnThePicture() throws {
        defer { TestMedia.cleanup(dir) }
        try halfClip(seconds: 1)
        func render(_ rotate: Double, x: Int, y: Int, name: String) throws -> URL {
            let spec = try write(
                """
                {"assets": [{"id": "h", "path": "half.mp4", "transform": {"scale": 1, "rotate": \(rotate), "x": \(x), "y": \(y)}}],
                 "edits": [{"insert": {"asset": "h"}}],
                 "videoComposition": {"renderSize": "640x480", "frameRate": "30", "backgroundColor": "#808080"}}
                """, "\(name).json")
            let out = dir.appendingPathComponent("\(name).mp4")
            let r = try tessera(["transcode", "--spec", spec.path, "-o", out.path, "--quiet"])
            #expect(r.status == 0, "\(r.stderr)")
            return out
        }
        func at(_ url: URL, _ x: Int, _ y: Int) throws -> Double {
            try Self.luma(url, crop: "16:16:\(x - 8):\(y - 8)")[10]
        }
        // 90° clockwise: 240x320 at (100, 100); the white top is now the right half (x 220–340).
        let quarter = try render(90, x: 100, y: 100, name: "quarter")
        let (right, left, outside) = (try at(quarter, 300, 260), try at(quarter, 140, 260), try at(quarter, 400, 260))
        #expect(right > 220 && left < 30 && abs(outside - 126) < 12, "90°: \(right) \(left) \(outside)")
        // −90 is 270: the white top is the left half.
        let back = try render(-90, x: 100, y: 100, name: "back")
        #expect(try at(back, 140, 260) > 220 && at(back, 300, 260) < 30)
        // 45° clockwise: the bounding box (396x396) at (0, 0), centred on (198, 198). The white half lies
        // up and to the right of the centre, the black half down and to the left, grey in the box's corners.
        let eighth = try render(45, x: 0, y: 0, name: "eighth")
        let (upRight, downLeft) = (try at(eighth, 258, 138), try at(eighth, 138, 258))
        let (corner, beyond) = (try at(eighth, 20, 20), try at(eighth, 500, 240))
        #expect(upRight > 220 && downLeft < 30, "45°: \(upRight) \(downLeft)")
        #expect(abs(corner - 126) < 12 && abs(beyond - 126) < 12, "45° corners: \(corner) \(beyond)")
        let bad = try write(
            #"{"assets": [{"id": "h", "path": "half.mp4", "transform": {"scale": 1, "rotate": 1e9, "x": 0, "y": 0}}], "edits": [{"insert": {"asset": "h"}}]}"#,
            "bad.json")
        let refused = try tessera(["transcode", "--spec", bad.path, "-o", dir.appendingPathComponent("x.mp4").path])
        #expect(refused.status == 64 && refused.stderr.contains("assets[0].transform.rotate"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.mp4").path))
        // A picture too large to render (1080p × 16, turned) is refused before any work, not left to
        // fail in the render.
        _ = try clip("big.mp4", size: "1920x1080", rate: 30, grey: 128, hz: 440, seconds: 1)
        let huge = try write(
            #"{"assets": [{"id": "b", "path": "big.mp4", "transform": {"scale": 16, "rotate": 45, "x": 0, "y": 0}}], "edits": [{"insert": {"asset": "b"}}], "videoComposition": {"renderSize": "640x480"}}"#,
            "huge.json")
        let tooBig = try tessera(["transcode", "--spec", huge.path, "-o", dir.appendingPathComponent("x.mp4").path])
        #expect(tooBig.status == 64 && tooBig.stderr.contains("assets[0].transform.scale"), "\(tooBig.stderr)")
    }

    /// Compositions go through the frame processors single sources use: the Vulkan kernels and the CPU
    /// path render the same layers (a clip shot rotated, fitted; one turned a right angle, one 30°, half
    /// transparent) alike, and the report names the processor that made them.
    @Test func vulkanAndCPURenderTheLayersAlike() throws {
        defer { TestMedia.cleanup(dir) }
        let plain = dir.appendingPathComponent("plain.mp4"), shot = dir.appendingPathComponent("shot.mp4")
        try TestMedia.make(plain, seconds: 1, width: 480, height: 270, audio: nil)
        try TestMedia.tagRotation(plain, 90, to: shot)
        let spec = try write(
            """
            {"assets": [{"id": "s", "path": "shot.mp4"},
                        {"id": "q", "path": "plain.mp4", "transform": {"scale": 0.5, "rotate": 270, "x": 40, "y": -20}},
                        {"id": "t", "path": "plain.mp4", "transform": {"scale": 0.75, "rotate": 30, "x": 100, "y": 40}}],
             "edits": [{"insert": {"asset": "s"}}, {"insert": {"asset": "q"}}, {"insert": {"asset": "t"}}],
             "videoComposition": {"renderSize": "640x360", "frameRate": "30", "backgroundColor": "#204060",
                                  "opacity": [{"range": "2s-3s", "from": 1, "to": 0.5}]}}
            """)
        func render(_ backend: String) throws -> (URL, String, String) {
            let out = dir.appendingPathComponent("\(backend).mp4")
            let r = try tessera([
                "transcode", "--spec", spec.path, "-o", out.path, "--backend", backend, "--json", "--quiet",
            ])
            #expect(r.status == 0, "\(r.stderr)")
            let report = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
            let video = report?["video"] as? [String: Any]
            return (out, video?["processor"] as? String ?? "", video?["processorChoice"] as? String ?? "")
        }
        let (vulkan, vulkanProcessor, why) = try render("vulkan")
        let (cpu, cpuProcessor, _) = try render("cpu")
        #expect(vulkanProcessor == "vulkan")
        #expect(why.hasPrefix("vulkan"), "the report says why: \(why)")
        #expect(cpuProcessor == "swscale" || cpuProcessor == "simd", "\(cpuProcessor)")
        #expect(try Self.probe(vulkan, "stream=width,height,nb_frames") == ["640", "360", "90"])
        let psnr = try TestMedia.psnr(vulkan, against: cpu, width: 640, height: 360)
        #expect(psnr > 40, "Vulkan against CPU: \(psnr) dB")
        print("composition, Vulkan against CPU: \(psnr) dB")
        // The rotated shot is upright and fitted: portrait, 202 px wide, between bars of the background
        // (#204060: luma 58 in full range) that a picture filling the render would cover.
        for url in [vulkan, cpu] {
            let (left, right) = (try Self.luma(url, crop: "40:40:20:160"), try Self.luma(url, crop: "40:40:580:160"))
            #expect(abs(left[10] - 58) < 4 && abs(right[10] - 58) < 4, "bars: \(left[10]) \(right[10])")
        }
    }

    /// A layer's transform ramps (AVFoundation's setTransformRamp): the base transform until the first
    /// ramp, a move across the render, the end held, then a half turn, held. Read frame by frame on the
    /// white-above, black-below source.
    @Test func transformRampsMoveAndTurnALayer() throws {
        defer { TestMedia.cleanup(dir) }
        try halfClip(seconds: 2)
        let spec = try write(
            """
            {"assets": [{"id": "h", "path": "half.mp4", "transform": {"scale": 0.5, "x": 0, "y": 360},
                         "transformRamps": [
                           {"range": "0.5s-1s", "from": {"scale": 0.5, "x": 0, "y": 0}, "to": {"scale": 0.5, "x": 480, "y": 0}},
                           {"range": "1.5s-1.75s", "from": {"scale": 0.5, "x": 480, "y": 0},
                            "to": {"scale": 0.5, "rotate": 180, "x": 480, "y": 0}}]}],
             "edits": [{"insert": {"asset": "h"}}],
             "videoComposition": {"renderSize": "640x480", "frameRate": "30", "backgroundColor": "#808080"}}
            """)
        let out = dir.appendingPathComponent("ramps.mp4")
        let r = try tessera(["transcode", "--spec", spec.path, "-o", out.path, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        func at(_ x: Int, _ y: Int) throws -> [Double] { try Self.luma(out, crop: "16:16:\(x - 8):\(y - 8)") }
        let (topLeft, bottomLeft, moving) = (try at(80, 30), try at(80, 390), try at(304, 30))
        let (heldTop, heldLow) = (try at(560, 30), try at(560, 90))
        #expect(topLeft.count == 60)
        // Frame 5 (0.17 s): the base transform, a 160x120 picture in the bottom-left corner.
        #expect(bottomLeft[5] > 220 && abs(topLeft[5] - 126) < 12, "base: \(bottomLeft[5]) \(topLeft[5])")
        // Frame 15 (0.5 s): the ramp's start, top-left; frame 22 (f = 7/15): x = 224, so white at x 304.
        #expect(topLeft[15] > 220 && moving[22] > 220 && abs(topLeft[22] - 126) < 12, "\(topLeft[15]) \(moving[22])")
        // Frame 40 (1.33 s): the end held at x 480, white above black.
        #expect(heldTop[40] > 220 && heldLow[40] < 30, "held: \(heldTop[40]) \(heldLow[40])")
        // Frame 58 (1.93 s): the half turn held: black above white.
        #expect(heldTop[58] < 30 && heldLow[58] > 220, "turned: \(heldTop[58]) \(heldLow[58])")
        let bad = try write(
            """
            {"assets": [{"id": "h", "path": "half.mp4", "transformRamps": [
               {"range": "0s-1s", "from": {"scale": 1, "x": 0, "y": 0}, "to": {"scale": 1, "x": 9, "y": 0}},
               {"range": "0.5s-2s", "from": {"scale": 1, "x": 0, "y": 0}, "to": {"scale": 1, "x": 9, "y": 0}}]}],
             "edits": [{"insert": {"asset": "h"}}]}
            """, "bad.json")
        let refused = try tessera(["transcode", "--spec", bad.path, "-o", dir.appendingPathComponent("x.mp4").path])
        #expect(
            refused.status == 64 && refused.stderr.contains("assets[0].transformRamps[1].range"), "\(refused.stderr)")
    }

    /// Edits on the composition's timeline, frame by frame against a barcoded 60 fps source: 0–1 s slowed
    /// to 2 s, a second of black, a frame frozen for half a second, then 2–3 s as is.
    @Test func editsFollowTheCompositionsTimeline() throws {
        defer { TestMedia.cleanup(dir) }
        try TestMedia.makeBarcoded(dir.appendingPathComponent("bar.mp4"), rate: 60, seconds: 4, audio: true)
        let spec = try write(
            """
            {"assets": [{"id": "bar", "path": "bar.mp4"}],
             "edits": [{"insert": {"asset": "bar", "range": "0s-1s"}}, {"insertEmpty": {"duration": "1s"}},
                       {"insert": {"asset": "bar", "range": "2s-4s"}}, {"scale": {"range": "0s-1s", "toDuration": "2s"}},
                       {"freeze": {"at": "3s", "duration": "0.5s"}}, {"remove": {"range": "4.5s-5.5s"}}],
             "videoComposition": {"frameRate": "30"}, "audioMix": {"timePitch": "timeDomain"}}
            """)
        let out = dir.appendingPathComponent("edits.mp4")
        let r = try tessera(["transcode", "--spec", spec.path, "-o", out.path, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let shown = try TestMedia.barcodeIndices(out)
        // 2 s slow (60 frames: source frame k for output k), 1 s black (barcode 0), 0.5 s of source frame 120,
        // then 2–3 s of the source (the rest removed): 30 frames of every other source frame.
        #expect(shown.count == 60 + 30 + 15 + 30)
        #expect(Array(shown[0..<60]) == Array(0..<60))
        #expect(shown[60..<90].allSatisfy { $0 == 0 })
        #expect(shown[90..<105].allSatisfy { $0 == 120 })
        #expect(Array(shown[105...]) == stride(from: 120, to: 180, by: 2).map { $0 })
        // The sound (atempo through the slowed second, silent in the gap and the freeze) ends with the video.
        let video = Double(try Self.probe(out, "stream=duration")[0]) ?? 0
        let audio = Double(try Self.probe(out, "stream=duration", stream: "a:0")[0]) ?? 0
        #expect(abs(video - 4.5) < 1e-6 && abs(audio - video) <= 1024.0 / 44100, "audio \(audio) s, video \(video) s")
        #expect(try Self.rms(out, at: 2.2, seconds: 0.6) < 50, "the gap is silent")
        #expect(try Self.rms(out, at: 0.3, seconds: 1) > 1000, "the slowed second sounds")
    }

    /// An OpenTimelineIO timeline written by the `opentimelineio` package: a clip slowed by a
    /// LinearTimeWarp, a gap, a FreezeFrame clip.
    @Test func anOpenTimelineIOTimelineImports() throws {
        defer { TestMedia.cleanup(dir) }
        let bar = dir.appendingPathComponent("bar.mp4")
        try TestMedia.makeBarcoded(bar, rate: 60, seconds: 4)
        let otio = dir.appendingPathComponent("edit.otio")
        try TestMedia.run(
            TestMedia.toolsPython,
            [
                "-c",
                """
                import opentimelineio as otio, sys
                R = otio.opentime.RationalTime
                T = otio.opentime.TimeRange
                ref = lambda: otio.schema.ExternalReference(target_url="file://\(bar.path)", available_range=T(R(0, 60), R(240, 60)))
                track = otio.schema.Track(kind=otio.schema.TrackKind.Video)
                slow = otio.schema.Clip(name="slow", media_reference=ref(), source_range=T(R(0, 60), R(60, 60)))
                slow.effects.append(otio.schema.LinearTimeWarp(time_scalar=0.5))
                track.append(slow)
                track.append(otio.schema.Gap(source_range=T(R(0, 30), R(15, 30))))
                held = otio.schema.Clip(name="held", media_reference=ref(), source_range=T(R(150, 60), R(30, 60)))
                held.effects.append(otio.schema.FreezeFrame())
                track.append(held)
                timeline = otio.schema.Timeline(name="t")
                timeline.tracks.append(track)
                otio.adapters.write_to_file(timeline, sys.argv[1])
                """,
                otio.path,
            ])
        let out = dir.appendingPathComponent("otio.mp4")
        let r = try tessera(["transcode", "--spec", otio.path, "-o", out.path, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let shown = try TestMedia.barcodeIndices(out)
        // 1 s of the clip at half speed at the source's 60 fps (source frames 0..<30, each twice), 0.5 s gap,
        // 0.5 s of source frame 150.
        #expect(shown.count == 60 + 30 + 30)
        #expect(Array(shown[0..<60]) == (0..<60).map { $0 / 2 })
        #expect(shown[60..<90].allSatisfy { $0 == 0 })
        #expect(shown[90...].allSatisfy { $0 == 150 })
    }

    @Test func badSpecsAreRefusedBeforeAnyWork() throws {
        defer { TestMedia.cleanup(dir) }
        _ = try clip("a.mp4", size: "160x120", rate: 30, grey: 100, hz: 440, seconds: 2)
        let out = dir.appendingPathComponent("bad.mp4")
        let asset = #"{"assets": [{"id": "a", "path": "a.mp4"}], "#
        let cases: [(String, String, Int32, String)] = [
            ("notjson.json", "{", 65, "not JSON"),
            ("noedits.json", #"{"assets": []}"#, 65, "edits"),
            (
                "outside.json", asset + #""edits": [{"insert": {"asset": "a", "range": "1s-9s"}}]}"#, 64,
                "edits[0].insert"
            ),
            ("unknown.json", asset + #""edits": [{"insert": {"asset": "z"}}]}"#, 64, "edits[0].insert.asset"),
            (
                "factor.json",
                asset + #""edits": [{"insert": {"asset": "a"}}, {"scale": {"range": "0s-1s", "toDuration": "100s"}}]}"#,
                64, "edits[1].scale"
            ),
            (
                "two.json", asset + #""edits": [{"insert": {"asset": "a"}, "remove": {"range": "0s-1s"}}]}"#, 64,
                "edits[0]"
            ),
            (
                "ramp0.json",
                asset
                    + #""edits": [{"insert": {"asset": "a"}}, {"ramp": {"range": "0s-1s", "from": "1", "to": "0"}}]}"#,
                64, "edits[1].ramp"
            ),
            (
                "size.json",
                asset + #""edits": [{"insert": {"asset": "a"}}], "videoComposition": {"renderSize": "9x9"}}"#,
                64, "renderSize"
            ),
            (
                "fps.json", asset + #""edits": [{"insert": {"asset": "a"}}], "videoComposition": {"frameRate": "0"}}"#,
                64, "videoComposition.frameRate"
            ),
            (
                "transition.otio",
                #"{"OTIO_SCHEMA": "Timeline.1", "tracks": {"OTIO_SCHEMA": "Stack.1", "children": [{"OTIO_SCHEMA": "Track.1", "kind": "Video", "children": [{"OTIO_SCHEMA": "Transition.1", "source_range": {"start_time": {"value": 0, "rate": 24}, "duration": {"value": 24, "rate": 24}}}]}]}}"#,
                65, "otio.tracks[0].children[0]"
            ),
        ]
        for (name, json, status, named) in cases {
            let spec = try write(json, name)
            let r = try tessera(["transcode", "--spec", spec.path, "-o", out.path, "--quiet"])
            #expect(r.status == status, "\(name): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(named), "\(name): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
        let missing = try tessera(["transcode", "--spec", dir.appendingPathComponent("none.json").path, "-o", out.path])
        #expect(missing.status == 66, "\(missing.stderr)")
    }

    /// The README's worked example is valid against Protocols/composition.schema.json (jsonschema from PyPI),
    /// and a spec breaking the schema is not.
    @Test func theSchemaAcceptsTheExampleAndRefusesABrokenSpec() throws {
        let schema = TestMedia.repositoryRoot.appendingPathComponent("Protocols/composition.schema.json").path
        let readme = try String(
            contentsOf: TestMedia.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let example = try #require(
            readme.components(separatedBy: "```json\n").dropFirst().first?.components(separatedBy: "```").first)
        let check = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            ok = jsonschema.Draft202012Validator(schema).is_valid(json.loads(sys.argv[2]))
            bad = jsonschema.Draft202012Validator(schema).is_valid({"assets": [], "edits": [{"scale": {}}]})
            print(ok, bad)
            """
        let r = try TestMedia.runCapturing(TestMedia.toolsPython, ["-c", check, schema, example])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "True False")
    }
}
