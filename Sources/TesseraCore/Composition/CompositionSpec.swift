/// A job spec (`tessera transcode --spec job.json`): several assets, edits on the composition's
/// timeline, a video composition, an audio mix, and the output's settings. Protocols/composition.schema.json
/// is its JSON Schema; the README has a worked example. Times are texts as the flags write them (`2s`,
/// `1/30`, `00:01:02.5`, `45f@30`), ranges `START-END`; every edit time is composition (output) time
/// except an insert's `range`, which is the asset's own.
public struct CompositionSpec: Sendable, Hashable, Codable {
    public struct AssetReference: Sendable, Hashable, Codable {
        /// How edits name the asset.
        public var id: String
        /// A file path (relative paths are relative to the spec file).
        public var path: String
        /// Where its pictures go in the render (its layer instruction); nil fits them, centred.
        public var transform: Transform?
        /// The transform changing over composition ranges (AVFoundation's `setTransformRamp`).
        public var transformRamps: [TransformRamp]?

        public init(id: String, path: String, transform: Transform? = nil, transformRamps: [TransformRamp]? = nil) {
            self.id = id
            self.path = path
            self.transform = transform
            self.transformRamps = transformRamps
        }
    }

    /// A layer transform moving linearly from `from` at the start of a composition range to `to` at its
    /// end: scale, degrees, and position each in a straight line.
    public struct TransformRamp: Sendable, Hashable, Codable {
        public var range: String
        public var from: Transform
        public var to: Transform

        public init(range: String, from: Transform, to: Transform) {
            self.range = range
            self.from = from
            self.to = to
        }
    }

    /// A layer instruction's transform: the upright picture scaled by `scale` (of its own size, in square
    /// pixels), turned `rotate` degrees clockwise about its centre, and placed with the top-left corner
    /// of its bounding box at (`x`, `y`) render pixels; what falls outside the render is cut off, and the
    /// background shows around it (and in a turned picture's corners).
    public struct Transform: Sendable, Hashable, Codable {
        public var scale: Double
        /// Degrees clockwise, as the picture is seen; nil or 0 keeps it upright.
        public var rotate: Double?
        public var x: Int
        public var y: Int

        public init(scale: Double, rotate: Double? = nil, x: Int, y: Int) {
            self.scale = scale
            self.rotate = rotate
            self.x = x
            self.y = y
        }

        public static let maxScale = 16.0
        public static let maxOffset = 16384
        public static let maxRotation = 360.0
        /// The most pixels a side of a transformed picture (its bounding box, turned) may have.
        public static let maxExtent = 16384.0

        /// How many pixels across the transformed picture's bounding box is at most, for a picture whose
        /// longer side is `side` square pixels.
        public func extent(ofSide side: Double) -> Double {
            side * scale * (degrees.truncatingRemainder(dividingBy: 90) == 0 ? 1 : 2.0.squareRoot())
        }

        /// The rotation in [0, 360) degrees.
        public var degrees: Double {
            guard let rotate, rotate.isFinite else { return 0 }
            let d = rotate.truncatingRemainder(dividingBy: 360)
            return d < 0 ? d + 360 : d
        }

        /// - Throws: `JobRequestError` naming `field.scale`, `.rotate`, `.x` or `.y`.
        public func check(field: String) throws(JobRequestError) {
            guard scale.isFinite, scale > 0, scale <= Self.maxScale else {
                throw JobRequestError(
                    field: "\(field).scale", "must be above 0 and at most \(Self.maxScale), not \(scale)")
            }
            if let rotate, !(rotate.isFinite && abs(rotate) <= Self.maxRotation) {
                throw JobRequestError(
                    field: "\(field).rotate", "must be degrees within ±\(Self.maxRotation), not \(rotate)")
            }
            for (name, value) in [("x", x), ("y", y)] where abs(value) > Self.maxOffset {
                throw JobRequestError(field: "\(field).\(name)", "must be within ±\(Self.maxOffset), not \(value)")
            }
        }
    }

    /// One edit: exactly one of its members is set.
    public struct Edit: Sendable, Hashable, Codable {
        public struct Insert: Sendable, Hashable, Codable {
            public var asset: String
            /// The asset's range; nil is the whole asset.
            public var range: String?
            /// Where it goes in the composition; nil appends at the end.
            public var at: String?
        }
        public struct InsertEmpty: Sendable, Hashable, Codable {
            public var at: String?
            public var duration: String
        }
        public struct Remove: Sendable, Hashable, Codable { public var range: String }
        public struct Scale: Sendable, Hashable, Codable {
            public var range: String
            public var toDuration: String
        }
        public struct Ramp: Sendable, Hashable, Codable {
            public var range: String
            public var from: String
            public var to: String
        }
        public struct Freeze: Sendable, Hashable, Codable {
            public var at: String
            public var duration: String
        }
        public var insert: Insert?
        public var insertEmpty: InsertEmpty?
        public var remove: Remove?
        public var scale: Scale?
        public var ramp: Ramp?
        public var freeze: Freeze?

        public init(
            insert: Insert? = nil, insertEmpty: InsertEmpty? = nil, remove: Remove? = nil, scale: Scale? = nil,
            ramp: Ramp? = nil, freeze: Freeze? = nil
        ) {
            self.insert = insert
            self.insertEmpty = insertEmpty
            self.remove = remove
            self.scale = scale
            self.ramp = ramp
            self.freeze = freeze
        }
    }

    /// A value changing linearly over a composition range (opacity, volume): `from` at its start, `to`
    /// at its end.
    public struct Ramp: Sendable, Hashable, Codable {
        public var range: String
        public var from: Double
        public var to: Double
    }

    /// A ramp resolved: its composition range and its values at both ends.
    public struct RampSpan: Sendable, Hashable {
        public var start: Rational
        public var end: Rational
        public var from: Double
        public var to: Double

        public init(start: Rational, end: Rational, from: Double, to: Double) {
            self.start = start
            self.end = end
            self.from = from
            self.to = to
        }

        /// The value of the first span holding composition time `t`, 1 outside them.
        public static func value(at t: Rational, in spans: [RampSpan]) -> Double {
            guard let r = spans.first(where: { t >= $0.start && t < $0.end }) else { return 1 }
            return r.from + (r.to - r.from) * ((t - r.start) / (r.end - r.start)).seconds
        }
    }

    public struct VideoComposition: Sendable, Hashable, Codable {
        /// `WIDTHxHEIGHT`; nil is the first asset's displayed size.
        public var renderSize: String?
        /// `30`, `30000/1001`; or `frameDuration` (`1/30`); neither is the first asset's nominal rate.
        public var frameRate: String?
        public var frameDuration: String?
        public var frameSelection: FrameSelection?
        /// `#RRGGBB`, shown where nothing plays and around a picture fitted into the render size.
        public var backgroundColor: String?
        /// Opacity ramps over the background (fades).
        public var opacity: [Ramp]?
    }

    public struct AudioMix: Sendable, Hashable, Codable {
        /// Volume ramps (1 is unchanged).
        public var volume: [Ramp]?
        public var timePitch: TimePitchAlgorithm?
    }

    public var assets: [AssetReference]
    public var edits: [Edit]
    public var videoComposition: VideoComposition?
    public var audioMix: AudioMix?
    /// An export preset's name, or custom settings (as a job request carries them).
    public var preset: String?
    public var settings: OutputSettings?

    public static let maxAssets = 64
    public static let maxEdits = 1024
    public static let maxRamps = 256
}

extension CompositionSpec {
    /// The composition the edits build, given each asset's duration (by index of `assets`).
    /// - Throws: `JobRequestError` naming the first field that does not parse or breaks a rule
    ///   (`edits[2].scale.range`).
    public func composition(assetDurations: [Rational]) throws(JobRequestError) -> Composition {
        guard (1...Self.maxAssets).contains(assets.count) else {
            throw JobRequestError(field: "assets", "names \(assets.count) assets; 1 to \(Self.maxAssets)")
        }
        guard (1...Self.maxEdits).contains(edits.count) else {
            throw JobRequestError(field: "edits", "holds \(edits.count) edits; 1 to \(Self.maxEdits)")
        }
        var ids: [String: Int] = [:]
        for (i, a) in assets.enumerated() {
            guard ids[a.id] == nil else {
                throw JobRequestError(field: "assets[\(i)].id", "\(JobRequestError.quoted(a.id)) is used twice")
            }
            ids[a.id] = i
        }
        var c = Composition(assetDurations: assetDurations)
        for (i, edit) in edits.enumerated() {
            let f = "edits[\(i)]"
            let members = [
                edit.insert != nil, edit.insertEmpty != nil, edit.remove != nil, edit.scale != nil, edit.ramp != nil,
                edit.freeze != nil,
            ].filter { $0 }.count
            guard members == 1 else {
                throw JobRequestError(
                    field: f, "holds \(members) edits; exactly one of insert, insertEmpty, remove, scale, ramp, freeze")
            }
            if let e = edit.insert {
                guard let asset = ids[e.asset] else {
                    throw JobRequestError(
                        field: "\(f).insert.asset", "\(JobRequestError.quoted(e.asset)) is not an asset id")
                }
                let (start, duration) =
                    try e.range.map { r throws(JobRequestError) in try Self.range(r, field: "\(f).insert.range") }
                    ?? (.zero, assetDurations[asset])
                let at =
                    try e.at.map { t throws(JobRequestError) in try Self.time(t, field: "\(f).insert.at") }
                    ?? c.duration
                try c.insertTimeRange(start: start, duration: duration, of: asset, at: at, field: "\(f).insert")
            } else if let e = edit.insertEmpty {
                let at =
                    try e.at.map { t throws(JobRequestError) in try Self.time(t, field: "\(f).insertEmpty.at") }
                    ?? c.duration
                try c.insertEmptyTimeRange(
                    at: at, duration: try Self.time(e.duration, field: "\(f).insertEmpty.duration"),
                    field: "\(f).insertEmpty")
            } else if let e = edit.remove {
                let (start, duration) = try Self.range(e.range, field: "\(f).remove.range")
                try c.removeTimeRange(start: start, duration: duration, field: "\(f).remove")
            } else if let e = edit.scale {
                let (start, duration) = try Self.range(e.range, field: "\(f).scale.range")
                try c.scaleTimeRange(
                    start: start, duration: duration,
                    toDuration: try Self.time(e.toDuration, field: "\(f).scale.toDuration"),
                    field: "\(f).scale")
            } else if let e = edit.ramp {
                let (start, duration) = try Self.range(e.range, field: "\(f).ramp.range")
                try c.rampTimeRange(
                    start: start, duration: duration, from: try Self.time(e.from, field: "\(f).ramp.from"),
                    to: try Self.time(e.to, field: "\(f).ramp.to"), field: "\(f).ramp")
            } else if let e = edit.freeze {
                try c.freeze(
                    at: try Self.time(e.at, field: "\(f).freeze.at"),
                    duration: try Self.time(e.duration, field: "\(f).freeze.duration"), field: "\(f).freeze")
            }
        }
        guard c.duration > .zero, !c.mediaPieces.isEmpty else {
            throw JobRequestError(field: "edits", "the composition holds no media")
        }
        return c
    }

    /// A time text as exact seconds.
    public static func time(_ text: String, field: String) throws(JobRequestError) -> Rational {
        guard text.utf8.count <= 64, let t = MediaTime(string: text), t.isNumeric, t >= .zero else {
            throw JobRequestError(
                field: field, "\(JobRequestError.quoted(text)) is not a time, e.g. 2s, 1/30 or 00:00:01.5")
        }
        return Rational(t)
    }

    /// A `START-END` range text as (start, duration).
    public static func range(_ text: String, field: String) throws(JobRequestError) -> (Rational, Rational) {
        guard text.utf8.count <= 128, let r = TimeRange(string: text), r.start.isNumeric, r.duration.isNumeric,
            r.duration > .zero, r.start >= .zero
        else {
            throw JobRequestError(
                field: field, "\(JobRequestError.quoted(text)) is not a range START-END, e.g. 1s-3.5s")
        }
        return (Rational(r.start), Rational(r.duration))
    }

    /// The ramps of `list` checked: ranges, values within `bounds`.
    public static func ramps(
        _ list: [Ramp]?, bounds: ClosedRange<Double>, field: String
    ) throws(JobRequestError) -> [CompositionSpec.RampSpan] {
        let list = list ?? []
        guard list.count <= maxRamps else { throw JobRequestError(field: field, "at most \(maxRamps) ramps") }
        return try list.enumerated().map { (i, r) throws(JobRequestError) in
            let (start, duration) = try range(r.range, field: "\(field)[\(i)].range")
            for v in [r.from, r.to] where !(v.isFinite && bounds.contains(v)) {
                throw JobRequestError(
                    field: "\(field)[\(i)]", "\(v) is outside \(bounds.lowerBound)…\(bounds.upperBound)")
            }
            return RampSpan(start: start, end: start + duration, from: r.from, to: r.to)
        }
    }

    /// Each asset's layer transform over composition time, checked.
    /// - Throws: `JobRequestError` naming the first bad field (`assets[1].transformRamps[0].range`).
    public func layerTransforms() throws(JobRequestError) -> [LayerTransformTrack] {
        try assets.enumerated().map { (i, asset) throws(JobRequestError) in
            let field = "assets[\(i)].transformRamps"
            try asset.transform?.check(field: "assets[\(i)].transform")
            let list = asset.transformRamps ?? []
            guard list.count <= Self.maxRamps else {
                throw JobRequestError(field: field, "at most \(Self.maxRamps) ramps")
            }
            var ramps: [LayerTransformTrack.Ramp] = []
            for (j, r) in list.enumerated() {
                let (start, duration) = try Self.range(r.range, field: "\(field)[\(j)].range")
                try r.from.check(field: "\(field)[\(j)].from")
                try r.to.check(field: "\(field)[\(j)].to")
                if let last = ramps.last, start < last.end {
                    throw JobRequestError(
                        field: "\(field)[\(j)].range",
                        "starts before the ramp ahead of it ends: ramps are in order, apart")
                }
                ramps.append(.init(start: start, end: start + duration, from: r.from, to: r.to))
            }
            return LayerTransformTrack(base: asset.transform, ramps: ramps)
        }
    }
}

/// One asset's layer transform over composition time, as AVFoundation's layer instruction holds it:
/// `base` (nil: fitted and centred) until the first ramp, each ramp moving linearly from its `from` to
/// its `to`, and after a ramp its `to` held until the next one starts.
public struct LayerTransformTrack: Sendable, Hashable {
    public struct Ramp: Sendable, Hashable {
        public var start: Rational
        public var end: Rational
        public var from: CompositionSpec.Transform
        public var to: CompositionSpec.Transform

        public init(start: Rational, end: Rational, from: CompositionSpec.Transform, to: CompositionSpec.Transform) {
            self.start = start
            self.end = end
            self.from = from
            self.to = to
        }
    }

    public var base: CompositionSpec.Transform?
    /// In order, apart.
    public var ramps: [Ramp]

    public init(base: CompositionSpec.Transform?, ramps: [Ramp] = []) {
        self.base = base
        self.ramps = ramps
    }

    /// The transform at composition time `t`. Positions are whole pixels; scale and degrees are kept to
    /// 1/10,000, so a held value is one transform and a ramp changes it only where the picture moves.
    public func transform(at t: Rational) -> CompositionSpec.Transform? {
        guard let i = ramps.lastIndex(where: { $0.start <= t }) else { return base }
        let r = ramps[i]
        guard t < r.end else { return r.to }
        // The fraction of the ramp gone, kept within 0…1 (an invalid time, NaN, is its start), so every
        // mix lies between two checked values and the offsets' conversions cannot trap.
        let gone = ((t - r.start) / (r.end - r.start)).seconds
        let f = gone.isNaN ? 0 : min(max(gone, 0), 1)
        func mix(_ a: Double, _ b: Double) -> Double { ((a + (b - a) * f) * 10_000).rounded() / 10_000 }
        // A position lies between two checked ones; held to ±maxOffset anyway, so an unchecked track
        // cannot reach a trapping conversion either.
        let bound = Double(CompositionSpec.Transform.maxOffset)
        func position(_ a: Int, _ b: Int) -> Int { Int(min(max(mix(Double(a), Double(b)), -bound), bound).rounded()) }
        return CompositionSpec.Transform(
            scale: mix(r.from.scale, r.to.scale), rotate: mix(r.from.rotate ?? 0, r.to.rotate ?? 0),
            x: position(r.from.x, r.to.x), y: position(r.from.y, r.to.y))
    }
}
