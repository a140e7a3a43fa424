import Foundation
import TesseraTestSupport
import Testing

/// `tessera transcode` with retiming flags, checked frame by frame: every source picture carries its
/// frame index as a 12-bit barcode (libavfilter's geq), and ffmpeg reads back which source frame each
/// output frame shows.
@Suite(.serialized) struct RetimeCommandTests {
    let dir: URL
    init() throws { dir = try TestMedia.makeDirectory("retime") }

    func tessera(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try TestMedia.runCapturing(TestMedia.tesseraBinary.path, arguments)
    }

    /// A barcoded source (`TestMedia.makeBarcoded`) in the test's folder.
    func barcoded(_ name: String, rate: Int, seconds: Int, audio: Bool = false, bFrames: Bool = false) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try TestMedia.makeBarcoded(
            url, rate: rate, seconds: seconds, audio: audio,
            video: bFrames ? ["-preset", "veryfast", "-bf", "3"] : ["-preset", "ultrafast"])
        return url
    }

    static func frameIndices(_ url: URL) throws -> [Int] { try TestMedia.barcodeIndices(url) }

    @Test func slowMotion240To30ShowsEverySourceFrameOfTheScaledRange() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try barcoded("src240.mp4", rate: 240, seconds: 8)
        #expect(try Self.frameIndices(src) == Array(0..<1920), "the barcode reads back on the source")
        let out = dir.appendingPathComponent("slow.mp4")
        let r = try tessera([
            "transcode", src.path, "-o", out.path, "--scale", "2s-4s:16s", "--frame-rate", "30", "--no-audio",
            "--verify", "--quiet",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let shown = try Self.frameIndices(out)
        #expect(shown.count == 660)
        let expected =
            Array(stride(from: 0, to: 480, by: 8)) + Array(480..<960) + Array(stride(from: 960, to: 1920, by: 8))
        #expect(shown == expected)
        // Every packet at k/30 s, each 1/30 s long: the constant grid, as ffprobe reads it.
        let packets = try TestMedia.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,duration_time", "-of",
                "csv=p=0", out.path,
            ])
        let rows = packets.split(separator: "\n").map { $0.split(separator: ",").compactMap { Double($0) } }
        let times = rows.map { $0[0] }.sorted()
        #expect(times.count == 660)
        #expect(times.enumerated().allSatisfy { abs($0.element - Double($0.offset) / 30) < 1e-6 })
        #expect(rows.allSatisfy { $0.count == 2 && abs($0[1] - 1.0 / 30) < 1e-6 })
    }

    /// 60 fps, source 1–2 s scaled to 3 s, exported at 24 fps: hold shows ⌊60·s⌋ and nearest ⌊60·s + ½⌋,
    /// where s is the mapped source time of k/24 s.
    @Test(arguments: ["hold", "nearest"])
    func holdAndNearest(selection: String) throws {
        defer { TestMedia.cleanup(dir) }
        // With B-frames: the export skips decoding the non-reference frames no instant shows.
        let src = try barcoded("src60.mp4", rate: 60, seconds: 3, bFrames: true)
        let out = dir.appendingPathComponent("\(selection).mp4")
        let r = try tessera([
            "transcode", src.path, "-o", out.path, "--scale", "1s-2s:3s", "--frame-rate", "24",
            "--frame-selection", selection, "--no-audio", "--quiet",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        // s in 1/72 s units (k/24 s is 3k/72): t < 1 s: 3k; 1 ≤ t < 4 s: 72 + (3k − 72)/3; after: 3k − 144.
        let expected = (0..<120).map { k -> Int in
            let s72 = k < 24 ? 3 * k : k < 96 ? 72 + (3 * k - 72) / 3 : 3 * k - 144
            // 60·s = 60·s72/72 = 5·s72/6.
            return selection == "hold" ? (5 * s72) / 6 : (10 * s72 + 6) / 12
        }
        #expect(try Self.frameIndices(out) == expected)
    }

    @Test func aRampAndAFreezeFollowTheMap() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try barcoded("src240r.mp4", rate: 240, seconds: 8)
        let out = dir.appendingPathComponent("ramp.mp4")
        let r = try tessera([
            "transcode", src.path, "-o", out.path, "--ramp", "4s-6s:1-0.25", "--freeze", "2s:1s", "--frame-rate", "30",
            "--no-audio", "--quiet",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let shown = try Self.frameIndices(out)
        // 2 s + 1 s frozen + 2 s + 3.2 s ramp + 2 s = 10.2 s: 306 frames.
        #expect(shown.count == 306)
        for (k, index) in shown.enumerated() {
            let t = Double(k) / 30
            let s: Double
            switch t {
            case ..<2: s = t
            case ..<3: s = 2
            case ..<5: s = t - 1
            case ..<8.2:
                let u = t - 5
                s = 4 + u - 0.75 * u * u / (2 * 3.2)
            default: s = t - 2.2
            }
            let exact = s * 240
            // Skip instants within a hair of a frame boundary, where double rounding could decide.
            if abs(exact - exact.rounded()) > 1e-6 {
                #expect(index == Int(exact.rounded(.down)), "output frame \(k) at \(t) s")
            }
        }
        #expect(shown[60..<90].allSatisfy { $0 == 480 }, "the freeze holds source frame 480")
    }

    @Test func badRetimingIsRefusedBeforeAnyWork() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try barcoded("src.mp4", rate: 30, seconds: 3, audio: true)
        let out = dir.appendingPathComponent("bad.mp4")
        let cases: [([String], String)] = [
            (["--scale", "2s-40s:1s", "--no-audio"], "--scale"),
            (["--scale", "1s-2s:100s", "--no-audio"], "--scale"),
            (["--ramp", "1s-2s:1-0", "--no-audio"], "--ramp"),
            (["--freeze", "1s:0s", "--no-audio"], "--freeze"),
            (["--scale", "1s-2s:4s", "--frame-duration", "0", "--no-audio"], "--frame-duration"),
            (["--scale", "1s-2s"], "--scale"),
            (
                ["--scale", "1s-2s:4s", "--preset", "Passthrough", "--no-audio", "--segment-duration", "1"],
                "--segment-duration"
            ),
        ]
        for (flags, named) in cases {
            let r = try tessera(["transcode", src.path, "-o", out.path, "--quiet"] + flags)
            #expect(r.status == 64, "\(flags): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(named), "\(flags): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
        // On the farm, the same refusals come before any worker starts, naming the option.
        for (flags, named) in [(["--scale", "2s-40s:1s"], "--scale"), (["--ramp", "1s-2s:1-0"], "--ramp")] {
            let r = try tessera(["run", src.path, "-o", out.path, "--quiet"] + flags)
            #expect(r.status == 64, "run \(flags): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(named), "run \(flags): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }

    /// Segments planned on the output timeline, boundaries inside the scaled range: `transcode
    /// --segment-duration` and `run --workers 2` make exactly the frames one pass makes, on the same
    /// grid, and the audio (stretched once over the whole timeline) ends with the video.
    @Test func segmentedAndFarmRetimingMakeTheFramesOfOnePass() throws {
        defer { TestMedia.cleanup(dir) }
        // B-frames no frame refers to: a segment decodes only those its instants show (one in eight here).
        let src = try barcoded("seg240.mp4", rate: 240, seconds: 8, audio: true, bFrames: true)
        let retime = ["--scale", "2s-4s:16s", "--frame-rate", "30"]
        let expected =
            Array(stride(from: 0, to: 480, by: 8)) + Array(480..<960) + Array(stride(from: 960, to: 1920, by: 8))
        let plan = try tessera(["plan", src.path, "--segment-duration", "1.5", "--json"] + retime)
        #expect(plan.status == 0, "\(plan.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any])
        let starts = try #require(json["segmentStartsInOutput"] as? [Double])
        #expect(starts.filter { $0 > 2 && $0 < 18 }.count >= 8, "boundaries inside the scaled range: \(starts)")
        let runs: [(String, [String])] = [
            ("one.mp4", ["transcode", "--verify"]),
            ("seg.mp4", ["transcode", "--segment-duration", "1.5", "--parallel", "2"]),
            ("farm.mp4", ["run", "--workers", "2", "--segment-duration", "1.5"]),
        ]
        for (name, command) in runs {
            let out = dir.appendingPathComponent(name)
            let r = try tessera([command[0], src.path, "-o", out.path, "--quiet"] + command.dropFirst() + retime)
            #expect(r.status == 0, "\(command): \(r.stderr)")
            #expect(try Self.frameIndices(out) == expected, "\(command)")
            let video = try Self.duration(out, "v:0"), audio = try Self.duration(out, "a:0")
            #expect(abs(video - 22) < 1e-6, "\(command): video \(video) s")
            #expect(abs(audio - video) <= 1024.0 / 44100, "\(command): audio \(audio) s, video \(video) s")
        }
    }

    /// Subtitles and chapters follow the time map, in one pass, in segments and on the farm: an event in the slowed
    /// range lasts as long as its stretch of picture, one showing at the freeze stays up through it.
    @Test func subtitlesAndChaptersFollowTheMap() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try TestMedia.makeMultiTrack(dir, attachment: false)
        // Source 1–2 s lasts 4 s; at source 3 s the picture holds for 1 s: 8 s out of 4.
        func mapped(_ s: Double) -> Double { s < 1 ? s : s <= 2 ? 1 + (s - 1) * 4 : s <= 3 ? s + 3 : s + 4 }
        let expected = try TestMedia.subtitleEvents(src, fromVideo: false).map { (mapped($0.0), mapped($0.1)) }
        #expect(expected.count == 3)
        let retime = ["--scale", "1s-2s:4s", "--freeze", "3s:1s", "--frame-rate", "30"]
        let runs: [(String, [String])] = [
            ("one.mkv", ["transcode", "--verify"]),
            ("seg.mkv", ["transcode", "--segment-duration", "1", "--parallel", "2"]),
            ("farm.mkv", ["run", "--workers", "2", "--segment-duration", "1"]),
        ]
        for (name, command) in runs {
            let out = dir.appendingPathComponent(name)
            let r = try tessera([command[0], src.path, "-o", out.path, "--quiet"] + command.dropFirst() + retime)
            #expect(r.status == 0, "\(name): \(r.stderr)")
            #expect(!r.stderr.contains("not carried"), "\(name): \(r.stderr)")
            let events = try TestMedia.subtitleEvents(out)
            #expect(events.count == expected.count, "\(name): \(events) vs \(expected)")
            for (e, x) in zip(events, expected) {
                #expect(abs(e.0 - x.0) < 0.002 && abs(e.1 - x.1) < 0.002, "\(name): \(e) vs \(x)")
            }
            let chapters = try TestMedia.chapters(out)
            #expect(chapters.map(\.2) == ["One", "Two"], "\(name)")
            let bounds = chapters.flatMap { [$0.0, $0.1] }
            for (b, x) in zip(bounds, [0, 5, 5, 8] as [Double]) { #expect(abs(b - x) < 0.002, "\(name): \(chapters)") }
        }
    }

    /// A ramp, a freeze and each frame selection, cut into short segments: the same frames as one pass.
    @Test(arguments: ["hold", "nearest", "blend"])
    func segmentedRampsAndFreezesMatchOnePass(selection: String) throws {
        defer { TestMedia.cleanup(dir) }
        let src = try barcoded("segr\(selection).mp4", rate: 60, seconds: 4, bFrames: true)
        let retime = [
            "--ramp", "2s-3s:1-0.25", "--freeze", "1s:0.5s", "--scale", "0.2s-0.6s:1.1s", "--frame-rate", "24",
            "--frame-selection", selection, "--no-audio", "--quiet",
        ]
        let one = dir.appendingPathComponent("one.mp4"), seg = dir.appendingPathComponent("seg.mp4")
        let a = try tessera(["transcode", src.path, "-o", one.path] + retime)
        let b = try tessera(["transcode", src.path, "-o", seg.path, "--segment-duration", "0.4"] + retime)
        #expect(a.status == 0 && b.status == 0, "\(a.stderr) \(b.stderr)")
        let shown = try TestMedia.runCapturingBytes(
            "ffmpeg", ["-v", "error", "-i", one.path, "-f", "framemd5", "-"]
        ).stdout
        let segmented = try TestMedia.runCapturingBytes(
            "ffmpeg", ["-v", "error", "-i", seg.path, "-f", "framemd5", "-"]
        ).stdout
        // Decoded pictures, frame by frame (blend mixes pixels, so compare the pictures, not barcodes).
        #expect(shown == segmented)
        #expect(try Self.frameIndices(seg).count == 140, "5.8 s at 24 fps")
    }

    /// Blend mixes the two frames around an instant by their distance: a 10 fps source whose frame n has
    /// luma 20 + 20n, at 20 fps, shows luma 20 + 10k at output frame k (the midpoints are averages).
    @Test func blendMixesTheNeighbouringFrames() throws {
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("ramp10.mp4"), out = dir.appendingPathComponent("blend.mp4")
        try TestMedia.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                "color=black:size=64x64:rate=10:duration=1,format=gray,geq=lum='20+20*N',format=yuv420p",
                "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", src.path,
            ])
        let r = try tessera([
            "transcode", src.path, "-o", out.path, "--frame-rate", "20", "--frame-selection", "blend", "--no-audio",
            "--crf", "0", "--quiet",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let luma = try TestMedia.runCapturingBytes(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-i", out.path, "-fps_mode", "passthrough", "-vf",
                "scale=1:1:flags=area,format=gray", "-f", "rawvideo", "-",
            ]
        ).stdout.map(Int.init)
        #expect(luma.count == 20)
        for (k, value) in luma.enumerated().dropLast() {
            #expect(abs(value - (20 + 10 * k)) <= 2, "frame \(k): \(value)")
        }
        #expect(abs((luma.last ?? 0) - 200) <= 2, "the last instant holds the last frame")
    }

    /// The dominant frequency (upward zero crossings per second) and RMS of `url`'s audio over
    /// `[start, start + seconds)`, decoded by ffmpeg to 48 kHz mono.
    static func tone(_ url: URL, at start: Double, seconds: Double) throws -> (hz: Double, rms: Double) {
        let r = try TestMedia.runCapturingBytes(
            "ffmpeg",
            [
                "-v", "error", "-ss", "\(start)", "-t", "\(seconds)", "-i", url.path, "-vn", "-ac", "1", "-ar",
                "48000", "-f", "s16le", "-",
            ])
        let samples = r.stdout.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        guard samples.count > 1 else { return (0, 0) }
        let crossings = zip(samples, samples.dropFirst()).filter { $0.0 < 0 && $0.1 >= 0 }.count
        let rms = (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
        return (Double(crossings) / (Double(samples.count) / 48000), rms)
    }

    static func duration(_ url: URL, _ stream: String) throws -> Double {
        Double(
            try TestMedia.run(
                "ffprobe",
                [
                    "-v", "error", "-select_streams", stream, "-show_entries", "stream=duration", "-of", "csv=p=0",
                    url.path,
                ]
            ).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// A source whose tone says which second it is from: 1 kHz for 0–2 s, 2 kHz for 2–4 s, 3 kHz after.
    func steppedTone(_ name: String) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try TestMedia.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                "testsrc2=size=160x120:rate=60:duration=6", "-f", "lavfi", "-i",
                "aevalsrc=0.4*sin(2*PI*if(lt(t\\,2)\\,1000\\,if(lt(t\\,4)\\,2000\\,3000))*t):s=48000:d=6",
                "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "192k", url.path,
            ])
        return url
    }

    /// Source 2–4 s slowed to 8 s: the 2 kHz part lasts 8 s at its own pitch (within 1 %), the parts
    /// around it keep theirs and their places, and the audio ends with the video within one AAC frame.
    @Test(arguments: ["spectral", "timeDomain"])
    func retimedAudioKeepsItsPitchAndEndsWithTheVideo(algorithm: String) throws {
        defer { TestMedia.cleanup(dir) }
        let src = try steppedTone("tone.mp4"), out = dir.appendingPathComponent("\(algorithm).mp4")
        let r = try tessera([
            "transcode", src.path, "-o", out.path, "--scale", "2s-4s:8s", "--frame-rate", "30", "--time-pitch",
            algorithm, "--verify", "--quiet",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        for (start, hz) in [(0.5, 1000.0), (2.5, 2000), (5.5, 2000), (9.0, 2000), (10.5, 3000)] {
            let measured = try Self.tone(out, at: start, seconds: 1)
            #expect(abs(measured.hz - hz) / hz < 0.01, "\(algorithm) at \(start) s: \(measured.hz) Hz, not \(hz)")
            #expect(measured.rms > 5000, "\(algorithm) at \(start) s: silent")
        }
        let video = try Self.duration(out, "v:0"), audio = try Self.duration(out, "a:0")
        #expect(abs(video - 12) < 1e-6)
        #expect(abs(audio - video) <= 1024.0 / 48000, "audio \(audio) s, video \(video) s")
    }

    /// Varispeed resamples: source 2–4 s slowed to 8 s sounds its 2 kHz at 500 Hz, the parts around it
    /// keep their pitch, and the audio still ends with the video.
    @Test func varispeedMovesThePitchByTheRate() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try steppedTone("toneV.mp4"), out = dir.appendingPathComponent("varispeed.mp4")
        let r = try tessera([
            "transcode", src.path, "-o", out.path, "--scale", "2s-4s:8s", "--frame-rate", "30", "--time-pitch",
            "varispeed", "--verify", "--quiet",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        for (start, hz) in [(0.5, 1000.0), (3.0, 500), (7.0, 500), (10.5, 3000)] {
            let measured = try Self.tone(out, at: start, seconds: 1)
            #expect(abs(measured.hz - hz) / hz < 0.01, "varispeed at \(start) s: \(measured.hz) Hz, not \(hz)")
            #expect(measured.rms > 5000, "varispeed at \(start) s: silent")
        }
        let video = try Self.duration(out, "v:0"), audio = try Self.duration(out, "a:0")
        #expect(abs(audio - video) <= 1024.0 / 48000, "audio \(audio) s, video \(video) s")
    }

    /// A freeze is silent and the sound goes on after it; a ramp is stretched continuously.
    @Test func aFreezeIsSilentAndARampKeepsSounding() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try steppedTone("tone2.mp4"), out = dir.appendingPathComponent("fr.mp4")
        let r = try tessera([
            "transcode", src.path, "-o", out.path, "--freeze", "1s:2s", "--ramp", "2s-4s:1-0.25", "--frame-rate", "30",
            "--verify", "--quiet",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.tone(out, at: 1.2, seconds: 1.6).rms < 50, "the freeze is silent")
        #expect(try Self.tone(out, at: 3.2, seconds: 0.6).hz > 980, "1 kHz again after the freeze")
        // The ramp (source 2–4 s) lasts 2·2/1.25 = 3.2 s of output, from 4 s: 2 kHz throughout.
        for start in [4.3, 5.5, 6.6] {
            let m = try Self.tone(out, at: start, seconds: 0.5)
            #expect(abs(m.hz - 2000) / 2000 < 0.01 && m.rms > 5000, "ramp at \(start) s: \(m)")
        }
        let video = try Self.duration(out, "v:0"), audio = try Self.duration(out, "a:0")
        #expect(abs(video - 9.2) < 1e-6)
        #expect(abs(audio - video) <= 1024.0 / 48000, "audio \(audio) s, video \(video) s")
    }

    /// Passthrough frame timing: every source packet once, unchanged, its presentation time mapped:
    /// before 1 s as is, source 1–2 s stretched ×4, after 2 s shifted by 3 s. With B-frames too.
    @Test(arguments: [["-bf", "0"], ["-bf", "2", "-preset", "medium"]])
    func passthroughMapsEveryPacketsTime(encoder: [String]) throws {
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("pt.mp4"), out = dir.appendingPathComponent("pt-out.mp4")
        try TestMedia.make(
            src, seconds: 3,
            video: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p"] + encoder,
            audio: nil)
        let r = try tessera([
            "transcode", src.path, "-o", out.path, "--preset", "Passthrough", "--scale", "1s-2s:4s", "--no-audio",
            "--quiet",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        func packets(_ url: URL) throws -> [(pts: Double, dts: Double, size: Int)] {
            try TestMedia.run(
                "ffprobe",
                [
                    "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,dts_time,size", "-of",
                    "csv=p=0", url.path,
                ]
            ).split(separator: "\n").compactMap { line in
                let f = line.split(separator: ",")
                guard f.count == 3, let p = Double(f[0]), let d = Double(f[1]), let s = Int(f[2]) else { return nil }
                return (p, d, s)
            }
        }
        let before = try packets(src), after = try packets(out)
        #expect(after.count == 90 && before.count == 90)
        #expect(after.map(\.size) == before.map(\.size), "the packets are copied, not re-encoded")
        func mapped(_ t: Double) -> Double { t < 1 ? t : t <= 2 ? 1 + (t - 1) * 4 : t + 3 }
        for (a, b) in zip(after, before) {
            #expect(abs(a.pts - mapped(b.pts)) < 1e-4, "source \(b.pts) s went to \(a.pts) s")
        }
        #expect(zip(after, after.dropFirst()).allSatisfy { $0.dts < $1.dts }, "decode times increase")
        #expect(after.allSatisfy { $0.dts <= $0.pts })
    }

    /// `--frame-timing passthrough` re-encoded: every source frame once, in order, at its mapped time (before
    /// 1 s as is, 1–2 s stretched ×4, after 2 s shifted by 3 s), the variable rate kept in each frame's
    /// duration, and the audio retimed along the same map to end with the video; verified. A grid, a
    /// selection, segments or a farm are refused before any work, naming the option.
    @Test func passthroughTimingReencodesEveryFrameAtItsMappedTime() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try barcoded("vfr.mp4", rate: 60, seconds: 3, audio: true)
        let out = dir.appendingPathComponent("vfr-out.mp4")
        let r = try tessera([
            "transcode", src.path, "-o", out.path, "--scale", "1s-2s:4s", "--frame-timing", "passthrough", "--verify",
            "--json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\"verification\""), "the one pass verified its mapped times")
        #expect(try Self.frameIndices(out) == Array(0..<180), "every source frame once, in order")
        let rows = try TestMedia.run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time", "-of", "csv=p=0",
                out.path,
            ]
        ).split(separator: "\n").map { $0.split(separator: ",").compactMap { Double($0) } }.filter { !$0.isEmpty }
            .sorted { $0[0] < $1[0] }
        func mapped(_ t: Double) -> Double { t < 1 ? t : t <= 2 ? 1 + (t - 1) * 4 : t + 3 }
        #expect(rows.count == 180)
        for (k, row) in rows.enumerated() {
            #expect(abs(row[0] - mapped(Double(k) / 60)) < 1e-4, "frame \(k) at \(row[0]) s")
        }
        // Each frame shows until the next: 1/60 s, 4/60 s in the slowed range. (MP4's sample durations are
        // decode-time steps, which B-frames reorder, so the presentation times are what is compared.)
        let gaps = zip(rows, rows.dropFirst()).map { $1[0] - $0[0] }
        #expect(gaps.enumerated().allSatisfy { k, gap in abs(gap - (k >= 60 && k < 120 ? 4.0 : 1.0) / 60) < 1e-4 })
        #expect(abs(try Self.duration(out, "v:0") - 6) < 0.02)
        #expect(abs(try Self.duration(out, "a:0") - 6) < 0.05, "the audio is retimed to end with the video")

        for (flags, named) in [
            (["--frame-rate", "30"], "--frame-rate"), (["--frame-selection", "blend"], "--frame-selection"),
            (["--segment-duration", "1"], "--segment-duration"),
        ] {
            let refused = try tessera(
                [
                    "transcode", src.path, "-o", dir.appendingPathComponent("x.mp4").path, "--scale", "1s-2s:4s",
                    "--frame-timing", "passthrough",
                ] + flags)
            #expect(refused.status == 64, "\(flags): \(refused.stderr)")
            #expect(refused.stderr.contains(named), "\(flags): \(refused.stderr)")
        }
        let farm = try tessera([
            "run", src.path, "-o", dir.appendingPathComponent("farm.mp4").path, "--scale", "1s-2s:4s",
            "--frame-timing", "passthrough",
        ])
        #expect(farm.status == 64 && farm.stderr.contains("--frame-timing"), "\(farm.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.mp4").path))
    }

    /// A passthrough retime of a source with audio copies the video only and says so: the audio is not
    /// copied beside it unretimed (it was: 3 s of audio beside 6 s of video, exit 0, nothing said).
    @Test func passthroughRetimeNamesTheAudioItCannotCarry() throws {
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("pta.mp4"), out = dir.appendingPathComponent("pta-out.mp4")
        try TestMedia.make(src, seconds: 3, extra: ["-g", "30"])
        for flags in [["--no-audio"], []] {
            let r = try tessera(
                [
                    "transcode", src.path, "-o", out.path, "--preset", "Passthrough", "--scale", "1s-2s:4s",
                    "--overwrite",
                ]
                    + flags)
            #expect(r.status == 0, "\(flags): \(r.stderr)")
            #expect(r.stderr.contains("track 1: audio") && r.stderr.contains("passthrough retime"), "\(r.stderr)")
            let streams = try TestMedia.streams(out)
            #expect(streams.map { $0["codec_type"] as? String } == ["video"], "\(flags): \(streams)")
            #expect(abs(try Self.duration(out, "v:0") - 6) < 0.05)
        }
    }

    /// `tessera plan` with retiming: the time map in both timelines, the frame count, and where the
    /// source plan's segment starts fall in the output.
    @Test func planShowsTheTimeMap() throws {
        defer { TestMedia.cleanup(dir) }
        let src = try barcoded("plan240.mp4", rate: 240, seconds: 8)
        let r = try tessera([
            "plan", src.path, "--segment-duration", "2", "--scale", "2s-4s:16s", "--frame-rate", "30", "--json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(json["outputFrameCount"] as? Int == 660)
        #expect(json["outputDuration"] as? String == "22")
        #expect(
            (json["timeMap"] as? [[String: Any]])?.map { $0["motion"] as? String } == [
                "linear ×1", "linear ×1/8", "linear ×1",
            ])
        // Planned on the output timeline: a segment every 2 s of output, inside the slowed range too.
        #expect(json["segmentStartsInOutput"] as? [Double] == stride(from: 0.0, to: 22, by: 2).map { $0 })
        #expect((json["segmentPlan"] as? [String: Any])?["frameCount"] as? Int == 660)
        let bad = try tessera(["plan", src.path, "--ramp", "1s-2s:1-0"])
        #expect(bad.status == 64 && bad.stderr.contains("--ramp"), "\(bad.stderr)")
    }
}
