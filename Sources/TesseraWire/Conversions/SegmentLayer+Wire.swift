import TesseraCore

extension Tessera_V1_Layer {
    /// - Throws: `.unrepresentable` naming the field when a value does not fit or breaks a rule that
    ///   `SegmentLayer(wire:)` checks.
    init(_ layer: SegmentLayer, field: String) throws(WireError) {
        self.init()
        renderWidth = try WireValue.uint32(layer.renderWidth, "\(field).render_width")
        renderHeight = try WireValue.uint32(layer.renderHeight, "\(field).render_height")
        background = try WireValue.uint32(layer.background, "\(field).background")
        gap = layer.isGap
        if let base = layer.transforms.base { transform = try .init(base, field: "\(field).transform") }
        for (i, r) in layer.transforms.ramps.enumerated() {
            let f = "\(field).transform_ramps[\(i)]"
            var ramp = Tessera_V1_LayerTransformRamp()
            ramp.start = try .init(exact: r.start, field: "\(f).start")
            ramp.end = try .init(exact: r.end, field: "\(f).end")
            ramp.from = try .init(r.from, field: "\(f).from")
            ramp.to = try .init(r.to, field: "\(f).to")
            transformRamps.append(ramp)
        }
        for (i, r) in layer.opacity.enumerated() {
            var ramp = Tessera_V1_ValueRamp()
            ramp.start = try .init(exact: r.start, field: "\(field).opacity[\(i)].start")
            ramp.end = try .init(exact: r.end, field: "\(field).opacity[\(i)].end")
            ramp.from = r.from
            ramp.to = r.to
            opacity.append(ramp)
        }
        do throws(JobRequestError) { try layer.check(field: field) } catch {
            throw WireError(.unrepresentable, "\(error.field) \(error.message)")
        }
    }
}

extension Tessera_V1_LayerTransform {
    init(_ t: CompositionSpec.Transform, field: String) throws(WireError) {
        self.init()
        scale = t.scale
        rotate = t.rotate ?? 0
        x = try WireValue.int32(t.x, "\(field).x")
        y = try WireValue.int32(t.y, "\(field).y")
    }

    var transform: CompositionSpec.Transform {
        CompositionSpec.Transform(scale: scale, rotate: rotate == 0 ? nil : rotate, x: Int(x), y: Int(y))
    }
}

extension SegmentLayer {
    /// A layer from the wire, checked as a hostile peer could send it (`SegmentLayer.check`): an even
    /// render of 16…8192, a 24-bit colour, transforms within their bounds, ramps in order, opacities 0…1.
    /// - Throws: `.malformed` naming the first field that breaks a rule.
    init(wire: Tessera_V1_Layer, field: String) throws(WireError) {
        let count = wire.transformRamps.count + wire.opacity.count
        guard count <= 2 * CompositionSpec.maxRamps else {
            throw WireValue.malformed(field, "holds \(count) ramps; at most \(CompositionSpec.maxRamps) of each kind")
        }
        var ramps: [LayerTransformTrack.Ramp] = []
        for (i, r) in wire.transformRamps.enumerated() {
            let f = "\(field).transform_ramps[\(i)]"
            guard r.hasFrom, r.hasTo else { throw WireValue.malformed(f, "needs from and to") }
            ramps.append(
                .init(
                    start: try Rational(wire: r.start, field: "\(f).start"),
                    end: try Rational(wire: r.end, field: "\(f).end"), from: r.from.transform, to: r.to.transform))
        }
        var opacity: [CompositionSpec.RampSpan] = []
        for (i, r) in wire.opacity.enumerated() {
            let f = "\(field).opacity[\(i)]"
            opacity.append(
                .init(
                    start: try Rational(wire: r.start, field: "\(f).start"),
                    end: try Rational(wire: r.end, field: "\(f).end"), from: r.from, to: r.to))
        }
        self.init(
            renderWidth: Int(wire.renderWidth), renderHeight: Int(wire.renderHeight), background: Int(wire.background),
            isGap: wire.gap,
            transforms: LayerTransformTrack(base: wire.hasTransform ? wire.transform.transform : nil, ramps: ramps),
            opacity: opacity)
        do throws(JobRequestError) { try check(field: field) } catch {
            throw WireValue.malformed(error.field, error.message)
        }
    }
}
