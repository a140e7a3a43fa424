import TesseraCore

extension Tessera_V1_SegmentOutput {
    /// The result message for `output` (its `index` travels in the TaskRef); copies the packet bytes once.
    /// - Throws: `.unrepresentable` naming the field for a negative frame count, negative or non-finite
    ///   seconds, or parameters or packets the wire cannot carry.
    public init(_ output: SegmentOutput) throws(WireError) {
        self.init()
        parameters = try Tessera_V1_CodecParameters(output.parameters, field: "output.parameters")
        packets.reserveCapacity(output.packets.count)
        for (i, packet) in output.packets.enumerated() {
            packets.append(try Tessera_V1_Packet(packet, field: "output.packets[\(i)]"))
        }
        frames = try WireValue.uint32(output.frames, "output.frames")
        encodeSeconds = output.seconds
        processor = output.processor.rawValue
        if let q = output.quality { quality = try Tessera_V1_SegmentQuality(q) }
        if let c = output.crf { (crf, rateFactor) = try WireValue.rateFactor(c, "output.crf") }
        probes = try output.probes.map { (p) throws(WireError) in try Tessera_V1_QualityProbe(p) }
        renditions = try output.renditions.map { (r) throws(WireError) in try Tessera_V1_SegmentOutput(r) }
        try WireValue.checkOutgoing { () throws(WireError) in try validateSeconds() }
    }

    /// The rate factor a search chose, as encoded; nil when the segment did not search.
    /// - Throws: `.malformed` for a factor that is not a number 0…63.
    public func chosenRateFactor(field: String) throws(WireError) -> Double? {
        guard hasRateFactor || hasCrf else { return nil }
        return try WireValue.rateFactor(exact: hasRateFactor ? rateFactor : nil, crf: crf, field)
    }

    func validateSeconds() throws(WireError) {
        guard encodeSeconds.isFinite, encodeSeconds >= 0 else {
            throw WireValue.malformed("output.encode_seconds", "is \(encodeSeconds): must be finite and ≥ 0")
        }
    }
}

extension SegmentOutput {
    /// The finished segment a result message carries.
    /// - Parameter index: the segment number, from the result's `TaskRef.segment`.
    /// - Throws: `.malformed` naming the field: missing parameters, a bad packet, bad seconds or quality.
    public init(wire: Tessera_V1_SegmentOutput, index: Int, nested: Bool = false) throws(WireError) {
        guard !nested || wire.renditions.isEmpty else {
            throw WireValue.malformed("output.renditions", "a rendition's output holds renditions of its own")
        }
        guard wire.renditions.count <= PackageRequest.maximumRenditions else {
            throw WireValue.malformed(
                "output.renditions", "holds \(wire.renditions.count): at most \(PackageRequest.maximumRenditions)")
        }
        guard wire.hasParameters else { throw WireValue.malformed("output.parameters", "is missing") }
        try wire.validateSeconds()
        var packets: [EncodedPacket] = []
        packets.reserveCapacity(wire.packets.count)
        for (i, packet) in wire.packets.enumerated() {
            packets.append(try EncodedPacket(wire: packet, field: "output.packets[\(i)]"))
        }
        let frames = Int(wire.frames)
        guard wire.probes.count <= 64 else {
            throw WireValue.malformed("output.probes", "holds \(wire.probes.count) probes: at most 64")
        }
        self.init(
            index: index, parameters: try CodecConfiguration(wire: wire.parameters, field: "output.parameters"),
            packets: packets, frames: frames, seconds: wire.encodeSeconds,
            processor: ProcessorKind(named: wire.processor),
            quality: wire.hasQuality
                ? try QualityStats(wire: wire.quality, frames: frames, field: "output.quality") : nil,
            crf: try wire.chosenRateFactor(field: "output"),
            probes: try wire.probes.enumerated().map { (i, p) throws(WireError) in
                try QualityProbe(wire: p, frames: frames, field: "output.probes[\(i)]")
            },
            renditions: try wire.renditions.map { (r) throws(WireError) in
                try SegmentOutput(wire: r, index: index, nested: true)
            })
    }
}
