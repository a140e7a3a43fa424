import TesseraCore

extension Tessera_V1_SegmentTask {
    /// The task message for `work`; copies the packet bytes once, or (`byReference`, for a worker that
    /// reads `work.sourceName` itself) sends each packet's timestamps and size only.
    /// - Throws: `.unrepresentable` naming the field when a value cannot go on the wire or breaks a rule
    ///   `SegmentWork(wire:)` checks (so what encodes, decodes back to the same value).
    public init(_ work: SegmentWork, byReference: Bool = false) throws(WireError) {
        self.init()
        spec = try Tessera_V1_SegmentSpec(work.spec, field: "task.spec")
        source = try Tessera_V1_CodecParameters(work.source, field: "task.source")
        timeBase = try Tessera_V1_Rational(exact: work.timeBase, field: "task.time_base")
        frameRate = try Tessera_V1_Rational(exact: work.frameRate, field: "task.frame_rate")
        rotationDegrees = Int32(work.rotation.degrees)
        rotationMirrored = work.rotation.mirrored
        packets.reserveCapacity(work.packets.count)
        if byReference, let stream = work.sourceStream, let index = Int32(exactly: stream) {
            sourceStream = index
            for packet in work.packets { packets.append(Tessera_V1_Packet(reference: packet)) }
            if let bytes = work.sourceBytes, bytes > 0 { sourceBytes = UInt64(bytes) }
        } else {
            for (i, packet) in work.packets.enumerated() {
                packets.append(try Tessera_V1_Packet(packet, field: "task.packets[\(i)]"))
            }
        }
        settings = try Tessera_V1_VideoSettings(work.settings, field: "task.settings")
        if let endTick = work.endTick { self.endTick = endTick }
        sourceName = work.sourceName
        backend = work.backend.rawValue
        skipDecodeCheck = !work.checkDecodes
        if let r = work.retime { retime = try Tessera_V1_Retime(r, field: "task.retime") }
        if let l = work.layer { layer = try Tessera_V1_Layer(l, field: "task.layer") }
        if let h = work.hdr { hdr = Tessera_V1_HDRMetadata(h) }
        if let t = work.targetQuality { targetQuality = try Tessera_V1_TargetQuality(t) }
        if work.deinterlace != .off { deinterlace = work.deinterlace.rawValue }
        if let map = work.toneMap {
            toneMap = true
            toneMapCurve = Tessera_V1_ToneMapCurve(map)
        }
        renditions = try work.renditions.enumerated().map { (i, r) throws(WireError) in
            try Tessera_V1_VideoSettings(r, field: "task.renditions[\(i)]")
        }
        renditionTargets = try work.renditionTargets.map { (t) throws(WireError) in
            var entry = Tessera_V1_RenditionTarget()
            if let t { entry.target = try Tessera_V1_TargetQuality(t) }
            return entry
        }
        try WireValue.checkOutgoing { () throws(WireError) in try validateTask() }
    }

    /// The task-level rules; the parts check their own.
    /// - Throws: `.malformed` for a time base or frame rate out of range, a rotation that is not a multiple
    ///   of 90°, or a packet count other than the spec's decode range.
    func validateTask() throws(WireError) {
        try timeBase.validate("task.time_base", .positive)
        try frameRate.validate("task.frame_rate", .nonNegative)
        guard rotationDegrees % 90 == 0 else {
            throw WireValue.malformed("task.rotation_degrees", "is \(rotationDegrees): not a multiple of 90")
        }
        // A composition's segment shows an asset along its run's map, or is a gap with nothing to decode.
        if hasLayer && layer.gap == hasRetime {
            throw WireValue.malformed(
                "task.layer.gap", layer.gap ? "is set with a retime: a gap has no map" : "is unset without a retime")
        }
        // A gap's frames are made from nothing: as many as a retimed export may have, no more.
        if hasLayer && layer.gap && spec.outputEndFrame &- spec.outputFirstFrame > UInt64(SegmentRetime.maxFrames) {
            throw WireValue.malformed(
                "task.spec.output_end_frame", "makes more than \(SegmentRetime.maxFrames) frames of a gap")
        }
        guard renditions.count < PackageRequest.maximumRenditions else {
            throw WireValue.malformed(
                "task.renditions", "holds \(renditions.count): at most \(PackageRequest.maximumRenditions - 1)")
        }
        guard renditionTargets.isEmpty || renditionTargets.count == renditions.count else {
            throw WireValue.malformed(
                "task.rendition_targets", "holds \(renditionTargets.count) for \(renditions.count) renditions")
        }
        if hasSourceStream {
            guard sourceStream >= 0 else { throw WireValue.malformed("task.source_stream", "is negative") }
            guard !sourceName.isEmpty, packets.allSatisfy({ $0.data.isEmpty }) else {
                throw WireValue.malformed(
                    "task.source_stream",
                    "is set with packet data or without a source_name: a task by reference names its file and leaves the data out"
                )
            }
        }
        let expected = spec.decodeEndPacket &- spec.decodeFirstPacket
        guard UInt64(packets.count) == expected else {
            throw WireValue.malformed(
                "task.packets",
                "holds \(packets.count) packets but task.spec decodes "
                    + "[\(spec.decodeFirstPacket), \(spec.decodeEndPacket)), \(expected) packets")
        }
    }
}

extension SegmentWork {
    /// The work a task message describes; copies the packet bytes once. A task by reference lists its
    /// packets without their bytes (`EncodedPacket.indexedSize`): `SourcePacketReader.load` reads them.
    /// - Throws: `.malformed` naming the first field that is missing or breaks a rule: an unknown codec,
    ///   a negative range, a zero denominator, a rotation not a multiple of 90°, a packet count that
    ///   differs from the spec's decode range, or a layer out of its bounds.
    public init(wire: Tessera_V1_SegmentTask) throws(WireError) {
        for (present, name) in [(wire.hasSpec, "spec"), (wire.hasSource, "source"), (wire.hasSettings, "settings")]
        where !present {
            throw WireValue.malformed("task.\(name)", "is missing")
        }
        let spec = try SegmentSpec(wire: wire.spec, field: "task.spec")
        try wire.validateTask()
        var packets: [EncodedPacket] = []
        packets.reserveCapacity(wire.packets.count)
        for (i, packet) in wire.packets.enumerated() {
            packets.append(
                try EncodedPacket(wire: packet, reference: wire.hasSourceStream, field: "task.packets[\(i)]"))
        }
        // An empty name (a coordinator that sent none) is `auto`; an unknown one is refused, not guessed.
        guard let backend = wire.backend.isEmpty ? .auto : ProcessingBackend(rawValue: wire.backend) else {
            throw WireError(.unrepresentable, "task.backend = \(wire.backend.logSafe()) is not auto, cpu or vulkan")
        }
        let settings = try VideoSettings(wire: wire.settings, field: "task.settings")
        guard let deinterlace = wire.deinterlace.isEmpty ? .off : Deinterlace(rawValue: wire.deinterlace) else {
            throw WireValue.malformed("task.deinterlace", "is \(wire.deinterlace.logSafe()): auto, off, bwdif or yadif")
        }
        self.init(
            spec: spec, source: try CodecConfiguration(wire: wire.source, field: "task.source"),
            timeBase: try Rational(wire: wire.timeBase, field: "task.time_base"),
            frameRate: try Rational(wire: wire.frameRate, field: "task.frame_rate"),
            rotation: Rotation(degrees: Int(wire.rotationDegrees), mirrored: wire.rotationMirrored),
            packets: packets, settings: settings,
            endTick: wire.hasEndTick ? wire.endTick : nil, sourceName: wire.sourceName, backend: backend,
            checkDecodes: !wire.skipDecodeCheck,
            retime: wire.hasRetime
                ? try SegmentRetime(wire: wire.retime, outputFrames: spec.outputFrames, field: "task.retime") : nil,
            layer: wire.hasLayer ? try SegmentLayer(wire: wire.layer, field: "task.layer") : nil,
            hdr: wire.hasHdr ? try HDRMetadata(wire: wire.hdr, field: "task.hdr") : nil,
            targetQuality: wire.hasTargetQuality
                ? try TargetQuality(wire: wire.targetQuality, codec: settings.codec, field: "task.target_quality")
                : nil,
            deinterlace: deinterlace,
            toneMap: wire.toneMap
                ? (wire.hasToneMapCurve
                    ? try ToneMap(wire: wire.toneMapCurve, field: "task.tone_map_curve")
                    : ToneMap(transfer: wire.source.colorTransfer == 18 ? .aribStdB67 : .smpte2084, hdr: nil))
                : nil,
            renditions: try wire.renditions.enumerated().map { (i, r) throws(WireError) in
                try VideoSettings(wire: r, field: "task.renditions[\(i)]")
            })
        renditionTargets = try zip(wire.renditionTargets, renditions).enumerated().map { (i, pair) throws(WireError) in
            guard pair.0.hasTarget else { return nil }
            return try TargetQuality(wire: pair.0.target, codec: pair.1.codec, field: "task.rendition_targets[\(i)]")
        }
    }
}
