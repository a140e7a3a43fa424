import TesseraCore

/// A sync sample of a video track: a packet a decoder can start from.
public struct Keyframe: Sendable, Codable, Hashable {
    /// Presentation timestamp in the track's time base.
    public let pts: Int64
    /// Decode timestamp in the track's time base (below `pts` when frames are reordered).
    public let dts: Int64
    /// `pts` as a time on the source timeline.
    public let time: MediaTime
    /// Byte offset of the packet in the file, -1 when the demuxer does not know it.
    public let bytePosition: Int64

    public init(pts: Int64, dts: Int64, time: MediaTime, bytePosition: Int64) {
        self.pts = pts
        self.dts = dts
        self.time = time
        self.bytePosition = bytePosition
    }
}

/// Every keyframe of one video track, in presentation order, found by reading the track's packets
/// without decoding them. The segment planner starts each segment's decode at one of these.
///
/// Keyframes whose packet carries no presentation timestamp are left out when the track reorders
/// frames (their display time cannot be known without decoding; see `unindexedKeyframeCount`), so a
/// lookup may answer an earlier keyframe than the nearest, never a later one. Without reordering the
/// decode timestamp stands in, since the two are equal.
public struct KeyframeIndex: Sendable, Codable {
    public let trackID: Int
    public let timeBase: Rational
    /// Sorted by `pts`, no two with the same `pts`.
    public let keyframes: [Keyframe]
    /// Every packet of the track, keyframe or not.
    public let packetCount: Int
    /// Keyframe packets left out because the container gave them no presentation time and the track
    /// reorders frames (MPEG-PS anchor frames, AVI with B-frames, raw elementary streams).
    public let unindexedKeyframeCount: Int

    public init(
        trackID: Int, timeBase: Rational, keyframes: [Keyframe], packetCount: Int,
        unindexedKeyframeCount: Int = 0
    ) {
        self.trackID = trackID
        self.timeBase = timeBase
        var seen = Set<Int64>()
        self.keyframes = keyframes.sorted { $0.pts < $1.pts }.filter { seen.insert($0.pts).inserted }
        self.packetCount = packetCount
        self.unindexedKeyframeCount = unindexedKeyframeCount
    }

    /// The last keyframe presented at or before `pts` (track time base): where to start decoding to
    /// show the frame at `pts`. Nil when `pts` is before the first keyframe.
    public func keyframe(atOrBefore pts: Int64) -> Keyframe? {
        let i = firstIndex { $0.pts > pts }
        return i > 0 ? keyframes[i - 1] : nil
    }

    /// The first keyframe presented strictly after `pts` (track time base), nil when there is none.
    public func keyframe(after pts: Int64) -> Keyframe? {
        let i = firstIndex { $0.pts > pts }
        return i < keyframes.count ? keyframes[i] : nil
    }

    /// Binary search: the index of the first keyframe for which `isAbove` holds (`keyframes.count`
    /// when none does); `isAbove` must be false then true along the sorted list.
    private func firstIndex(where isAbove: (Keyframe) -> Bool) -> Int {
        var low = 0, high = keyframes.count
        while low < high {
            let mid = (low + high) / 2
            if isAbove(keyframes[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
