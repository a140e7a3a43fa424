import TesseraCore

extension Tessera_V1_HDRMetadata {
    /// The static metadata of `hdr` (its dynamic metadata flags stay behind: workers do not carry them).
    init(_ hdr: HDRMetadata) {
        self.init()
        if let m = hdr.masteringDisplay {
            primaries = m.primaries.flatMap { $0 }
            whitePoint = m.whitePoint
            minLuminance = m.minLuminance
            maxLuminance = m.maxLuminance
        }
        if let cll = hdr.maxContentLightLevel { maxContentLightLevel = UInt32(clamping: cll) }
        if let fall = hdr.maxFrameAverageLightLevel { maxFrameAverageLightLevel = UInt32(clamping: fall) }
    }
}

extension HDRMetadata {
    /// - Throws: `.malformed` naming the field for primaries that are not 6 values with a white point of 2,
    ///   a chromaticity outside 0…1, a luminance outside 0…100000 cd/m² or not a number, a light level past
    ///   65535.
    init(wire: Tessera_V1_HDRMetadata, field: String) throws(WireError) {
        self.init()
        if !wire.primaries.isEmpty || !wire.whitePoint.isEmpty {
            guard wire.primaries.count == 6, wire.whitePoint.count == 2 else {
                throw WireValue.malformed(
                    "\(field).primaries",
                    "has \(wire.primaries.count) values and a white point of "
                        + "\(wire.whitePoint.count): 6 and 2, or none")
            }
            guard (wire.primaries + wire.whitePoint).allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 1 }) else {
                throw WireValue.malformed("\(field).primaries", "holds a chromaticity outside 0…1")
            }
            for (name, v) in [("min_luminance", wire.minLuminance), ("max_luminance", wire.maxLuminance)]
            where !(v.isFinite && v >= 0 && v <= 100_000) {
                throw WireValue.malformed("\(field).\(name)", "is \(v): 0 to 100000 cd/m²")
            }
            let p = wire.primaries
            masteringDisplay = MasteringDisplay(
                primaries: [[p[0], p[1]], [p[2], p[3]], [p[4], p[5]]], whitePoint: wire.whitePoint,
                minLuminance: wire.minLuminance, maxLuminance: wire.maxLuminance)
        }
        for (name, present, v) in [
            ("max_content_light_level", wire.hasMaxContentLightLevel, wire.maxContentLightLevel),
            ("max_frame_average_light_level", wire.hasMaxFrameAverageLightLevel, wire.maxFrameAverageLightLevel),
        ] where present && v > 65535 {
            throw WireValue.malformed("\(field).\(name)", "is \(v): at most 65535")
        }
        if wire.hasMaxContentLightLevel { maxContentLightLevel = Int(wire.maxContentLightLevel) }
        if wire.hasMaxFrameAverageLightLevel { maxFrameAverageLightLevel = Int(wire.maxFrameAverageLightLevel) }
    }
}

extension Tessera_V1_ToneMapCurve {
    init(_ map: ToneMap) {
        self.init()
        transfer = map.transfer.rawValue
        sourcePeak = map.sourcePeak
        sourceBlack = map.sourceBlack
    }
}

extension ToneMap {
    /// - Throws: `.malformed` naming the field for a transfer other than PQ or HLG, a peak outside
    ///   (0, 10000] cd/m², a black below 0 or not below the peak, or a value that is not a number.
    init(wire: Tessera_V1_ToneMapCurve, field: String) throws(WireError) {
        let transfer = TransferFunction(rawValue: wire.transfer)
        guard transfer == .smpte2084 || transfer == .aribStdB67 else {
            throw WireValue.malformed("\(field).transfer", "is \"\(wire.transfer)\": smpte2084 or arib-std-b67")
        }
        guard wire.sourcePeak.isFinite, wire.sourcePeak > 0, wire.sourcePeak <= 10_000 else {
            throw WireValue.malformed("\(field).source_peak", "is \(wire.sourcePeak): above 0, at most 10000 cd/m²")
        }
        guard wire.sourceBlack.isFinite, wire.sourceBlack >= 0, wire.sourceBlack < wire.sourcePeak else {
            throw WireValue.malformed("\(field).source_black", "is \(wire.sourceBlack): 0 or more, below the peak")
        }
        self.init(transfer: transfer, sourcePeak: wire.sourcePeak, sourceBlack: wire.sourceBlack)
    }
}
