import Foundation

extension CompositionSpec {
    /// A job spec from an OpenTimelineIO timeline (`.otio`, the JSON editors export): the first video
    /// track's clips in order, each a range of its media (`ExternalReference` to a file), `Gap`s as empty
    /// time, `LinearTimeWarp` as a scaled range (a clip of duration d with time scalar s reads d·s of its
    /// media), `FreezeFrame` as a held frame. Audio tracks are not read: the sound follows the clips.
    /// - Throws: `JobRequestError` naming the timeline's element for anything else (transitions, nested
    ///   stacks, other effects, a second video track, reverse or out-of-range speeds, missing media).
    public init(otio data: Data) throws(JobRequestError) {
        let root: [String: Any]
        do {
            guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw JobRequestError(field: "otio", "is not a JSON object")
            }
            root = object
        } catch let error as JobRequestError {
            throw error
        } catch {
            throw JobRequestError(field: "otio", "is not JSON: \(error.localizedDescription)")
        }
        guard Self.schema(root).hasPrefix("Timeline."), let stack = root["tracks"] as? [String: Any],
            let tracks = stack["children"] as? [[String: Any]]
        else {
            throw JobRequestError(field: "otio", "is not an OpenTimelineIO Timeline")
        }
        let video = tracks.enumerated().filter { ($0.element["kind"] as? String ?? "Video") == "Video" }
        guard video.count == 1, let (trackIndex, track) = video.first else {
            throw JobRequestError(field: "otio.tracks", "holds \(video.count) video tracks; one is supported")
        }
        let base = "otio.tracks[\(trackIndex)]"
        guard let children = track["children"] as? [[String: Any]], !children.isEmpty else {
            throw JobRequestError(field: base, "holds no clip")
        }
        var assets: [AssetReference] = []
        var edits: [Edit] = []
        var at = Rational.zero
        func text(_ r: Rational) -> String { "\(r.numerator)/\(r.denominator)" }
        for (i, child) in children.enumerated() {
            let f = "\(base).children[\(i)]"
            let kind = Self.schema(child)
            let (start, duration) = try Self.range(child["source_range"], field: "\(f).source_range")
            guard duration > .zero else { throw JobRequestError(field: "\(f).source_range", "has no duration") }
            // A disabled clip is shown as nothing, as editors show it.
            if kind.hasPrefix("Gap.") || (kind.hasPrefix("Clip.") && child["enabled"] as? Bool == false) {
                edits.append(Edit(insertEmpty: .init(at: nil, duration: text(duration))))
                at = at + duration
                continue
            }
            guard kind.hasPrefix("Clip.") else {
                throw JobRequestError(field: f, "is a \(kind.isEmpty ? "element" : kind); clips and gaps are supported")
            }
            let (path, offset) = try Self.media(child, field: f)
            let id: String
            if let known = assets.first(where: { $0.path == path }) {
                id = known.id
            } else {
                id = "m\(assets.count)"
                assets.append(AssetReference(id: id, path: path))
            }
            let mediaStart = start - offset
            guard mediaStart >= .zero else {
                throw JobRequestError(field: "\(f).source_range", "starts before its media's available range")
            }
            var scalar = Rational.one
            var freeze = false
            for (j, effect) in ((child["effects"] as? [[String: Any]]) ?? []).enumerated() {
                let e = "\(f).effects[\(j)]"
                let name = Self.schema(effect)
                if effect["enabled"] as? Bool == false { continue }
                if name.hasPrefix("FreezeFrame.") {
                    freeze = true
                } else if name.hasPrefix("LinearTimeWarp.") {
                    guard let s = Self.rational(effect["time_scalar"]), s >= RetimeEdit.slowest, s <= RetimeEdit.fastest
                    else {
                        throw JobRequestError(
                            field: "\(e).time_scalar", "speeds go from 1/32 to 32 (no reverse, no zero)")
                    }
                    // Stacked warps multiply: their product is the clip's speed, held to the same bounds.
                    scalar = scalar * s
                    guard scalar.isValid, scalar >= RetimeEdit.slowest, scalar <= RetimeEdit.fastest else {
                        throw JobRequestError(
                            field: "\(e).time_scalar",
                            "the clip's LinearTimeWarps multiply to a speed outside 1/32…32; "
                                + "speeds go from 1/32 to 32")
                    }
                } else {
                    throw JobRequestError(
                        field: e,
                        "\(name.isEmpty ? "an unnamed effect" : name) is not supported; "
                            + "LinearTimeWarp and FreezeFrame are")
                }
            }
            let range = { (from: Rational, length: Rational) in "\(text(from))-\(text(from + length))" }
            if freeze {
                // A sliver of the media at the frozen instant, held for the clip's duration, then cut away.
                let sliver = Rational(1, 1000)
                edits.append(Edit(insert: .init(asset: id, range: range(mediaStart, sliver), at: text(at))))
                edits.append(Edit(freeze: .init(at: text(at), duration: text(duration))))
                edits.append(Edit(remove: .init(range: range(at + duration, sliver))))
            } else {
                let read = duration * scalar
                edits.append(Edit(insert: .init(asset: id, range: range(mediaStart, read), at: text(at))))
                if scalar != .one {
                    edits.append(Edit(scale: .init(range: range(at, read), toDuration: text(duration))))
                }
            }
            at = at + duration
        }
        guard !assets.isEmpty else { throw JobRequestError(field: base, "holds no clip") }
        self.init(assets: assets, edits: edits, videoComposition: nil, audioMix: nil, preset: nil, settings: nil)
    }

    private static func schema(_ object: [String: Any]) -> String { object["OTIO_SCHEMA"] as? String ?? "" }

    /// A clip's media file (`file://` URL or plain path) and its available range's start.
    private static func media(_ clip: [String: Any], field: String) throws(JobRequestError) -> (String, Rational) {
        var reference = clip["media_reference"] as? [String: Any]
        if reference == nil, let references = clip["media_references"] as? [String: Any] {
            let key = clip["active_media_reference_key"] as? String ?? "DEFAULT_MEDIA"
            reference = references[key] as? [String: Any]
        }
        guard let reference, schema(reference).hasPrefix("ExternalReference."),
            let target = reference["target_url"] as? String, !target.isEmpty
        else {
            throw JobRequestError(field: "\(field).media_reference", "needs an ExternalReference to a file")
        }
        let path: String
        if target.hasPrefix("file://") {
            guard let url = URL(string: target), url.isFileURL else {
                throw JobRequestError(field: "\(field).media_reference.target_url", "is not a file URL")
            }
            path = url.path
        } else {
            guard !target.contains("://") else {
                throw JobRequestError(field: "\(field).media_reference.target_url", "is not a local file")
            }
            path = target
        }
        let offset = (try? range(reference["available_range"], field: ""))?.0 ?? .zero
        return (path, offset)
    }

    /// A `TimeRange.1` as (start, duration) seconds.
    private static func range(_ value: Any?, field: String) throws(JobRequestError) -> (Rational, Rational) {
        guard let object = value as? [String: Any], let start = time(object["start_time"]),
            let duration = time(object["duration"])
        else { throw JobRequestError(field: field, "is not a TimeRange with start_time and duration") }
        return (start, duration)
    }

    /// A `RationalTime.1` ({value, rate}) as seconds.
    private static func time(_ value: Any?) -> Rational? {
        guard let object = value as? [String: Any], let v = rational(object["value"]),
            let rate = rational(object["rate"]),
            rate > .zero
        else { return nil }
        let t = v / rate
        return t.isValid ? t : nil
    }

    /// A JSON number as an exact rational: integers exactly, others to the microsecond.
    private static func rational(_ value: Any?) -> Rational? {
        guard let number = value as? NSNumber else { return nil }
        let d = number.doubleValue
        guard d.isFinite, abs(d) < 1e12 else { return nil }
        if d == d.rounded() { return Rational(Int64(d)) }
        return Rational(Int64((d * 1_000_000).rounded()), 1_000_000)
    }
}
