import CFFmpeg
import TesseraAV
import TesseraCore

/// A probed media file, as AVFoundation's `AVAsset`: container, timing, tracks with their format
/// descriptions, and a keyframe index per video track.
///
/// ```
///  path ──▶ check the file ──▶ avformat_open_input ──▶ avformat_find_stream_info
///                                                            │
///          InputFile.scanPackets: every packet read once, no decoding
///                                                            │
///        per video track: keyframes, packet count, PTS steps ──▶ KeyframeIndex,
///                                         minFrameDuration, isVariableFrameRate
/// ```
///
/// Loading reads the whole file once when `scanPackets` is true, so it blocks: call it from a
/// dedicated thread, not from Swift's cooperative pool.
public final class Asset: Sendable, Codable {
    public let path: String
    /// libavformat's demuxer name, e.g. `mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, `mpegts`.
    public let container: String
    public let containerLongName: String
    /// The container's duration (microseconds), or the longest track's when the container has none.
    public let duration: MediaTime
    /// The earliest presentation time in the file (microseconds); non-zero in e.g. MPEG-TS.
    public let startTime: MediaTime
    public let bitRate: Int?
    public let metadata: [String: String]
    /// Every stream of the container, in stream-index order (`tracks[i].trackID == i`).
    public let tracks: [AssetTrack]
    /// Per video trackID; empty when loaded without the packet scan.
    public let keyframeIndexes: [Int: KeyframeIndex]
    /// The container's chapters, on the source's timeline.
    public let chapters: [Chapter]
    /// The start timecode (`HH:MM:SS:FF`, `;` before frames for drop-frame), from the container or a
    /// timecode track; nil when there is none.
    public let timecode: String?

    /// A chapter mark: where it starts and ends, and its title.
    public struct Chapter: Sendable, Codable, Hashable {
        @SecondsAndExact public var start: MediaTime
        @SecondsAndExact public var end: MediaTime
        public var title: String?
    }

    init(
        path: String, container: String, containerLongName: String, duration: MediaTime, startTime: MediaTime,
        bitRate: Int?, metadata: [String: String], tracks: [AssetTrack], keyframeIndexes: [Int: KeyframeIndex],
        chapters: [Chapter] = [], timecode: String? = nil
    ) {
        self.path = path
        self.container = container
        self.containerLongName = containerLongName
        self.duration = duration
        self.startTime = startTime
        self.bitRate = bitRate
        self.metadata = metadata
        self.tracks = tracks
        self.keyframeIndexes = keyframeIndexes
        self.chapters = chapters
        self.timecode = timecode
    }

    /// Opens and probes `path`.
    ///
    /// - Parameter scanPackets: read every packet (without decoding) to build the keyframe indexes, count
    ///   frames and measure the smallest frame step. Without it, `keyframeIndexes` is empty, video
    ///   `minFrameDuration` is the nominal one and `isVariableFrameRate` is false.
    /// - Throws: `MediaError` naming `path`:
    ///   - `.notFound`: the path does not exist, is a directory, or cannot be read;
    ///   - `.emptyFile`: the file has no bytes;
    ///   - `.notMedia`: libavformat does not recognise it, or it holds no audio or video stream;
    ///   - `.corrupt`: a recognised container that cannot be read (an MP4 cut short before its `moov`
    ///     index), one whose own index places samples past the end of the file (an MP4 with `moov` in
    ///     front, cut short), or a packet read failing part-way through the scan;
    ///   - `.ffmpeg`: any other libavformat failure.
    public static func load(_ path: String, scanPackets: Bool = true) throws(MediaError) -> Asset {
        do {
            let input = try InputFile(path: path)
            let scans = scanPackets ? try input.scanPackets() : [:]
            let asset = try Asset(input: input, scans: scans)
            // The full probe also decodes the first frames of each video track: HEVC and AV1 carry their
            // mastering display and light levels in the frames, and captions travel in the pictures.
            return scanPackets ? asset.addingFirstFrames() : asset
        } catch {
            throw error.about(path)
        }
    }

    /// The tracks of one media type, in stream order.
    public func tracks(ofType type: MediaType) -> [AssetTrack] { tracks.filter { $0.mediaType == type } }

    public var firstVideoTrack: AssetTrack? { tracks.first { $0.mediaType == .video } }
    public var firstAudioTrack: AssetTrack? { tracks.first { $0.mediaType == .audio } }
}

extension Asset {
    /// Reads the container's properties and every stream's, combined with what the scan saw.
    private convenience init(input: InputFile, scans: [Int: PacketScan]) throws(MediaError) {
        let format = input.context.pointee
        let tracks = input.streams.map { AssetTrack(stream: $0, scan: scans[Int($0.pointee.index)]) }

        var indexes: [Int: KeyframeIndex] = [:]
        for track in tracks where track.mediaType == .video {
            guard let scan = scans[track.trackID] else { continue }
            indexes[track.trackID] = KeyframeIndex(
                trackID: track.trackID, timeBase: track.timeBase,
                keyframes: scan.keyframes, packetCount: scan.packetCount,
                unindexedKeyframeCount: scan.keyframesWithoutPTS)
        }

        let duration =
            format.duration != tessera_AV_NOPTS_VALUE() && format.duration > 0
            ? MediaTime(value: format.duration, timescale: AV_TIME_BASE)
            : Self.longest(tracks.map(\.timeRange.duration))
        let start =
            format.start_time != tessera_AV_NOPTS_VALUE()
            ? MediaTime(value: format.start_time, timescale: AV_TIME_BASE) : .zero
        self.init(
            path: input.path, container: input.formatName,
            containerLongName: format.iformat.flatMap { $0.pointee.long_name }.map { String(cString: $0) } ?? "",
            duration: duration, startTime: start, bitRate: format.bit_rate > 0 ? Int(format.bit_rate) : nil,
            metadata: Self.dictionary(format.metadata), tracks: tracks, keyframeIndexes: indexes,
            chapters: Self.chapters(format), timecode: Self.timecode(of: input))
    }

    static func chapters(_ format: AVFormatContext) -> [Chapter] {
        (0..<Int(format.nb_chapters)).compactMap { i in
            guard let c = format.chapters[i]?.pointee, c.time_base.num > 0, c.time_base.den > 0 else { return nil }
            return Chapter(
                start: Self.time(c.start, in: c.time_base), end: Self.time(c.end, in: c.time_base),
                title: av_dict_get(c.metadata, "title", nil, 0).map { String(cString: $0.pointee.value) })
        }
    }

    /// The container's `timecode` tag, else the first stream's (a QuickTime `tmcd` track, a video track).
    static func timecode(of input: InputFile) -> String? {
        func tag(_ d: OpaquePointer?) -> String? {
            av_dict_get(d, "timecode", nil, 0).map { String(cString: $0.pointee.value) }
        }
        return tag(input.context.pointee.metadata) ?? input.streams.lazy.compactMap { tag($0.pointee.metadata) }.first
    }

    /// This asset with what each video track's first decoded frames state (`FirstFrames`): an HDR-looking
    /// track's metadata completed (a PQ or HLG transfer, or more than 8 bits), closed captions found, and
    /// the fields of a track that does not say it is interlaced looked at.
    /// Unchanged when the frames cannot be decoded: the probe still describes what the container says.
    func addingFirstFrames() -> Asset {
        var changed = false
        let updated = tracks.map { track -> AssetTrack in
            guard var video = track.video else { return track }
            let looksHDR =
                video.color.transfer == .smpte2084 || video.color.transfer == .aribStdB67
                || video.pixelFormat.bitDepth > 8
            // A stream that does not say it is interlaced has its fields looked at (idet).
            let facts = FirstFrames.read(
                path: path, track: track.trackID, knownHDR: video.hdr,
                scanFields: video.fieldOrder?.isInterlaced != true)
            let hdr = looksHDR ? facts.hdr : video.hdr
            guard hdr != video.hdr || facts.closedCaptions != video.closedCaptions || facts.fieldScan != nil else {
                return track
            }
            video.hdr = hdr
            video.closedCaptions = facts.closedCaptions
            video.fieldScan = facts.fieldScan
            changed = true
            var completed = AssetTrack(
                trackID: track.trackID, mediaType: track.mediaType, codec: track.codec, timeBase: track.timeBase,
                timeRange: track.timeRange, frameCount: track.frameCount, bitRate: track.bitRate,
                language: track.language, isDefault: track.isDefault, metadata: track.metadata, video: video,
                audio: track.audio)
            completed.presentationEnd = track.presentationEnd
            return completed
        }
        guard changed else { return self }
        return Asset(
            path: path, container: container, containerLongName: containerLongName, duration: duration,
            startTime: startTime, bitRate: bitRate, metadata: metadata, tracks: updated,
            keyframeIndexes: keyframeIndexes, chapters: chapters, timecode: timecode)
    }

    /// The longest of some durations, compared exactly across timescales; `.invalid` when none is numeric.
    static func longest(_ durations: [MediaTime]) -> MediaTime {
        durations.filter(\.isNumeric).max {
            Int128($0.value) * Int128($1.timescale) < Int128($1.value) * Int128($0.timescale)
        } ?? .invalid
    }

    /// An `AVDictionary` (container or stream tags) as a Swift dictionary.
    static func dictionary(_ dictionary: OpaquePointer?) -> [String: String] {
        var result: [String: String] = [:]
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let e = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
            result[String(cString: e.pointee.key)] = String(cString: e.pointee.value)
            entry = e
        }
        return result
    }

    /// `ticks` of `timeBase` as an exact media time (timescale = the time base's denominator).
    ///
    /// When `ticks × numerator` does not fit in 64 bits the time is rounded (to microseconds, or coarser
    /// where even those overflow) and
    /// flagged `hasBeenRounded`. `AV_NOPTS_VALUE` and a meaningless time base give `.invalid`.
    static func time(_ ticks: Int64, in timeBase: AVRational) -> MediaTime {
        guard ticks != tessera_AV_NOPTS_VALUE(), timeBase.num > 0, timeBase.den > 0 else { return .invalid }
        if timeBase.num == 1 { return MediaTime(value: ticks, timescale: timeBase.den) }
        var a = timeBase.num, b = timeBase.den
        while b != 0 { (a, b) = (b, a % b) }
        let num = timeBase.num / a, den = timeBase.den / a
        let (value, overflow) = ticks.multipliedReportingOverflow(by: Int64(num))
        if !overflow { return MediaTime(value: value, timescale: den) }
        // av_rescale_q answers INT64_MIN when even microseconds overflow; seconds through a Double keep
        // the sign and magnitude (coarser timescales, then ±infinity, as the value demands).
        var rounded = MediaTime(seconds: Double(ticks) * Double(num) / Double(den), preferredTimescale: AV_TIME_BASE)
        rounded.flags.insert(.hasBeenRounded)
        return rounded
    }

    /// The duration of one frame at `rate` frames per second (`1 / rate`), `.invalid` for 0/0 and the like.
    static func frameDuration(rate: AVRational) -> MediaTime {
        rate.num > 0 && rate.den > 0 ? MediaTime(value: Int64(rate.den), timescale: rate.num) : .invalid
    }
}
