import TesseraCore

extension Tessera_V1_SegmentSpec {
    /// - Throws: `.unrepresentable` for a negative index, frame or packet number.
    public init(_ spec: SegmentSpec, field: String = "spec") throws(WireError) {
        self.init()
        index = try WireValue.uint32(spec.index, "\(field).index")
        outputFirstFrame = try WireValue.uint64(spec.outputFrames.lowerBound, "\(field).output_first_frame")
        outputEndFrame = try WireValue.uint64(spec.outputFrames.upperBound, "\(field).output_end_frame")
        presentationStart = spec.presentationRange.lowerBound
        presentationEnd = spec.presentationRange.upperBound
        decodeFirstPacket = try WireValue.uint64(spec.decodePackets.lowerBound, "\(field).decode_first_packet")
        decodeEndPacket = try WireValue.uint64(spec.decodePackets.upperBound, "\(field).decode_end_packet")
        timeMap.sourceStart = spec.timeMap.sourceStart
        timeMap.outputStart = spec.timeMap.outputStart
        timeMap.rate = Tessera_V1_Rational(Fraction(1, 1))
        try WireValue.checkOutgoing { () throws(WireError) in try validate(field) }
    }

    /// - Throws: `.malformed` for a range whose end is before its start, a number beyond Int, a missing
    ///   time map, or a time-map rate that is not 1.
    func validate(_ field: String) throws(WireError) {
        for (name, first, end) in [
            ("output", outputFirstFrame, outputEndFrame),
            ("decode", decodeFirstPacket, decodeEndPacket),
        ] {
            let suffix = name == "output" ? "frame" : "packet"
            _ = try WireValue.int(end, "\(field).\(name)_end_\(suffix)")
            guard end >= first else {
                throw WireValue.malformed(
                    "\(field).\(name)_end_\(suffix)",
                    "(\(end)) is before \(field).\(name)_first_\(suffix) (\(first))")
            }
        }
        guard presentationEnd >= presentationStart else {
            throw WireValue.malformed(
                "\(field).presentation_end",
                "(\(presentationEnd)) is before presentation_start (\(presentationStart))")
        }
        guard hasTimeMap else { throw WireValue.malformed("\(field).time_map", "is missing") }
        try timeMap.rate.validate("\(field).time_map.rate", .positive)
        // Source and output ticks advance together; a retimed task's frames follow its `retime`.
        guard timeMap.rate.num == timeMap.rate.den else {
            throw WireValue.malformed("\(field).time_map.rate", "(\(timeMap.rate.num)/\(timeMap.rate.den)) is not 1")
        }
    }
}

extension SegmentSpec {
    /// - Throws: `.malformed` naming the field that breaks a rule (see `Tessera_V1_SegmentSpec`).
    public init(wire: Tessera_V1_SegmentSpec, field: String = "spec") throws(WireError) {
        try wire.validate(field)
        let map = wire.timeMap
        self.init(
            index: Int(wire.index),
            outputFrames: Int(wire.outputFirstFrame)..<Int(wire.outputEndFrame),
            presentationRange: wire.presentationStart..<wire.presentationEnd,
            decodePackets: Int(wire.decodeFirstPacket)..<Int(wire.decodeEndPacket),
            timeMap: TimeMapPiece(sourceStart: map.sourceStart, outputStart: map.outputStart))
    }
}
