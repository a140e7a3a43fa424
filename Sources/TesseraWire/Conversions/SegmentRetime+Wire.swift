import TesseraCore

extension Tessera_V1_Retime {
    /// - Throws: `.unrepresentable` naming the field when an exact time does not fit 64-bit terms.
    init(_ retime: SegmentRetime, field: String) throws(WireError) {
        self.init()
        for (i, piece) in retime.map.pieces.enumerated() {
            let f = "\(field).pieces[\(i)]"
            var p = Tessera_V1_RetimePiece()
            guard let asset = UInt32(exactly: piece.asset) else {
                throw WireError(.unrepresentable, "\(f).asset = \(piece.asset) does not fit 32 bits")
            }
            p.asset = asset
            p.sourceStart = try .init(exact: piece.sourceStart, field: "\(f).source_start")
            p.sourceDuration = try .init(exact: piece.sourceDuration, field: "\(f).source_duration")
            p.outputStart = try .init(exact: piece.outputStart, field: "\(f).output_start")
            p.outputDuration = try .init(exact: piece.outputDuration, field: "\(f).output_duration")
            switch piece.motion {
            case .linear: p.motion = .linear
            case .freeze: p.motion = .freeze
            case .ramp(let r0, let r1):
                p.motion = .ramp
                p.rampFrom = try .init(exact: r0, field: "\(f).ramp_from")
                p.rampTo = try .init(exact: r1, field: "\(f).ramp_to")
            }
            pieces.append(p)
        }
        frameDuration = try .init(exact: retime.frameDuration, field: "\(field).frame_duration")
        switch retime.selection {
        case .hold: selection = .hold
        case .nearest: selection = .nearest
        case .blend: selection = .blend
        }
        origin = try .init(exact: retime.origin, field: "\(field).origin")
        rangeStartTick = retime.rangeStartTick
    }
}

extension Tessera_V1_Rational {
    /// An exact time or rate with both terms in 64 bits.
    init(exact value: Rational, field: String) throws(WireError) {
        guard value.isValid, let num = Int64(exactly: value.numerator), let den = Int64(exactly: value.denominator)
        else { throw WireError(.unrepresentable, "\(field) = \(value) does not fit 64-bit terms") }
        self.init()
        self.num = num
        self.den = den
    }
}

extension Rational {
    /// - Throws: `.malformed` naming `field` for a denominator ≤ 0.
    init(wire: Tessera_V1_Rational, field: String) throws(WireError) {
        guard wire.den > 0 else { throw WireValue.malformed(field, "is \(wire.num)/\(wire.den): denominator ≤ 0") }
        self.init(wire.num, wire.den)
    }
}

extension SegmentRetime {
    /// The most pieces a map on the wire may have.
    static let maxPieces = 4096

    /// A retime from the wire, checked as a hostile peer could send it: every piece's times valid, output
    /// durations positive, pieces contiguous from a start ≥ 0, speeds within 1/32…32 (a freeze holds one instant),
    /// one asset, a frame duration from 1/1000 s to 1 s fitting 32-bit terms, at most `maxFrames` frames,
    /// and the segment's frames inside them.
    /// - Throws: `.malformed` naming the first field that breaks a rule.
    init(wire: Tessera_V1_Retime, outputFrames: Range<Int>, field: String) throws(WireError) {
        guard (1...Self.maxPieces).contains(wire.pieces.count) else {
            throw WireValue.malformed("\(field).pieces", "holds \(wire.pieces.count) pieces; 1 to \(Self.maxPieces)")
        }
        let slowest = Rational(1, 32), fastest = Rational(32)
        var pieces: [TimeMap.Piece] = []
        var end = Rational.zero
        for (i, p) in wire.pieces.enumerated() {
            let f = "\(field).pieces[\(i)]"
            guard p.asset == 0 else {
                throw WireValue.malformed("\(f).asset", "is \(p.asset): a segment retimes one asset")
            }
            let sourceStart = try Rational(wire: p.sourceStart, field: "\(f).source_start")
            let sourceDuration = try Rational(wire: p.sourceDuration, field: "\(f).source_duration")
            let outputStart = try Rational(wire: p.outputStart, field: "\(f).output_start")
            let outputDuration = try Rational(wire: p.outputDuration, field: "\(f).output_duration")
            // Contiguous from 0, or from where a composition's run starts.
            guard i == 0 ? outputStart >= .zero : outputStart == end else {
                throw WireValue.malformed(
                    "\(f).output_start", "is \(outputStart); the map is contiguous from a start ≥ 0 (\(end))")
            }
            guard outputDuration > .zero, sourceDuration >= .zero else {
                throw WireValue.malformed(f, "durations must be positive (output) and not negative (source)")
            }
            let motion: TimeMap.Motion
            switch p.motion {
            case .linear:
                let speed = sourceDuration / outputDuration
                guard speed >= slowest, speed <= fastest else {
                    throw WireValue.malformed(f, "plays at speed \(speed); 1/32 to 32")
                }
                motion = .linear
            case .freeze:
                guard sourceDuration.isZero else {
                    throw WireValue.malformed(
                        "\(f).source_duration", "is \(sourceDuration); a freeze holds one instant")
                }
                motion = .freeze
            case .ramp:
                let r0 = try Rational(wire: p.rampFrom, field: "\(f).ramp_from")
                let r1 = try Rational(wire: p.rampTo, field: "\(f).ramp_to")
                guard r0 >= slowest, r0 <= fastest, r1 >= slowest, r1 <= fastest else {
                    throw WireValue.malformed(f, "ramps from speed \(r0) to \(r1); each 1/32 to 32")
                }
                motion = .ramp(from: r0, to: r1)
            case .UNRECOGNIZED(let n):
                throw WireValue.malformed("\(f).motion", "is \(n): not linear, ramp or freeze")
            }
            let piece = TimeMap.Piece(
                asset: 0, sourceStart: sourceStart, sourceDuration: sourceDuration, outputStart: outputStart,
                outputDuration: outputDuration, motion: motion)
            end = piece.outputEnd
            guard end.isValid else { throw WireValue.malformed(f, "ends past what exact times can hold") }
            pieces.append(piece)
        }
        try wire.frameDuration.validate("\(field).frame_duration", .positive)
        let frameDuration = Rational(wire.frameDuration.num, wire.frameDuration.den)
        guard frameDuration >= Rational(1, 1000), frameDuration <= .one else {
            throw WireValue.malformed("\(field).frame_duration", "is \(frameDuration) s; 1/1000 to 1")
        }
        let selection: FrameSelection
        switch wire.selection {
        case .hold: selection = .hold
        case .nearest: selection = .nearest
        case .blend: selection = .blend
        case .UNRECOGNIZED(let n):
            throw WireValue.malformed("\(field).selection", "is \(n): not hold, nearest or blend")
        }
        self.init(
            map: TimeMap(pieces: pieces), frameDuration: frameDuration, selection: selection,
            origin: try Rational(wire: wire.origin, field: "\(field).origin"), rangeStartTick: wire.rangeStartTick)
        guard frameCount <= Int64(Self.maxFrames), outputFrames.upperBound <= frameCount,
            outputFrames.lowerBound >= firstFrame
        else {
            throw WireValue.malformed(
                field,
                "makes frames \(firstFrame) ..< \(frameCount) (at most \(Self.maxFrames)); the segment asks \(outputFrames)"
            )
        }
    }
}
