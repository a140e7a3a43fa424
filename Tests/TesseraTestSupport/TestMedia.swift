import Foundation

/// Test media made at run time with the ffmpeg CLI (an independent tool, used only by tests and
/// benchmarks), plus independent checks of outputs with ffprobe/ffmpeg.
public enum TestMedia {
    public struct ToolFailure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// A fresh temporary directory, removed by the caller with `cleanup(_:)`.
    public static func makeDirectory(_ label: String = "tessera") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    public static func cleanup(_ url: URL) { try? FileManager.default.removeItem(at: url) }

    /// Runs a tool, returning stdout; throws with stderr's tail when it exits non-zero.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let result = try runCapturing(tool, arguments)
        guard result.status == 0 else {
            throw ToolFailure(
                description: "\(tool) \(arguments.joined(separator: " ")) exited \(result.status): "
                    + String(result.stderr.suffix(1500)))
        }
        return result.stdout
    }

    /// Runs a program and returns its exit status, stdout and stderr.
    public static func runCapturing(
        _ tool: String, _ arguments: [String], environment: [String: String]? = nil
    )
        throws -> (status: Int32, stdout: String, stderr: String)
    {
        let r = try runCapturingBytes(tool, arguments, environment: environment)
        return (r.status, String(decoding: r.stdout, as: UTF8.self), r.stderr)
    }

    /// `runCapturing` with stdout as bytes (raw video piped out of ffmpeg).
    public static func runCapturingBytes(
        _ tool: String, _ arguments: [String], environment: [String: String]? = nil
    )
        throws -> (status: Int32, stdout: Data, stderr: String)
    {
        let process = Process()
        process.executableURL = tool.hasPrefix("/") ? URL(fileURLWithPath: tool) : URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = tool.hasPrefix("/") ? arguments : [tool] + arguments
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes concurrently so a chatty child cannot fill one and block.
        nonisolated(unsafe) var errData = Data()
        let errReader = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
        errReader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errReader.isFinished { usleep(1000) }
        return (process.terminationStatus, outData, String(decoding: errData, as: UTF8.self))
    }

    /// Where a white box drawn in the source's top-left corner lands once ffmpeg itself applies the
    /// display matrix (autorotate), as a clockwise rotation of the picture; a still (PNG) has none.
    public static func clockwiseRotationShownByFFmpeg(
        _ url: URL, dir: URL
    ) throws -> (degrees: Int, width: Int, height: Int) {
        let frame = dir.appendingPathComponent("frame.pgm")
        try TestMedia.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-i", url.path, "-frames:v", "1",
                "-c:v", "pgm", "-f", "image2", frame.path,
            ])
        // Binary PGM: "P5\n<width> <height>\n255\n" then one byte per pixel.
        let bytes = [UInt8](try Data(contentsOf: frame))
        var fields: [String] = [], field = "", offset = 0
        while fields.count < 4, offset < bytes.count {
            let c = bytes[offset]
            offset += 1
            if c == 0x20 || c == 0x0A {
                if !field.isEmpty { fields.append(field) }
                field = ""
            } else {
                field.append(Character(UnicodeScalar(c)))
            }
        }
        let (width, height) = (Int(fields[1]) ?? 0, Int(fields[2]) ?? 0)
        let pixels = bytes[offset...]
        let white = { (x: Int, y: Int) in pixels[offset + y * width + x] > 128 }
        if white(4, 4) { return (0, width, height) }
        if white(width - 5, 4) { return (90, width, height) }
        if white(width - 5, height - 5) { return (180, width, height) }
        if white(4, height - 5) { return (270, width, height) }
        return (-1, width, height)
    }

    /// Bytes no demuxer recognises, the same on every run: xorshift64 from a fixed seed. Truly random
    /// bytes are occasionally claimed by a demuxer (an MP3 sync word in the noise), which made tests flaky.
    public static func garbage(count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> Data {
        var state = seed
        return Data(
            (0..<count).map { _ in
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                return UInt8(truncatingIfNeeded: state >> 32)
            })
    }

    /// Copies `plain` to `url` with its video tagged `rotate=degrees`, as a phone writes it (FFmpeg 5.1
    /// turns the tag into a counter-clockwise display matrix: 270 is shown 90° clockwise).
    public static func tagRotation(_ plain: URL, _ degrees: Int, to url: URL) throws {
        try run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-i", plain.path, "-c", "copy", "-metadata:s:v:0",
                "rotate=\(degrees)", url.path,
            ])
    }

    /// `make`'s video options for an HDR10 clip as x265 writes one: 10-bit, BT.2020/PQ, the mastering
    /// display (red 0.68,0.32, green 0.265,0.69, blue 0.15,0.06, D65, 0.0001–1000 cd/m²) and light levels
    /// (MaxCLL 1000, MaxFALL 400) in every keyframe's SEI; `keyint` frames between keyframes.
    public static func hdr10Video(keyint: Int = 250) -> [String] {
        [
            "-pix_fmt", "yuv420p10le", "-c:v", "libx265", "-x265-params",
            "hdr10=1:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:max-cll=1000,400:keyint=\(keyint):"
                + "master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):log-level=error",
        ]
    }

    /// Makes a clip with ffmpeg: `testsrc2` video and/or `sine` audio, encoded as asked.
    ///
    /// - Parameters:
    ///   - video: e.g. `["-c:v", "libx264", "-bf", "3"]`; nil for no video.
    ///   - audio: e.g. `["-c:a", "aac"]`; nil for no audio.
    public static func make(
        _ url: URL, seconds: Double, width: Int = 320, height: Int = 240, rate: String = "30",
        video: [String]? = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"],
        audio: [String]? = ["-c:a", "aac", "-b:a", "96k"], sampleRate: Int = 48_000,
        extra: [String] = []
    ) throws {
        var args = ["-hide_banner", "-loglevel", "error", "-y"]
        if video != nil {
            args += ["-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=\(rate):duration=\(seconds)"]
        }
        if audio != nil {
            args += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=\(sampleRate):duration=\(seconds)"]
        }
        args += (video ?? ["-vn"]) + (audio ?? ["-an"]) + extra + [url.path]
        try run("ffmpeg", args)
    }

    /// 4 s of 320x240 25 fps, nearly lossless: 2 s of the moving test pattern, then 2 s of noise. A source
    /// whose segments need different rate factors (target-quality tests).
    public static func variedComplexity(_ url: URL) throws {
        try run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-f", "lavfi",
                "-i", "color=c=gray:size=320x240:rate=25:duration=2", "-filter_complex",
                "[1]noise=alls=60:allf=t[n];[0][n]concat=n=2:v=1,format=yuv420p", "-c:v", "libx264", "-preset",
                "ultrafast", "-qp", "0", "-g", "25", url.path,
            ])
    }

    /// ffprobe's JSON for a file (`-show_format -show_streams`, plus `-count_frames` when asked).
    public static func probe(_ url: URL, countFrames: Bool = false) throws -> [String: Any] {
        var args = ["-v", "error", "-print_format", "json", "-show_format", "-show_streams"]
        if countFrames { args.append("-count_frames") }
        let text = try run("ffprobe", args + [url.path])
        guard let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw ToolFailure(description: "ffprobe printed no JSON object for \(url.path)")
        }
        return json
    }

    /// The first stream of a type in ffprobe's JSON (`"video"`, `"audio"`).
    public static func stream(_ probe: [String: Any], _ type: String) -> [String: Any]? {
        (probe["streams"] as? [[String: Any]])?.first { $0["codec_type"] as? String == type }
    }

    /// The presentation times (seconds) of every video frame, decoded by ffprobe.
    public static func framePTS(_ url: URL, stream: String = "v:0") throws -> [Double] {
        let text = try run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", stream, "-show_entries",
                "frame=pts_time", "-of", "csv=p=0", url.path,
            ])
        // ffprobe may end a line with a comma (side data fields), so take the first field only.
        return text.split(separator: "\n").compactMap {
            Double($0.split(separator: ",").first.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "")
        }
    }

    /// The files under a folder (a streaming package), by path relative to it.
    public static func files(under folder: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for case let name as String in FileManager.default.enumerator(atPath: folder.path) ?? .init() {
            var isFolder: ObjCBool = false
            let url = folder.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
                out[name] = try Data(contentsOf: url)
            }
        }
        return out
    }

    /// The presentation times (seconds) of a file's video keyframes, from its packets.
    public static func keyframeTimes(_ url: URL) throws -> [Double] {
        try run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0",
                url.path,
            ]
        ).split(separator: "\n").filter { $0.contains("K") }.compactMap { Double($0.split(separator: ",")[0]) }
    }

    /// Where a stream's last packet ends (pts + duration, seconds), from its packets; works for containers
    /// that store no per-stream duration (Matroska, WebM).
    public static func streamEnd(_ url: URL, stream: String) throws -> Double {
        let text = try run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", stream, "-show_entries",
                "packet=pts_time,duration_time", "-of", "csv=p=0", url.path,
            ])
        return text.split(separator: "\n").compactMap { line -> Double? in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map { Double($0) }
            guard let pts = f.first ?? nil else { return nil }
            return pts + ((f.count > 1 ? f[1] : nil) ?? 0)
        }.max() ?? 0
    }

    /// Mean PSNR (dB) of `distorted` against `reference`, after scaling the reference to the distorted
    /// picture's size with bicubic; `referenceStart` skips that many seconds of the reference.
    ///
    /// Frames are paired by index (k-th with k-th), not by timestamp, so containers that round time
    /// differently (Matroska's milliseconds) still compare the same pictures.
    public static func psnr(
        _ distorted: URL, against reference: URL, width: Int, height: Int,
        referenceStart: Double = 0
    ) throws -> Double {
        let filter =
            "[1:v]trim=start=\(referenceStart),settb=1/30,setpts=N,"
            + "scale=\(width):\(height):flags=bicubic[ref];[0:v]settb=1/30,setpts=N[dist];[dist][ref]psnr=shortest=1"
        let result = try runCapturing(
            "ffmpeg",
            [
                "-hide_banner", "-i", distorted.path, "-i", reference.path,
                "-filter_complex", filter, "-f", "null", "-",
            ])
        guard result.status == 0,
            let line = result.stderr.split(separator: "\n").last(where: { $0.contains("PSNR") }),
            let avg = line.split(separator: " ").first(where: { $0.hasPrefix("average:") })
        else {
            throw ToolFailure(description: "ffmpeg psnr failed: \(result.stderr.suffix(800))")
        }
        let value = avg.dropFirst("average:".count)
        return value == "inf" ? 100 : (Double(value) ?? 0)
    }

    /// A package's track (`folder/track`) as one playable file at `url`: its init segment, then its media
    /// segments in order.
    public static func joinedTrack(_ folder: URL, _ track: String, into url: URL) throws -> URL {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(track).path)
            .filter { $0.hasPrefix("seg_") }.sorted()
        var data = try Data(contentsOf: folder.appendingPathComponent("\(track)/init.mp4"))
        for n in names { data += try Data(contentsOf: folder.appendingPathComponent("\(track)/\(n)")) }
        try data.write(to: url)
        return url
    }

    /// The repository's root folder (this file is Tests/TesseraTestSupport/TestMedia.swift).
    public static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The Python of the tools' virtual environment (Scripts/install-deps.sh): opentimelineio, jsonschema.
    public static let toolsPython = "/opt/tessera-tools/bin/python"

    /// Runs a browser harness (a Python script taking CONFIG and RESULT files) with the tools' Python, for
    /// at most 300 s: `config` written to `name`-config.json in `dir`; returns how it ran (its stdout
    /// printed), its result (nil when it wrote none) and the checks in it (`{"name", "ok", "detail"}`).
    public static func harness(
        _ script: URL, config: [String: Any], in dir: URL, name: String
    ) throws -> (
        run: (status: Int32, stdout: String, stderr: String), result: [String: Any]?, checks: [[String: Any]]
    ) {
        let configFile = dir.appendingPathComponent("\(name)-config.json")
        let resultFile = dir.appendingPathComponent("\(name)-result.json")
        try JSONSerialization.data(withJSONObject: config).write(to: configFile)
        let run = try runCapturing(
            "/usr/bin/timeout", ["300", toolsPython, script.path, configFile.path, resultFile.path])
        print("\(name) harness:\n\(run.stdout)")
        let result = (try? JSONSerialization.jsonObject(with: Data(contentsOf: resultFile))) as? [String: Any]
        return (run, result, result?["checks"] as? [[String: Any]] ?? [])
    }

    /// The built `tessera` executable beside the test bundle (`.build/<config>/tessera`).
    public static var tesseraBinary: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("tessera")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/tessera")
    }
}
