/// A retiming as a person writes it: in a job request's JSON (`"retiming": {"scale": ["2s-4s:16s"],
/// "frameRate": "30"}`) or as `transcode`/`run`/`submit` flags, in the same texts. Every time is source
/// time.
public struct RetimeRequest: Sendable, Hashable, Codable {
    /// `2s-4s:16s`: the source range 2–4 s lasts 16 s of output.
    public var scale: [String]?
    /// `4s-6s:1-0.25`: speed 1 → 0.25 over source 4–6 s.
    public var ramp: [String]?
    /// `5s:2s`: at source time 5 s, hold the frame on screen for 2 s.
    public var freeze: [String]?
    /// `30` or `30000/1001`; or `frameDuration` (`1/30`). Neither keeps the source's nominal rate.
    public var frameRate: String?
    public var frameDuration: String?
    public var frameSelection: FrameSelection?
    public var timePitch: TimePitchAlgorithm?
    /// `constant` (the default) or `passthrough`: every source frame once, at its mapped time.
    public var frameTiming: FrameTiming?

    public init(
        scale: [String]? = nil, ramp: [String]? = nil, freeze: [String]? = nil, frameRate: String? = nil,
        frameDuration: String? = nil, frameSelection: FrameSelection? = nil, timePitch: TimePitchAlgorithm? = nil,
        frameTiming: FrameTiming? = nil
    ) {
        self.frameTiming = frameTiming
        self.scale = scale
        self.ramp = ramp
        self.freeze = freeze
        self.frameRate = frameRate
        self.frameDuration = frameDuration
        self.frameSelection = frameSelection
        self.timePitch = timePitch
    }

    /// True when nothing is asked (no edit, no rate, the default selection and algorithm).
    public var isEmpty: Bool {
        (scale ?? []).isEmpty && (ramp ?? []).isEmpty && (freeze ?? []).isEmpty && frameRate == nil
            && frameDuration == nil && (frameSelection ?? .hold) == .hold && (timePitch ?? .spectral) == .spectral
            && (frameTiming ?? .constant) == .constant
    }

    /// The most edits a request may hold.
    public static let maxEdits = 256

    /// How a request's fields are named in messages.
    public enum Naming: Sendable {
        /// `--scale`, `--frame-rate`: the command line.
        case flags
        /// `retiming.scale[0]`, `retiming.frameRate`: a job request's JSON.
        case json(prefix: String)

        public func name(_ field: String, index: Int? = nil) -> String {
            switch self {
            case .flags:
                let kebab = field.reduce(into: "") { s, c in s += c.isUppercase ? "-" + c.lowercased() : String(c) }
                return "--" + kebab
            case .json(let prefix):
                return prefix + "." + field + (index.map { "[\($0)]" } ?? "")
            }
        }

        /// The name for an error some other part raised naming a flag (`--scale`).
        public func rename(_ flag: String) -> String {
            guard flag.hasPrefix("--") else { return flag }
            let camel = flag.dropFirst(2).split(separator: "-").enumerated()
                .map { $0.offset == 0 ? String($0.element) : $0.element.capitalized }.joined()
            return name(camel)
        }
    }

    /// The retiming asked for, checked on its own (against a source: `TimeMap.retiming`), or nil when the
    /// request asks nothing.
    /// - Throws: `JobRequestError` naming the first field that does not parse or is out of bounds.
    public func retiming(naming: Naming) throws(JobRequestError) -> Retiming? {
        guard !isEmpty else { return nil }
        guard frameRate == nil || frameDuration == nil else {
            throw JobRequestError(
                field: naming.name("frameRate"), "\(naming.name("frameDuration")) says the same thing; give one")
        }
        let groups = [("scale", scale ?? []), ("ramp", ramp ?? []), ("freeze", freeze ?? [])]
        let count = groups.reduce(0) { $0 + $1.1.count }
        guard count <= Self.maxEdits else {
            // Named after the kind that holds the most of them (the one a person would shorten).
            let most = groups.max { $0.1.count < $1.1.count }?.0 ?? "scale"
            throw JobRequestError(
                field: naming.name(most),
                "\(count) edits (scale, ramp and freeze together); at most \(Self.maxEdits)")
        }
        var edits: [RetimeEdit] = []
        let kinds: [(String, [String]?, (String) throws(JobRequestError) -> RetimeEdit)] = [
            ("scale", scale, RetimeEdit.scale(parsing:)), ("ramp", ramp, RetimeEdit.ramp(parsing:)),
            ("freeze", freeze, RetimeEdit.freeze(parsing:)),
        ]
        for (field, texts, parse) in kinds {
            for (i, text) in (texts ?? []).enumerated() {
                do throws(JobRequestError) { edits.append(try parse(text)) } catch {
                    throw JobRequestError(field: naming.name(field, index: i), error.message)
                }
            }
        }
        var duration: Rational?
        if let text = frameRate {
            guard text.utf8.count <= 64, let rate = MediaTime(string: text), rate.isNumeric, rate > .zero else {
                throw JobRequestError(
                    field: naming.name("frameRate"),
                    "\(JobRequestError.quoted(text)) is not a rate, e.g. 30 or 30000/1001")
            }
            duration = Rational.one / Rational(rate)
        } else if let text = frameDuration {
            guard text.utf8.count <= 64, let d = MediaTime(string: text), d.isNumeric else {
                throw JobRequestError(
                    field: naming.name("frameDuration"), "\(JobRequestError.quoted(text)) is not a duration, e.g. 1/30")
            }
            duration = Rational(d)
        }
        // What can be checked without the source: speeds, durations, order and overlap (against a source
        // as long as a request may name).
        do throws(JobRequestError) {
            _ = try TimeMap.retiming(start: .zero, duration: Rational(JobRequestLimits.timeRangeSeconds), edits: edits)
        } catch {
            throw JobRequestError(field: naming.rename(error.field), error.message)
        }
        if let duration {
            try Retiming.checkFrameDuration(
                duration, field: naming.name(frameRate != nil ? "frameRate" : "frameDuration"))
        }
        // Passthrough timing keeps every source frame at its mapped time: there is no grid to choose on.
        if frameTiming == .passthrough {
            if let grid = frameRate != nil ? "frameRate" : frameDuration != nil ? "frameDuration" : nil {
                throw JobRequestError(
                    field: naming.name(grid),
                    "\(naming.name("frameTiming")) passthrough keeps every source frame at its mapped time; a frame "
                        + "rate is for constant timing")
            }
            guard (frameSelection ?? .hold) == .hold else {
                throw JobRequestError(
                    field: naming.name("frameSelection"),
                    "\(naming.name("frameTiming")) passthrough shows every source frame; nothing is chosen or blended")
            }
        }
        return Retiming(
            edits: edits, frameDuration: duration, selection: frameSelection ?? .hold,
            timePitch: timePitch ?? .spectral,
            frameTiming: frameTiming ?? .constant)
    }
}
