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
