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

        public init(id: String, path: String, transform: Transform? = nil) {
            self.id = id
            self.path = path
            self.transform = transform
        }
    }

    /// A layer instruction's transform: the upright picture scaled by `scale` (of its own size, in square
    /// pixels) with its top-left corner at (`x`, `y`) render pixels; what falls outside the render is cut
    /// off, and the background shows around it.
    public struct Transform: Sendable, Hashable, Codable {
        public var scale: Double
        public var x: Int
        public var y: Int

        public init(scale: Double, x: Int, y: Int) {
            self.scale = scale
            self.x = x
            self.y = y
        }

        public static let maxScale = 16.0
        public static let maxOffset = 16384

        /// - Throws: `JobRequestError` naming `field.scale`, `.x` or `.y`.
        public func check(field: String) throws(JobRequestError) {
            guard scale.isFinite, scale > 0, scale <= Self.maxScale else {
                throw JobRequestError(
                    field: "\(field).scale", "must be above 0 and at most \(Self.maxScale), not \(scale)")
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
    public typealias RampSpan = (start: Rational, end: Rational, from: Double, to: Double)

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
        for (i, asset) in assets.enumerated() { try asset.transform?.check(field: "assets[\(i)].transform") }
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
            return (start, start + duration, r.from, r.to)
        }
    }
}
