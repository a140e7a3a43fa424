import Foundation
import PropertyBased
import TesseraCore
import Testing

@testable import TesseraWire

@Suite struct ConversionTests {
    @Test func segmentWorkCrossesTheWireUnchanged() async throws {
        await propertyCheck(count: 300, input: Gen.uint64()) { seed in
            var generator = WorkGenerator(seed: seed)
            let work = generator.segmentWork()
            let task = try Tessera_V1_SegmentTask(work)
            // Through bytes, as it travels.
            let bytes: Data = try task.serializedBytes()
            let back = try SegmentWork(wire: Tessera_V1_SegmentTask(serializedBytes: bytes))
            #expect(back == work, "seed \(seed)")
        }
    }

    @Test func segmentOutputCrossesTheWireUnchanged() async throws {
        await propertyCheck(count: 300, input: Gen.uint64()) { seed in
            var generator = WorkGenerator(seed: seed)
            let output = generator.segmentOutput()
            let bytes: Data = try Tessera_V1_SegmentOutput(output).serializedBytes()
            let back = try SegmentOutput(wire: Tessera_V1_SegmentOutput(serializedBytes: bytes), index: output.index)
            #expect(back == output, "seed \(seed)")
        }
    }

    @Test func videoSettingsCrossTheWireUnchanged() async throws {
        await propertyCheck(count: 300, input: Gen.uint64()) { seed in
            var generator = WorkGenerator(seed: seed)
            let settings = generator.settings()
            let wire = try Tessera_V1_VideoSettings(settings)
            #expect(try VideoSettings(wire: wire) == settings, "seed \(seed)")
        }
    }

    @Test func videoSettingsOnTheWireUseTheProtocolsNames() throws {
        let settings = VideoSettings(
            codec: .hevc, maxWidth: 1920, rateControl: .bitRate(4_000_000),
            pixelFormat: .yuv420p10le, level: 51)
        let wire = try Tessera_V1_VideoSettings(settings)
        #expect(wire.codec == "hevc")
        #expect(wire.maxWidth == 1920 && wire.maxHeight == 0)
        #expect(wire.rateControl == .bitRate(4_000_000))
        #expect(wire.pixelFormat == "yuv420p10le" && wire.speed == "" && wire.profile == "")
        #expect(wire.level == 51 && wire.gopLength == 0)
    }

    @Test func fractionsRoundTripAndAZeroDenominatorIsRefused() throws {
        for fraction in [Fraction(1, 90000), Fraction(30000, 1001), Fraction(0, 1), Fraction(-3, 7)] {
            #expect(try Fraction(wire: Tessera_V1_Rational(fraction)) == fraction)
        }
        var zero = Tessera_V1_Rational()
        zero.num = 1
        do {
            _ = try Fraction(wire: zero, field: "task.frame_rate")
            Issue.record("accepted 1/0")
        } catch {
            #expect(error.kind == .malformed && error.message.hasPrefix("task.frame_rate "))
        }
    }

    @Test func mirroredRotationSurvives() throws {
        var generator = WorkGenerator(seed: 42)
        var work = generator.segmentWork()
        work.rotation = Rotation(degrees: 270, mirrored: true)
        let task = try Tessera_V1_SegmentTask(work)
        #expect(task.rotationDegrees == 270 && task.rotationMirrored)
        #expect(try SegmentWork(wire: task).rotation == work.rotation)
    }

    /// A valid task with one field broken on the wire, and the field the error must name.
    static let brokenTasks: [(String, @Sendable (inout Tessera_V1_SegmentTask) -> Void)] = [
        ("task.settings.codec", { $0.settings.codec = "mpeg2" }),
        ("task.rendition_targets", { $0.renditionTargets = [Tessera_V1_RenditionTarget()] }),
        ("task.settings.rate_control", { $0.settings.rateControl = nil }),
        ("task.spec.output_end_frame", { $0.spec.outputEndFrame = $0.spec.outputFirstFrame &- 1 }),
        ("task.spec.presentation_end", { $0.spec.presentationEnd = $0.spec.presentationStart - 1 }),
        ("task.spec.decode_end_packet", { $0.spec.decodeEndPacket = $0.spec.decodeFirstPacket &- 1 }),
        ("task.spec.time_map", { $0.spec.clearTimeMap() }),
        ("task.spec.time_map.rate", { $0.spec.timeMap.rate.den = 0 }),
        ("task.spec.time_map.rate", { $0.spec.timeMap.rate = Tessera_V1_Rational(Fraction(2, 1)) }),
        ("task.time_base", { $0.timeBase.den = 0 }),
        ("task.time_base", { $0.clearTimeBase() }),
        ("task.frame_rate", { $0.frameRate.den = -25 }),
        ("task.source.sample_aspect_ratio", { $0.source.sampleAspectRatio.den = 0 }),
        ("task.source.codec", { $0.source.codec = "" }),
        ("task.source.width/height", { $0.source.width = -2 }),
        ("task.rotation_degrees", { $0.rotationDegrees = 45 }),
        ("task.packets", { $0.packets.append(Tessera_V1_Packet()) }),
        ("task.packets[1].duration", { $0.packets[1].duration = -1 }),
        ("task.spec", { $0.clearSpec() }),
        ("task.source", { $0.clearSource() }),
        ("task.settings", { $0.clearSettings() }),
        // A retimed task's map and grid, as a hostile peer could break them.
        ("task.retime.pieces", { $0.retime.pieces = [] }),
        ("task.retime.pieces", { $0.retime.pieces = Array(repeating: $0.retime.pieces[0], count: 5000) }),
        ("task.retime.pieces[0].output_duration", { $0.retime.pieces[0].outputDuration.den = 0 }),
        ("task.retime.pieces[0].output_start", { $0.retime.pieces[0].outputStart.num = -1 }),
        (
            "task.retime.pieces[1].output_start",
            {
                var p = $0.retime.pieces[0]
                p.outputStart.num = 5
                $0.retime.pieces.append(p)
            }
        ),
        // A composition's run may start later, but the segment's frames lie inside it.
        ("task.retime", { $0.retime.pieces[0].outputStart.num = 7 }),
        ("task.retime.pieces[0]", { $0.retime.pieces[0].outputDuration.num = -1 }),
        ("task.retime.pieces[0]", { $0.retime.pieces[0].sourceDuration.num *= 1000 }),
        ("task.retime.pieces[0].asset", { $0.retime.pieces[0].asset = 1 }),
        ("task.retime.pieces[0].motion", { $0.retime.pieces[0].motion = .UNRECOGNIZED(9) }),
        ("task.retime.frame_duration", { $0.retime.frameDuration = .init() }),
        ("task.retime.frame_duration", { $0.retime.frameDuration.num = 31 }),
        ("task.retime.frame_duration", { $0.retime.frameDuration.den = 1 << 40 }),
        ("task.retime.selection", { $0.retime.selection = .UNRECOGNIZED(3) }),
        ("task.retime.origin", { $0.retime.origin.den = -1 }),
        ("task.retime", { $0.spec.outputEndFrame = 1 << 40 }),
        // A composition's layer.
        ("task.hdr.primaries", { $0.hdr.primaries = [0.68, 0.32, 0.265] }),
        (
            "task.hdr.primaries",
            {
                $0.hdr.primaries = [0.68, 0.32, 0.265, 0.69, 0.15, .nan]
                $0.hdr.whitePoint = [0.3127, 0.329]
            }
        ),
        (
            "task.hdr.max_luminance",
            {
                $0.hdr.primaries = [0.68, 0.32, 0.265, 0.69, 0.15, 0.06]
                $0.hdr.whitePoint = [0.3127, 0.329]
                $0.hdr.maxLuminance = .infinity
            }
        ),
        ("task.hdr.max_content_light_level", { $0.hdr.maxContentLightLevel = 70000 }),
        // An HDR source's tone map: only PQ or HLG, a peak that is a brightness, a black below it.
        (
            "task.tone_map_curve.transfer",
            {
                $0.toneMap = true
                $0.toneMapCurve.transfer = "bt709"
            }
        ),
        (
            "task.tone_map_curve.source_peak",
            {
                $0.toneMap = true
                $0.toneMapCurve.transfer = "smpte2084"
                $0.toneMapCurve.sourcePeak = .nan
            }
        ),
        (
            "task.tone_map_curve.source_peak",
            {
                $0.toneMap = true
                $0.toneMapCurve.transfer = "arib-std-b67"
                $0.toneMapCurve.sourcePeak = 20_000
            }
        ),
        (
            "task.tone_map_curve.source_black",
            {
                $0.toneMap = true
                $0.toneMapCurve.transfer = "smpte2084"
                $0.toneMapCurve.sourcePeak = 1000
                $0.toneMapCurve.sourceBlack = 1000
            }
        ),
        ("task.target_quality.metric", { $0.targetQuality.metric = "vmaf" }),
        ("task.deinterlace", { $0.deinterlace = "nnedi" }),
        (
            "task.target_quality.value",
            {
                $0.targetQuality.metric = "ssim"
                $0.targetQuality.value = .nan
            }
        ),
        (
            "task.target_quality.crf_min",
            {
                $0.targetQuality.metric = "ssim"
                $0.targetQuality.value = 0.9
                $0.targetQuality.crfMin = 40
                $0.targetQuality.crfMax = 18
            }
        ),
        ("task.layer.render_width", { $0.layer.renderWidth = 17 }),
        ("task.layer.render_height", { $0.layer.renderHeight = 100_000 }),
        ("task.layer.background", { $0.layer.background = 0x100_0000 }),
        ("task.layer.transform.scale", { $0.layer.transform.scale = .nan }),
        ("task.layer.transform.rotate", { $0.layer.transform.rotate = .infinity }),
        ("task.layer.transform.x", { $0.layer.transform.x = 1 << 20 }),
        ("task.layer.transform_ramps[0]", { $0.layer.transformRamps[0].end = $0.layer.transformRamps[0].start }),
        ("task.layer.transform_ramps[0].start", { $0.layer.transformRamps[0].start.den = 0 }),
        ("task.layer.transform_ramps[0].to.scale", { $0.layer.transformRamps[0].to.scale = 1e9 }),
        ("task.layer.opacity[0]", { $0.layer.opacity[0].to = 2 }),
        ("task.layer", { $0.layer.opacity = Array(repeating: $0.layer.opacity[0], count: 600) }),
        ("task.layer.gap", { $0.layer.gap = true }),
        (
            "task.spec.output_end_frame",
            {
                $0.clearRetime()
                $0.layer.gap = true
                $0.spec.outputEndFrame = 1 << 30
            }
        ),
    ]

    @Test(arguments: brokenTasks.indices)
    func malformedTasksAreRejectedNamingTheField(case index: Int) throws {
        let (field, breakIt) = Self.brokenTasks[index]
        var generator = WorkGenerator(seed: 7)
        var work = generator.segmentWork()
        work.spec.decodePackets = 10..<13
        work.packets = generator.packets(3, maxBytes: 10)
        // A linear piece 1 s → 2 s of output, at 30 fps: 60 frames, the segment making 10..<20.
        let slow = TimeMap.Piece(
            asset: 0, sourceStart: .zero, sourceDuration: .one, outputStart: .zero, outputDuration: Rational(2),
            motion: .linear)
        work.retime = SegmentRetime(
            map: TimeMap(pieces: [slow]), frameDuration: Rational(1, 30), selection: .hold, origin: .zero,
            rangeStartTick: 0)
        work.spec.outputFrames = 10..<20
        let turned = CompositionSpec.Transform(scale: 0.5, rotate: 30, x: -10, y: 4)
        work.layer = SegmentLayer(
            renderWidth: 192, renderHeight: 16, background: 0x10_2030, isGap: false,
            transforms: LayerTransformTrack(
                base: turned,
                ramps: [.init(start: .one, end: Rational(2), from: turned, to: .init(scale: 1, x: 0, y: 0))]),
            opacity: [.init(start: .zero, end: .one, from: 0, to: 1)])
        var task = try Tessera_V1_SegmentTask(work)
        #expect(try SegmentWork(wire: task) == work)
        breakIt(&task)
        do {
            _ = try SegmentWork(wire: task)
            Issue.record("accepted a task with a broken \(field)")
        } catch {
            #expect(error.kind == .malformed)
            #expect(error.message.hasPrefix(field + " "), "\(error.message)")
        }
    }

    @Test func malformedOutputsAreRejectedNamingTheField() throws {
        var generator = WorkGenerator(seed: 3)
        var output = try Tessera_V1_SegmentOutput(generator.segmentOutput())
        output.encodeSeconds = .nan
        #expect(throws: WireError.self) { try SegmentOutput(wire: output, index: 0) }
        output.encodeSeconds = 1
        output.clearParameters()
        do {
            _ = try SegmentOutput(wire: output, index: 0)
            Issue.record("accepted an output without parameters")
        } catch {
            #expect(error.kind == .malformed && error.message.hasPrefix("output.parameters"))
        }
    }

    /// A search's factors travel with their tenths (`rate_factor`) and rounded (`crf`, which a coordinator of
    /// an earlier build reads); a result from an earlier worker, with `crf` alone, reads as whole steps. A
    /// factor that is not one, or a sample longer than its segment, is refused naming the field.
    @Test func rateFactorsKeepTheirTenthsAndAreRangeChecked() throws {
        var generator = WorkGenerator(seed: 7)
        var output = generator.segmentOutput()
        output.frames = 120
        output.crf = 13.7
        output.probes = [
            QualityProbe(crf: 23, value: 0.95, bytes: 10_000, sampleFrames: 40),
            QualityProbe(crf: 13.7, value: 0.971, bytes: 90_000),
        ]
        let wire = try Tessera_V1_SegmentOutput(output)
        #expect(wire.crf == 14 && wire.rateFactor == 13.7 && wire.probes[0].sampleFrames == 40)
        let back = try SegmentOutput(wire: wire, index: 0)
        #expect(back.crf == 13.7 && back.probes == output.probes)
        var earlier = wire
        earlier.clearRateFactor()
        earlier.probes[1].clearRateFactor()
        let old = try SegmentOutput(wire: earlier, index: 0)
        #expect(old.crf == 14 && old.probes[1].crf == 14)
        let cases: [(String, (inout Tessera_V1_SegmentOutput) -> Void)] = [
            ("output.rate_factor", { $0.rateFactor = .nan }),
            ("output.rate_factor", { $0.rateFactor = 64 }),
            (
                "output.crf",
                {
                    $0.clearRateFactor()
                    $0.crf = 70
                }
            ),
            ("output.probes[1].rate_factor", { $0.probes[1].rateFactor = -0.5 }),
            ("output.probes[0].sample_frames", { $0.probes[0].sampleFrames = 121 }),
        ]
        for (field, breakIt) in cases {
            var bad = wire
            breakIt(&bad)
            do {
                _ = try SegmentOutput(wire: bad, index: 0)
                Issue.record("accepted a result with a bad \(field)")
            } catch {
                #expect(error.kind == .malformed && error.message.hasPrefix(field), "\(error.message)")
            }
        }
        output.crf = .infinity
        #expect(throws: WireError.self) { try Tessera_V1_SegmentOutput(output) }
    }

    /// A worker's quality figures are its word, but never out of range: a lying or broken worker cannot
    /// put a non-number, an impossible error or another frame count into a job's report.
    @Test func qualityOutOfRangeIsRefusedNamingTheField() throws {
        var generator = WorkGenerator(seed: 5)
        var output = generator.segmentOutput()
        output.frames = 10
        output.probes = []
        output.quality = generator.quality(frames: 10)
        let good = try Tessera_V1_SegmentOutput(output)
        #expect(try SegmentOutput(wire: good, index: 0).quality == output.quality)
        let cases: [(String, (inout Tessera_V1_SegmentQuality) -> Void)] = [
            ("output.quality.frames", { $0.frames = 11 }),
            ("output.quality.peak", { $0.peak = 300 }),
            ("output.quality.mse_sum", { $0.mseSum = .nan }),
            ("output.quality.mse_sum", { $0.mseSum = -1 }),
            ("output.quality.worst_mse", { $0.worstMse = .infinity }),
            ("output.quality.worst_mse", { $0.worstMse = 255 * 255 + 1 }),
            ("output.quality.plane_mse_sums", { $0.planeMseSums = [1, 1, 1, 1, 1] }),
            ("output.quality.ssim_sum", { $0.ssimSum = 11 }),
            ("output.quality.min_ssim", { $0.minSsim = -1.5 }),
        ]
        for (field, breakIt) in cases {
            var bad = good
            bad.quality.peak = 255
            breakIt(&bad.quality)
            do {
                _ = try SegmentOutput(wire: bad, index: 0)
                Issue.record("accepted a result with a bad \(field)")
            } catch {
                #expect(error.kind == .malformed && error.message.hasPrefix(field), "\(error.message)")
            }
        }
    }

    @Test func valuesTheWireCannotCarryAreRefusedWhenEncoding() throws {
        var generator = WorkGenerator(seed: 11)
        var work = generator.segmentWork()
        let cases: [(String, (inout SegmentWork) -> Void)] = [
            ("task.source.width", { $0.source.width = 1 << 40 }),
            ("task.spec.output_first_frame", { $0.spec.outputFrames = -5..<3 }),
            ("task.settings.max_width", { $0.settings.maxWidth = 0 }),
            ("task.settings.speed", { $0.settings.speed = "" }),
            ("task.settings.crf", { $0.settings.rateControl = .crf(-1) }),
            ("task.time_base", { $0.timeBase = Rational(0) }),
            (
                "task.packets",
                {
                    $0.packets.removeAll()
                    $0.spec.decodePackets = 0..<1
                }
            ),
        ]
        for (field, breakIt) in cases {
            var broken = work
            breakIt(&broken)
            do {
                _ = try Tessera_V1_SegmentTask(broken)
                Issue.record("encoded a work item with a bad \(field)")
            } catch {
                #expect(error.kind == .unrepresentable)
                #expect(error.message.hasPrefix(field), "\(error.message)")
            }
        }
        work.settings.maxWidth = nil
        #expect(try SegmentWork(wire: Tessera_V1_SegmentTask(work)) == work)
    }
}
