import Foundation
import TesseraCore

/// Builds varied, valid `SegmentWork` and `SegmentOutput` values from a seed, so a property test can
/// run the conversions over many shapes (nil and set optionals, both rate controls, odd sizes, empty and
/// large packets, extreme timestamps).
struct WorkGenerator {
    /// SplitMix64: small, fast, and the same sequence for the same seed on every platform.
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    private mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(bitPattern: Int64(range.upperBound &- range.lowerBound)) &+ 1
        return span == 0
            ? Int(truncatingIfNeeded: next())
            : range.lowerBound &+ Int(truncatingIfNeeded: next() % span)
    }

    mutating func int64() -> Int64 { Int64(bitPattern: next()) }
    mutating func bool() -> Bool { next() & 1 == 1 }
    mutating func maybe<T>(_ make: (inout WorkGenerator) -> T) -> T? { bool() ? make(&self) : nil }
    mutating func pick<T>(_ values: [T]) -> T { values[int(0...(values.count - 1))] }

    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }

    mutating func fraction(positive: Bool) -> Fraction {
        Fraction(int(positive ? 1...1_000_000 : 0...1_000_000), int(1...1_000_000))
    }

    /// A time base or rate as libav* has them (32-bit terms), reduced as `Rational` keeps them.
    mutating func rational(positive: Bool) -> Rational {
        Rational(Int64(int(positive ? 1...1_000_000 : 0...1_000_000)), Int64(int(1...1_000_000)))
    }

    mutating func configuration() -> CodecConfiguration {
        CodecConfiguration(
            codec: pick(["h264", "hevc", "vp9", "av1", "prores"]), codecTag: UInt32(truncatingIfNeeded: next()),
            width: int(0...8192), height: int(0...4320), pixelFormat: pick(["yuv420p", "yuv420p10le", "nv12", ""]),
            profile: int(-99...300), level: int(-99...300), extradata: bytes(int(0...200)),
            colorRange: int(0...2), colorPrimaries: int(0...22), colorTransfer: int(0...18), colorSpace: int(0...14),
            chromaLocation: int(0...6), fieldOrder: int(0...5), sampleAspectRatio: fraction(positive: false),
            bitsPerRawSample: int(0...16), videoDelay: int(0...16), bitRate: int64() & Int64.max)
    }

    mutating func settings() -> VideoSettings {
        VideoSettings(
            codec: pick(VideoCodec.allCases), maxWidth: maybe { $0.int(1...8192) },
            maxHeight: maybe { $0.int(1...8192) },
            rateControl: bool() ? .crf(int(0...63)) : .bitRate(int(0...Int.max)),
            speed: maybe { $0.pick(["veryfast", "medium", "8", "4"]) }, gopLength: maybe { $0.int(1...600) },
            pixelFormat: maybe { $0.pick([PixelFormat.yuv420p, .yuv420p10le, .nv12]) },
            profile: maybe { $0.pick(["high", "main10", "0"]) }, level: maybe { $0.int(1...62) })
    }

    mutating func packets(_ count: Int, maxBytes: Int) -> [EncodedPacket] {
        (0..<count).map { _ in
            EncodedPacket(
                data: bytes(int(0...maxBytes)), pts: int64(), dts: int64(),
                duration: Int64(int(0...1_000_000)), isKeyframe: bool())
        }
    }

    mutating func segmentWork() -> SegmentWork {
        let firstPacket = int(0...100_000)
        let packetCount = int(0...40)
        let firstFrame = int(0...1_000_000)
        let start = int64() >> 2
        let planned = SegmentSpec(
            index: int(0...10_000), outputFrames: firstFrame..<(firstFrame + int(0...500)),
            presentationRange: start..<(start + Int64(int(0...10_000_000))),
            decodePackets: firstPacket..<(firstPacket + packetCount),
            timeMap: TimeMapPiece(sourceStart: int64() >> 2, outputStart: int64() >> 2))
        var retime = maybe { $0.retime() }
        var spec = planned
        if let frames = retime?.frameCount {
            // A retimed segment's frames lie inside the export's.
            let first = int(0...Int(frames - 1))
            spec.outputFrames = first..<(first + int(1...Int(frames) - first))
        }
        if retime?.frameCount == nil { retime = nil }
        var work = SegmentWork(
            spec: spec, source: configuration(), timeBase: rational(positive: true),
            frameRate: rational(positive: false),
            rotation: Rotation(degrees: pick([0, 90, 180, 270]), mirrored: bool()),
            packets: packets(packetCount, maxBytes: 3000), settings: settings(), endTick: maybe { $0.int64() },
            sourceName: pick(["", "clip.mov", "/srv/media/ünïcode name.mp4"]),
            backend: pick(ProcessingBackend.allCases),
            checkDecodes: bool(), retime: retime,
            hdr: maybe { g in
                HDRMetadata(
                    masteringDisplay: g.bool()
                        ? .init(
                            primaries: [[0.68, 0.32], [0.265, 0.69], [0.15, 0.06]], whitePoint: [0.3127, 0.329],
                            minLuminance: Double(g.int(0...50)) / 10000, maxLuminance: Double(g.int(100...10000)))
                        : nil,
                    maxContentLightLevel: g.maybe { $0.int(0...65535) },
                    maxFrameAverageLightLevel: g.maybe { $0.int(0...65535) })
            },
            targetQuality: maybe { g in
                let low = g.int(0...30)
                return g.bool()
                    ? TargetQuality(metric: .ssim, value: Double(g.int(0...1000)) / 1000)
                    : TargetQuality(
                        metric: .psnr, value: Double(g.int(100...1000)) / 10,
                        crfRange: g.maybe { _ in low...(low + 20) },
                        maxBitRate: g.maybe { $0.int(100_000...50_000_000) }, samples: g.maybe { $0.bool() })
            })
        work.deinterlace = pick(Deinterlace.allCases)
        work.toneMap = maybe { g in
            ToneMap(
                transfer: g.bool() ? .smpte2084 : .aribStdB67, sourcePeak: Double(g.int(1...10_000)),
                sourceBlack: Double(g.int(0...1000)) / 10_000)
        }
        // SVT-AV1 takes no cap (`TargetQuality.validate`).
        if work.settings.codec == .av1 { work.targetQuality?.maxBitRate = nil }
        // Sometimes a ladder: renditions, some with their own target (never a capped AV1 one).
        if bool() {
            work.renditions = (0..<int(1...3)).map { _ in settings() }
            if bool() {
                work.renditionTargets = work.renditions.map { r in
                    maybe { g in
                        let ssim = g.bool()
                        return TargetQuality(
                            metric: ssim ? .ssim : .psnr, value: ssim ? 0.97 : 40,
                            maxBitRate: r.codec == .av1 ? nil : g.int(100_000...20_000_000))
                    }
                }
            }
        }
        return work
    }

    /// A valid time map of 1–4 pieces (linear, ramp, freeze at speeds within 1/32…32), a frame duration
    /// from 1/1000 to 1 s, any selection.
    mutating func retime() -> SegmentRetime {
        var pieces: [TimeMap.Piece] = []
        var output = Rational.zero, source = Rational(int64() >> 40, Int64(int(1...1000)))
        for _ in 0..<int(1...4) {
            let outputDuration = Rational(Int64(int(1...100_000)), Int64(int(1...1000)))
            let motion: TimeMap.Motion = pick([.linear, .freeze, .ramp(from: Rational(1, 4), to: Rational(3))])
            let sourceDuration: Rational
            switch motion {
            case .freeze: sourceDuration = .zero
            case .linear: sourceDuration = outputDuration * Rational(Int64(int(1...32)), Int64(int(1...32)))
            case .ramp(let r0, let r1): sourceDuration = outputDuration * (r0 + r1) / Rational(2)
            }
            pieces.append(
                TimeMap.Piece(
                    asset: 0, sourceStart: source, sourceDuration: sourceDuration, outputStart: output,
                    outputDuration: outputDuration, motion: motion))
            output = output + outputDuration
            source = source + sourceDuration
        }
        return SegmentRetime(
            map: TimeMap(pieces: pieces), frameDuration: Rational(1, Int64(int(1...1000))),
            selection: pick(FrameSelection.allCases), origin: Rational(int64() >> 30, Int64(int(1...48000))),
            rangeStartTick: int64())
    }

    mutating func segmentOutput() -> SegmentOutput {
        var output = SegmentOutput(
            index: int(0...10_000), parameters: configuration(),
            packets: packets(int(0...30), maxBytes: 2000), frames: int(1...100_000),
            seconds: Double(int(0...1_000_000)) / 1000, processor: pick(ProcessorKind.allCases))
        if int(0...2) > 0 { output.quality = quality(frames: output.frames) }
        if bool() {
            output.probes = (0..<int(1...4)).map { _ in
                QualityProbe(
                    crf: Double(int(0...630)) / 10, value: Double(int(0...1000)) / 1000, bytes: int(0...10_000_000),
                    sampleFrames: bool() ? int(1...output.frames) : nil)
            }
            output.crf = output.probes.first?.crf
        }
        return output
    }

    /// Figures in range for `frames` frames: every frame's error at most the worst.
    mutating func quality(frames: Int) -> QualityStats {
        var stats = QualityStats(peak: pick([255.0, 1023, 4095]))
        stats.frames = frames
        stats.worstMSE = Double(int(0...100_000)) / 1000
        stats.mseSum = stats.worstMSE * Double(int(0...frames))
        stats.planeMSESums = (0..<int(0...3)).map { _ in Double(int(0...1_000_000)) / 100 }
        stats.minSSIM = Double(int(0...1000)) / 1000
        stats.ssimSum = stats.minSSIM * Double(frames)
        return stats
    }
}
