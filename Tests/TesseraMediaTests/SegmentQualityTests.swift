import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// Every segment's output is measured against the frames its encoder was given, where it was made, and
/// the figures agree with FFmpeg's `psnr` and `ssim` filters run on the finished file (issue 29).
@Suite struct SegmentQualityTests {
    /// Lossless H.264 for `TestMedia.make`: a source whose frames are exactly the pictures encoded.
    static let lossless = ["-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-pix_fmt", "yuv420p"]

    /// FFmpeg's per-frame figures for `distorted` against `reference`: `mse_avg`, per-plane MSE, `All`.
    static func ffmpegFrames(
        _ distorted: URL, against reference: URL, in dir: URL
    ) throws -> [(
        mse: Double, planes: [Double], ssim: Double
    )] {
        let psnrLog = dir.appendingPathComponent("psnr.log"), ssimLog = dir.appendingPathComponent("ssim.log")
        try TestMedia.run(
            "ffmpeg",
            [
                "-v", "error", "-i", distorted.path, "-i", reference.path, "-lavfi",
                "[0:v][1:v]psnr=stats_file=\(psnrLog.path);[0:v][1:v]ssim=stats_file=\(ssimLog.path)", "-f", "null",
                "-",
            ])
        func fields(_ line: Substring) -> [String: Double] {
            Dictionary(
                line.split(separator: " ").compactMap { part -> (String, Double)? in
                    let kv = part.split(separator: ":", maxSplits: 1)
                    guard kv.count == 2, let v = Double(kv[1]) else { return nil }
                    return (String(kv[0]), v)
                }, uniquingKeysWith: { a, _ in a })
        }
        let psnr = try String(contentsOf: psnrLog, encoding: .utf8).split(separator: "\n").map(fields)
        let ssim = try String(contentsOf: ssimLog, encoding: .utf8).split(separator: "\n").map(fields)
        return zip(psnr, ssim).map { p, s in
            (p["mse_avg"] ?? .nan, [p["mse_y"] ?? .nan, p["mse_u"] ?? .nan, p["mse_v"] ?? .nan], s["All"] ?? .nan)
        }
    }

    @Test func segmentFiguresAgreeWithFFmpegFilters() throws {
        let dir = try TestMedia.makeDirectory("segment-quality")
        defer { TestMedia.cleanup(dir) }
        // A lossless source at the output's size and format: the frames given to the encoder are the
        // source's own, so FFmpeg can measure the finished file against the source file.
        let src = dir.appendingPathComponent("src.mp4")
        try TestMedia.make(
            src, seconds: 3, rate: "25", video: Self.lossless + ["-g", "25"], audio: nil)
        let out = dir.appendingPathComponent("out.mp4")
        var settings = X264Reproducibility.settings
        settings.video?.rateControl = .crf(30)
        let session = ExportSession(sourcePath: src.path, outputPath: out.path, settings: settings)
        session.segmentDuration = 1
        session.parallel = 2
        session.backend = .cpu
        let report = try session.export()
        let quality = try #require(report.quality)
        #expect(quality.segments.map(\.index) == [0, 1, 2])
        #expect(quality.segments.map(\.frames) == [25, 25, 25])
        #expect(quality.segments.map(\.start) == [0, 1, 2])
        #expect(quality.segments.allSatisfy { $0.duration == 1 && $0.crf == 30 && $0.bytes > 0 })

        let frames = try Self.ffmpegFrames(out, against: src, in: dir)
        try #require(frames.count == 75)
        func psnr(_ mse: Double) -> Double { 10 * log10(255 * 255 / mse) }
        // Per segment: mean and worst frame, PSNR from the mean MSE as the filter's "average" is.
        var first = 0
        for segment in quality.segments {
            let mine = frames[first..<first + segment.frames]
            first += segment.frames
            let mse = mine.map(\.mse).reduce(0, +) / Double(mine.count)
            #expect(abs(segment.psnr - psnr(mse)) < 0.01, "segment \(segment.index) PSNR \(segment.psnr)")
            #expect(abs(segment.minPsnr - psnr(mine.map(\.mse).max()!)) < 0.01)
            let ssim = mine.map(\.ssim).reduce(0, +) / Double(mine.count)
            #expect(abs(segment.ssim - ssim) < 0.0005, "segment \(segment.index) SSIM \(segment.ssim)")
            #expect(abs(segment.minSsim - mine.map(\.ssim).min()!) < 0.0005)
            for plane in 0..<3 {
                let planeMSE = mine.map { $0.planes[plane] }.reduce(0, +) / Double(mine.count)
                #expect(abs(segment.planePsnr[plane] - psnr(planeMSE)) < 0.01, "plane \(plane)")
            }
        }
        // The whole, from the segments' sums.
        let mse = frames.map(\.mse).reduce(0, +) / 75
        #expect(abs(quality.psnr - psnr(mse)) < 0.01, "job PSNR \(quality.psnr) against \(psnr(mse))")
        #expect(abs(quality.ssim - frames.map(\.ssim).reduce(0, +) / 75) < 0.0005)
        #expect(quality.psnr > 25 && quality.psnr < 60, "a lossy encode of a busy picture")
    }

    /// A one-pass export that verifies decodes its video as it is encoded: the same figures, per GOP, and
    /// the verifier reads only the packets. Without `verifyOutput` nothing is decoded or measured.
    @Test func aOnePassExportThatVerifiesIsMeasuredPerGOP() throws {
        let dir = try TestMedia.makeDirectory("one-pass-quality")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4")
        try TestMedia.make(src, seconds: 3, rate: "25", video: Self.lossless, audio: nil)
        var settings = X264Reproducibility.settings
        settings.video?.gopLength = 25
        let out = dir.appendingPathComponent("out.mp4")
        let session = ExportSession(sourcePath: src.path, outputPath: out.path, settings: settings)
        session.backend = .cpu
        session.verifyOutput = true
        let report = try session.export()
        let quality = try #require(report.quality)
        #expect(quality.segments.map(\.frames) == [25, 25, 25], "one entry per GOP")
        #expect(quality.segments.map(\.start) == [0, 1, 2])
        #expect(
            report.verification?.check(.decodable)?.detail.contains("decoded and measured as they were encoded") == true
        )
        let frames = try Self.ffmpegFrames(out, against: src, in: dir)
        let mse = frames.map(\.mse).reduce(0, +) / Double(frames.count)
        #expect(abs(quality.psnr - 10 * log10(255 * 255 / mse)) < 0.01)
        #expect(abs(quality.ssim - frames.map(\.ssim).reduce(0, +) / Double(frames.count)) < 0.0005)

        let plain = ExportSession(
            sourcePath: src.path, outputPath: dir.appendingPathComponent("plain.mp4").path, settings: settings)
        plain.backend = .cpu
        #expect(try plain.export().quality == nil)
    }

    @Test func timingLevelMeasuresNothing() throws {
        let dir = try TestMedia.makeDirectory("segment-quality-timing")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4")
        try TestMedia.make(
            src, seconds: 1, width: 320, height: 240,
            video: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "12", "-pix_fmt", "yuv420p"])
        let (decoded, _) = try VerificationLevelTests.export(
            src, to: dir.appendingPathComponent("d.mp4"), level: .decode)
        let (timed, _) = try VerificationLevelTests.export(src, to: dir.appendingPathComponent("t.mp4"), level: .timing)
        #expect(decoded.quality?.segments.count == 2)
        #expect(timed.quality == nil)
    }

    /// Two seconds of an easy picture, two of noise: a source whose segments need different factors.
    static func variedSource(in dir: URL) throws -> URL {
        let src = dir.appendingPathComponent("varied.mp4")
        try TestMedia.variedComplexity(src)
        return src
    }

    @Test func aTargetIsMetOnEverySegmentWithTheFactorEachNeeds() throws {
        let dir = try TestMedia.makeDirectory("target-quality")
        defer { TestMedia.cleanup(dir) }
        let src = try Self.variedSource(in: dir)
        let out = dir.appendingPathComponent("out.mp4")
        // Starting at crf 40, which the noise misses: its segments probe again, lower.
        var settings = X264Reproducibility.settings
        settings.video?.rateControl = .crf(40)
        let session = ExportSession(sourcePath: src.path, outputPath: out.path, settings: settings)
        session.segmentDuration = 1
        session.parallel = 2
        session.backend = .cpu
        let target = TargetQuality(metric: .ssim, value: 0.95)
        session.targetQuality = target
        let report = try session.export()
        let quality = try #require(report.quality)
        #expect(quality.target == "ssim:0.95")
        #expect(quality.short.isEmpty)
        #expect(quality.segments.count == 4)
        // What the report says each segment measured is what FFmpeg's filter measures in the file.
        let frames = try Self.ffmpegFrames(out, against: src, in: dir)
        var first = 0
        for segment in quality.segments {
            let ssim = frames[first..<first + segment.frames].map(\.ssim).reduce(0, +) / Double(segment.frames)
            first += segment.frames
            #expect(abs(segment.ssim - ssim) < 0.0005, "segment \(segment.index)")
            #expect(ssim >= 0.95 - 0.002, "segment \(segment.index) measures \(ssim) against a target of 0.95")
            // Every probe is listed; the delivered one is among them and meets the target.
            let crf = try #require(segment.crf)
            let delivered = try #require(segment.probes.first { $0.crf == crf })
            #expect(delivered.value >= 0.948 && delivered.bytes == segment.bytes)
            #expect(segment.probes.first?.crf == 40 && segment.probes.count <= 4)
        }
        // The noise missed at 40 and went lower; the easy picture kept a higher factor.
        let noise = quality.segments[2...].compactMap(\.crf), easy = quality.segments[..<2].compactMap(\.crf)
        #expect(noise.allSatisfy { $0 < 40 }, "\(quality.segments.map(\.probes))")
        #expect(quality.segments[2].probes[0].value < 0.948, "the first probe missed")
        #expect(easy.min()! > noise.max()!, "easy \(easy), noise \(noise)")
        #expect(quality.encodesPerFrame > 1 && quality.probes == quality.segments.reduce(0) { $0 + $1.probes.count })
    }

    /// Segments of 50 frames: each search begins with two samples of 15 frames (three runs of 5), then whole
    /// encodes aimed by them. Only a whole encode is delivered, it meets the target as FFmpeg measures the
    /// file, and the report says how far the samples' line was from it. `samples: false` encodes only whole.
    @Test func samplesAimTheSearchAndTheirErrorIsReported() throws {
        let dir = try TestMedia.makeDirectory("target-samples")
        defer { TestMedia.cleanup(dir) }
        let src = try Self.variedSource(in: dir)
        func export(samples: Bool?) throws -> (QualityReport, URL) {
            let out = dir.appendingPathComponent("out-\(samples.map(String.init) ?? "auto").mp4")
            let session = ExportSession(
                sourcePath: src.path, outputPath: out.path, settings: X264Reproducibility.settings)
            session.segmentDuration = 2
            session.parallel = 2
            session.backend = .cpu
            session.targetQuality = TargetQuality(metric: .ssim, value: 0.95, samples: samples)
            return (try #require(try session.export().quality), out)
        }
        let (quality, out) = try export(samples: nil)
        #expect(quality.short.isEmpty && quality.segments.count == 2)
        let frames = try Self.ffmpegFrames(out, against: src, in: dir)
        var first = 0
        for segment in quality.segments {
            #expect(segment.frames == 50)
            let ssim = frames[first..<first + segment.frames].map(\.ssim).reduce(0, +) / Double(segment.frames)
            first += segment.frames
            #expect(abs(segment.ssim - ssim) < 0.0005 && ssim >= 0.948, "segment \(segment.index): \(ssim)")
            let samples = segment.probes.prefix(2)
            #expect(samples.allSatisfy { $0.sampleFrames == 15 }, "\(segment.probes)")
            let whole = segment.probes.dropFirst(2)
            #expect(!whole.isEmpty && whole.count <= 4 && whole.allSatisfy { $0.sampleFrames == nil })
            let crf = try #require(segment.crf)
            let delivered = try #require(whole.first { $0.crf == crf }, "the delivered encode is a whole one")
            #expect(delivered.bytes == segment.bytes)
            // The samples' line at the delivered factor, on SSIM's dB scale, less what the segment measured.
            let db = { (v: Double) in -10 * log10(1 - v) }
            let (a, b) = (samples.first!, samples.last!)
            let line = db(a.value) + (db(b.value) - db(a.value)) / (b.crf - a.crf) * (crf - a.crf)
            let error = try #require(segment.sampleError)
            #expect(abs(error - ((1 - pow(10, -line / 10)) - delivered.value)) < 1e-5, "\(segment.probes)")
        }
        #expect(quality.worstSampleError == quality.segments.compactMap(\.sampleError).max { abs($0) < abs($1) })
        // Samples count as a third of an encode each.
        let encoded = quality.segments.reduce(0) { s, seg in s + seg.probes.reduce(0) { $0 + ($1.sampleFrames ?? 50) } }
        #expect(abs(quality.encodesPerFrame - Double(encoded) / 100) < 0.001)

        let (wholeOnly, _) = try export(samples: false)
        #expect(wholeOnly.short.isEmpty)
        #expect(
            wholeOnly.segments.allSatisfy { $0.probes.allSatisfy { $0.sampleFrames == nil } && $0.sampleError == nil })
        #expect(wholeOnly.worstSampleError == nil)
    }

    @Test func aTargetTheRangeCannotReachIsDeliveredAtItsBestAndNamed() throws {
        let dir = try TestMedia.makeDirectory("target-short")
        defer { TestMedia.cleanup(dir) }
        let src = try Self.variedSource(in: dir)
        let out = dir.appendingPathComponent("out.mp4")
        let session = ExportSession(sourcePath: src.path, outputPath: out.path, settings: X264Reproducibility.settings)
        session.segmentDuration = 1
        session.backend = .cpu
        session.targetQuality = TargetQuality(metric: .psnr, value: 60, crfRange: 30...45)
        let report = try session.export()
        let quality = try #require(report.quality)
        #expect(quality.short == [0, 1, 2, 3], "\(quality.segments.map(\.psnr))")
        for segment in quality.segments {
            #expect(segment.crf == 30, "the best factor allowed")
            #expect((segment.shortfall ?? 0) > 0 && abs(segment.shortfall! - (60 - segment.psnr)) < 0.01)
            #expect(segment.probes.count <= 4)
        }
    }

    /// A cap (capped CRF): a target the cap keeps out of reach is delivered within the cap and named short;
    /// without the cap the same target spends several times the bits.
    @Test func aBitRateCapHoldsAndNamesTheTargetItKeepsOutOfReach() throws {
        let dir = try TestMedia.makeDirectory("target-cap")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("grain.mp4")
        try TestMedia.run(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-vf",
                "noise=alls=20:allf=t,format=yuv420p", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-g",
                "25", src.path,
            ])
        func export(cap: Int?) throws -> QualityReport {
            let session = ExportSession(
                sourcePath: src.path, outputPath: dir.appendingPathComponent("out-\(cap ?? 0).mp4").path,
                settings: X264Reproducibility.settings)
            session.segmentDuration = 2
            session.backend = .cpu
            session.targetQuality = TargetQuality(metric: .ssim, value: 0.99, maxBitRate: cap)
            return try #require(try session.export().quality)
        }
        let cap = 300_000
        let capped = try export(cap: cap), free = try export(cap: nil)
        for segment in capped.segments {
            #expect(segment.bitRate <= 1.5 * Double(cap), "segment \(segment.index): \(segment.bitRate) b/s")
        }
        #expect(!capped.short.isEmpty, "the cap keeps 0.99 out of reach: \(capped.segments.map(\.ssim))")
        #expect(free.short.isEmpty && free.segments.allSatisfy { $0.bitRate > 3 * Double(cap) })
    }

    /// Segments of one job at different factors concatenate for every encoder a target can search: x264
    /// (`stitchable`), x265 (no options SEI in its headers), SVT-AV1 and libvpx.
    @Test(arguments: [(VideoCodec.hevc, "ultrafast"), (.av1, "12"), (.vp9, "8"), (.h264, "superfast")])
    func segmentsAtDifferentFactorsStitch(codec: VideoCodec, speed: String) throws {
        let dir = try TestMedia.makeDirectory("target-stitch")
        defer { TestMedia.cleanup(dir) }
        let src = try Self.variedSource(in: dir)
        let out = dir.appendingPathComponent("out.mkv")
        let session = ExportSession(
            sourcePath: src.path, outputPath: out.path,
            settings: OutputSettings(video: VideoSettings(codec: codec, speed: speed), audio: nil))
        session.segmentDuration = 1
        session.backend = .cpu
        session.targetQuality = TargetQuality(metric: .ssim, value: 0.95)
        let report = try session.export()
        let crfs = Set(try #require(report.quality).segments.compactMap(\.crf))
        #expect(crfs.count > 1, "\(codec): the segments chose \(crfs)")
        #expect(report.verification?.passed == true)
    }

    @Test func aTargetWithPassthroughIsRefusedBeforeAnyWork() throws {
        let dir = try TestMedia.makeDirectory("target-passthrough")
        defer { TestMedia.cleanup(dir) }
        let src = try Self.variedSource(in: dir)
        let out = dir.appendingPathComponent("out.mp4")
        let session = ExportSession(
            sourcePath: src.path, outputPath: out.path, settings: ExportPreset.passthrough.settings)
        session.targetQuality = TargetQuality(metric: .ssim, value: 0.97)
        #expect {
            try session.export()
        } throws: { error in
            (error as? MediaError)?.kind == .invalidArgument && "\(error)".contains("passthrough")
        }
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
