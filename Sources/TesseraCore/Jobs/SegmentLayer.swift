/// How a segment of a composition shows its frames: as one asset's layer on the render, or as a gap
/// (nothing plays; background frames). What `SegmentTask.layer` carries (Protocols/tessera.proto).
///
/// Every frame the segment makes, at instant k of the composition's grid (time k·frameDuration), is
/// turned upright, placed by `transforms` at that time (fitted and centred where it gives none), and
/// faded over the background by `opacity` there, at `renderWidth`×`renderHeight` in 8-bit 4:2:0. The
/// one-pass render and a farm's segments do exactly this, so they make the same pictures.
public struct SegmentLayer: Sendable, Hashable {
    public var renderWidth: Int
    public var renderHeight: Int
    /// 0xRRGGBB.
    public var background: Int
    /// Nothing plays: the segment has no packets and makes background frames.
    public var isGap: Bool
    public var transforms: LayerTransformTrack
    public var opacity: [CompositionSpec.RampSpan]

    public init(
        renderWidth: Int, renderHeight: Int, background: Int, isGap: Bool, transforms: LayerTransformTrack,
        opacity: [CompositionSpec.RampSpan]
    ) {
        self.renderWidth = renderWidth
        self.renderHeight = renderHeight
        self.background = background
        self.isGap = isGap
        self.transforms = transforms
        self.opacity = opacity
    }

    /// The render's sides.
    public static let renderSides: ClosedRange<Int> = 16...8192

    /// The most memory one composition segment's pictures may take on a worker. An 8192×8192 render in
    /// 30-frame segments took a worker to 9 GB; a request of a few hundred bytes must not ask that.
    public static let memoryBudget: Int64 = 4 << 30

    /// What a segment of `frames` frames at `width`×`height` holds at most: each picture as an RGBA layer
    /// and as 8-bit 4:2:0 for the encoder (5.5 bytes a pixel), for as many frames as are in flight at once
    /// (the encoder's look-ahead and reordering, threads: up to 64, never more than the segment has).
    public static func memoryEstimate(width: Int, height: Int, frames: Int) -> Int64 {
        // Saturating: the sides may come from the wire.
        let (pixels, o1) = Int64(clamping: max(width, 0)).multipliedReportingOverflow(
            by: Int64(clamping: max(height, 0)))
        let (bytes, o2) = pixels.multipliedReportingOverflow(by: 11)
        let (total, o3) = (bytes / 2).multipliedReportingOverflow(by: Int64(min(max(frames, 1), 64)))
        return o1 || o2 || o3 ? .max : total
    }

    /// Refuses a render whose segments of `frames` frames would pass `memoryBudget`, naming `field`.
    public static func checkMemory(width: Int, height: Int, frames: Int, field: String) throws(JobRequestError) {
        let need = memoryEstimate(width: width, height: height, frames: frames)
        guard need <= memoryBudget else {
            throw JobRequestError(
                field: field,
                "\(width)x\(height) in segments of \(frames) frames needs about \(need >> 20) MiB on a worker; "
                    + "at most \(memoryBudget >> 20) MiB: use a smaller render or shorter segments")
        }
    }

    /// The background as its three 8-bit components.
    public var rgb: (r: Int, g: Int, b: Int) { ((background >> 16) & 255, (background >> 8) & 255, background & 255) }

    /// The opacity at composition time `t`.
    public func opacity(at t: Rational) -> Double { CompositionSpec.RampSpan.value(at: t, in: opacity) }

    /// The rules a layer from outside (a request resolved, the wire) must keep: an even render within
    /// `renderSides`, a 24-bit colour, each transform within its bounds, at most `CompositionSpec.maxRamps`
    /// ramps of each kind in order and apart, and opacities within 0…1.
    /// - Throws: `JobRequestError` naming the field under `field`.
    public func check(field: String) throws(JobRequestError) {
        for (name, side) in [("render_width", renderWidth), ("render_height", renderHeight)]
        where !(Self.renderSides.contains(side) && side % 2 == 0) {
            throw JobRequestError(field: "\(field).\(name)", "is \(side); even, 16 to 8192")
        }
        guard (0...0xFF_FFFF).contains(background) else {
            throw JobRequestError(field: "\(field).background", "is \(background); 0xRRGGBB")
        }
        try transforms.base?.check(field: "\(field).transform")
        for (name, count) in [("transform_ramps", transforms.ramps.count), ("opacity", opacity.count)]
        where count > CompositionSpec.maxRamps {
            throw JobRequestError(
                field: "\(field).\(name)", "holds \(count) ramps; at most \(CompositionSpec.maxRamps)")
        }
        var end = Rational(Int64.min)
        for (i, r) in transforms.ramps.enumerated() {
            let f = "\(field).transform_ramps[\(i)]"
            guard r.start.isValid, r.end.isValid, r.start >= end, r.end > r.start else {
                throw JobRequestError(field: f, "ramps are valid times, in order and apart")
            }
            try r.from.check(field: "\(f).from")
            try r.to.check(field: "\(f).to")
            end = r.end
        }
        end = Rational(Int64.min)
        for (i, r) in opacity.enumerated() {
            let f = "\(field).opacity[\(i)]"
            guard r.start.isValid, r.end.isValid, r.start >= end, r.end > r.start else {
                throw JobRequestError(field: f, "ramps are valid times, in order and apart")
            }
            for v in [r.from, r.to] where !(v.isFinite && (0...1).contains(v)) {
                throw JobRequestError(field: f, "\(v) is outside 0…1")
            }
            end = r.end
        }
    }
}
