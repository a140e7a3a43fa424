import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore

/// Writes a streaming package, as AVAssetWriter writes fragmented MPEG-4 for HLS: a CMAF track file per
/// video rendition and per audio track, each cut into media segments at the same times (one fragment per
/// segment), then the HLS playlists and the DASH manifest over those files.
///
/// ```
///  DIR/.NAME.partial-XXXX/ 1280x720/track.mp4 … audio0/track.mp4   (AssetWriters, fragmented)
///     ─ finished, verified ─▶ split at the fragments: init.mp4, seg_00001.m4s …
///     ─ manifests: master.m3u8 + playlist.m3u8 per track, manifest.mpd ─ rename ─▶ DIR
/// ```
/// Nothing appears at `outputPath` until `finish` has verified everything; a failed or cancelled package
/// removes its temporary folder.
final class PackageWriter {
    struct Video {
        var writer: AssetWriter
        var name: String
        var frameRate: Rational
    }
    struct Audio {
        var writer: AssetWriter
        var name: String
        var language: String?
        var title: String?
        /// How much later than the video its source track ends (kept, as in a single file).
        var endGap: MediaTime
    }

    let outputPath: String
    let temporaryPath: String
    private let overwrite: Bool
    private let formats: [PackageFormat]
    /// Where media segments 2, 3, … start, on the package's timeline.
    private let boundaries: [MediaTime]
    let segmentDuration: Double
    private(set) var video: [Video] = []
    private(set) var audio: [Audio] = []
    private(set) var subtitles: [WebVTTCues] = []
    private var finished = false

    /// Checks the destination and makes the temporary folder beside it.
    /// - Throws: `.outputLocation` when DIR is a file or its parent folder is missing; `.outputExists` when
    ///   DIR exists and `overwrite` is false.
    init(
        outputPath: String, formats: [PackageFormat], boundaries: [MediaTime], segmentDuration: Double,
        overwrite: Bool
    ) throws(MediaError) {
        let url = URL(fileURLWithPath: outputPath).standardized
        self.outputPath = url.path
        self.formats = formats
        self.boundaries = boundaries
        self.segmentDuration = segmentDuration
        self.overwrite = overwrite
        let parent = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw MediaError(.outputLocation, path: outputPath, "folder \(parent) does not exist")
        }
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw MediaError(.outputLocation, path: outputPath, "is a file: a package is written to a folder")
            }
            if !overwrite { throw MediaError(.outputExists, path: outputPath, "already exists (use --overwrite)") }
        }
        temporaryPath =
            parent + "/" + AssetWriter.temporaryPrefix(of: url) + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        do {
            try FileManager.default.createDirectory(atPath: temporaryPath, withIntermediateDirectories: false)
        } catch {
            throw MediaError(.outputLocation, path: outputPath, "cannot create \(temporaryPath): \(error)")
        }
    }

    deinit { if !finished { cancel() } }

    /// A rendition's track file, in its own folder.
    func addVideo(name: String, frameRate: Rational) throws(MediaError) -> AssetWriter {
        let writer = try trackWriter(name)
        video.append(Video(writer: writer, name: name, frameRate: frameRate))
        return writer
    }

    /// An audio track's file, in its own folder.
    func addAudio(name: String, language: String?, title: String?, endGap: MediaTime) throws(MediaError) -> AssetWriter
    {
        let writer = try trackWriter(name)
        audio.append(Audio(writer: writer, name: name, language: language, title: title, endGap: endGap))
        return writer
    }

    /// A subtitle track's cues, written as WebVTT in its own folder when the package is finished.
    func addSubtitles(name: String, language: String?, title: String?) throws(MediaError) -> WebVTTCues {
        let folder = temporaryPath + "/" + name
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        } catch {
            throw MediaError(.outputLocation, path: outputPath, "cannot create \(folder): \(error)")
        }
        let cues = WebVTTCues(name: name, language: language, title: title)
        subtitles.append(cues)
        return cues
    }

    private func trackWriter(_ name: String) throws(MediaError) -> AssetWriter {
        let folder = temporaryPath + "/" + name
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        } catch {
            throw MediaError(.outputLocation, path: outputPath, "cannot create \(folder): \(error)")
        }
        let writer = try AssetWriter(outputPath: folder + "/track.mp4", fileType: .mp4)
        writer.fragmentBoundaries = boundaries
        return writer
    }

    /// Opens every track file.
    func startWriting() throws(MediaError) {
        for w in video.map(\.writer) + audio.map(\.writer) { try w.startWriting() }
    }

    /// Removes the temporary folder; `outputPath` is left as it was.
    func cancel() {
        for w in video.map(\.writer) + audio.map(\.writer) { w.cancelWriting() }
        try? FileManager.default.removeItem(atPath: temporaryPath)
        finished = true
    }

    /// Finishes every track file (`verifyVideo` checks each rendition's whole file before it is cut),
    /// cuts them into segments, checks the package's rules, writes the manifests and moves the folder into
    /// place.
    /// - Parameters:
    ///   - segmentStarts: every media segment's first frame, on the package's timeline (the plan's).
    ///   - videoEnd: where the last frame ends.
    /// - Throws: `.verificationFailed` naming the track and segment that breaks a rule; the writers' and
    ///   the verifier's errors. The temporary folder is removed.
    func finish(
        segmentStarts: [MediaTime], videoEnd: MediaTime, verifyVideo: (String) throws(MediaError) -> Void
    ) throws(MediaError) -> PackageReport {
        do throws(MediaError) {
            var videoTracks: [PackagedTrack] = []
            var audioTracks: [PackagedTrack] = []
            for v in video {
                try v.writer.finishWriting(check: verifyVideo)
                let stream = try v.writer.onlyStream()
                let c = stream.pointee.codecpar.pointee
                let kind = PackagedTrack.Kind.video(width: Int(c.width), height: Int(c.height), frameRate: v.frameRate)
                let track = try split(v.writer, name: v.name, kind: kind, timeBase: stream.pointee.time_base)
                try checkVideo(track, v.writer, segmentStarts: segmentStarts, end: videoEnd)
                videoTracks.append(track)
            }
            for a in audio {
                try a.writer.finishWriting()
                let stream = try a.writer.onlyStream()
                let c = stream.pointee.codecpar.pointee
                let kind = PackagedTrack.Kind.audio(
                    language: a.language, title: a.title, channels: Int(c.ch_layout.nb_channels),
                    sampleRate: Int(c.sample_rate))
                let track = try split(a.writer, name: a.name, kind: kind, timeBase: stream.pointee.time_base)
                try checkAudio(track, a.writer, timeBase: stream.pointee.time_base, end: videoEnd + a.endGap)
                audioTracks.append(track)
            }
            // Subtitles on the first rendition's segments: a WebVTT file per media segment and one whole.
            let spans = (videoTracks.first?.segments ?? []).map { s in
                PackagedSubtitles.Span(
                    start: videoTracks[0].seconds(s.start), duration: videoTracks[0].seconds(s.duration))
            }
            let subtitleTracks = subtitles.map {
                PackagedSubtitles(
                    name: $0.name, language: $0.language, title: $0.title, cues: $0.finished, segments: spans,
                    end: videoEnd.seconds)
            }
            for s in subtitleTracks {
                for k in s.segments.indices {
                    try write(s.segmentText(k), to: "\(s.name)/\(PackagedSubtitles.segmentName(k + 1))")
                }
                try write(s.wholeText, to: "\(s.name)/\(PackagedSubtitles.wholeName)")
                if formats.contains(.hls) { try write(s.playlist, to: "\(s.name)/\(HLSPlaylists.playlistName)") }
            }
            var manifests: [String] = []
            if formats.contains(.hls) {
                for t in videoTracks + audioTracks {
                    try write(HLSPlaylists.media(t), to: "\(t.name)/\(HLSPlaylists.playlistName)")
                    if t.isVideo { try write(HLSPlaylists.iFrames(t), to: "\(t.name)/\(HLSPlaylists.iFramesName)") }
                }
                try write(
                    HLSPlaylists.master(video: videoTracks, audio: audioTracks, subtitles: subtitleTracks),
                    to: HLSPlaylists.masterName)
                manifests.append(HLSPlaylists.masterName)
            }
            if formats.contains(.dash) {
                try write(
                    DASHManifest.render(video: videoTracks, audio: audioTracks, subtitles: subtitleTracks),
                    to: DASHManifest.name)
                manifests.append(DASHManifest.name)
            }
            var report = PackageReport(
                manifests: manifests, segmentDuration: segmentDuration,
                video: zip(videoTracks, video).map { Self.summary($0, $1.writer) },
                audio: zip(audioTracks, audio).map { Self.summary($0, $1.writer, language: $1.language) })
            report.subtitles = subtitleTracks.map { .init(name: $0.name, language: $0.language, cues: $0.cues.count) }
            try moveIntoPlace()
            finished = true
            return report
        } catch {
            cancel()
            throw error
        }
    }

    /// Cuts a finished track file into its initialization and media segments, and describes them.
    private func split(
        _ writer: AssetWriter, name: String, kind: PackagedTrack.Kind, timeBase tb: AVRational
    ) throws(MediaError) -> PackagedTrack {
        let path = writer.outputPath
        let file = try CMAFTrackFile(path: path)
        let fragments = writer.fragments
        guard file.fragments.count == fragments.count else {
            throw MediaError(
                .verificationFailed, path: path,
                "\(name): \(file.fragments.count) fragments written, \(fragments.count) cut")
        }
        let folder = temporaryPath + "/" + name
        let initBytes = [UInt8](try file.bytes(file.initSegment))
        try write(initBytes, to: folder + "/" + PackagedTrack.initName)
        var segments: [PackagedTrack.Segment] = []
        for (k, (range, fragment)) in zip(file.fragments, fragments).enumerated() {
            try write(try file.bytes(range), to: folder + "/" + PackagedTrack.segmentName(k + 1))
            // An encoder's priming (pts before 0) is cut by the edit list: the track starts at 0.
            let start = k == 0 ? max(0, fragment.start) : fragment.start
            // The keyframe's bytes: the fragment's boxes up to its media data, and the first sample.
            let keyframe = min(range.count, file.mediaOffsets[k] + fragment.firstPacketBytes)
            segments.append(.init(start: start, duration: 0, bytes: range.count, keyframeBytes: keyframe))
        }
        for k in segments.indices {
            let end = k + 1 < segments.count ? segments[k + 1].start : fragments[k].end
            segments[k].duration = max(0, end - segments[k].start)
        }
        try? FileManager.default.removeItem(atPath: path)
        guard let codecs = CodecString.of(initSegment: initBytes) else {
            throw MediaError(.verificationFailed, path: path, "\(name): no codec configuration in its init segment")
        }
        guard tb.num == 1, tb.den > 0 else {
            throw MediaError(
                .verificationFailed, path: path, "\(name): time base \(tb.num)/\(tb.den) is not 1/timescale")
        }
        return PackagedTrack(name: name, kind: kind, codecs: codecs, timescale: Int64(tb.den), segments: segments)
    }

    /// Every media segment starts with the keyframe on its planned frame, and the segments add up to the
    /// video within one frame.
    private func checkVideo(
        _ track: PackagedTrack, _ writer: AssetWriter, segmentStarts: [MediaTime], end: MediaTime
    ) throws(MediaError) {
        let tb = AVRational(num: 1, den: Int32(clamping: track.timescale))
        guard track.segments.count == segmentStarts.count else {
            throw MediaError(
                .verificationFailed, path: outputPath,
                "\(track.name): \(track.segments.count) media segments, planned \(segmentStarts.count)")
        }
        for (k, (s, planned)) in zip(track.segments, segmentStarts).enumerated() {
            let want = TickMath.ceilTicks(planned, tb)
            guard s.start == want else {
                throw MediaError(
                    .verificationFailed, path: outputPath,
                    "\(track.name) segment \(k + 1) starts at tick \(s.start), planned \(want): not aligned")
            }
        }
        let frame = 1.0 / max(1e-9, (video.first { $0.name == track.name }?.frameRate.seconds ?? 1))
        let sum = track.duration
        guard abs(sum - end.seconds) <= frame else {
            throw MediaError(
                .verificationFailed, path: outputPath,
                "\(track.name): segments add up to \(sum.rounded(places: 3)) s, the video lasts \(end.seconds.rounded(places: 3)) s"
            )
        }
        let (peak, average) = track.bandwidth(with: nil)
        if track.segments.count > 1, Double(peak) > 2 * Double(average) {
            let worst = track.segments.indices.max {
                Double(track.segments[$0].bytes) / Double(max(1, track.segments[$0].duration))
                    < Double(track.segments[$1].bytes) / Double(max(1, track.segments[$1].duration))
            }!
            throw MediaError(
                .verificationFailed, path: outputPath,
                "\(track.name) segment \(worst + 1) peaks at \(peak / 1000) kb/s, more than twice the average "
                    + "\(average / 1000) kb/s (Apple's rule)")
        }
    }

    /// The audio starts with the video (its priming cut by the edit list) and ends within one audio frame
    /// of `end`: the video's, and the source's own gap between its tracks' ends.
    private func checkAudio(
        _ track: PackagedTrack, _ writer: AssetWriter, timeBase tb: AVRational, end videoEnd: MediaTime
    ) throws(MediaError) {
        guard let first = writer.fragments.first, let last = writer.fragments.last else {
            throw MediaError(.verificationFailed, path: outputPath, "\(track.name) holds no audio")
        }
        let frame = Double(max(1, first.firstPacketDuration)) * Double(tb.num) / Double(max(1, tb.den))
        let end = Double(last.end) * Double(tb.num) / Double(max(1, tb.den))
        guard abs(end - videoEnd.seconds) <= frame + 1e-6 else {
            throw MediaError(
                .verificationFailed, path: outputPath,
                "\(track.name) ends at \(end.rounded(places: 3)) s, expected at \(videoEnd.seconds.rounded(places: 3)) s "
                    + "(the video's end and the source's gap between its tracks): more than one audio frame apart")
        }
    }

    private static func summary(
        _ t: PackagedTrack, _ writer: AssetWriter, language: String? = nil
    ) -> PackageReport.Track {
        var width: Int?
        var height: Int?
        if case .video(let w, let h, _) = t.kind { (width, height) = (w, h) }
        let (peak, average) = t.bandwidth(with: nil)
        let end = writer.fragments.last.map { t.seconds($0.end) } ?? 0
        return PackageReport.Track(
            name: t.name, codecs: t.codecs, width: width, height: height, language: language, peakBitRate: peak,
            averageBitRate: average, segments: t.segments.count, duration: t.duration,
            start: t.seconds(t.segments.first?.start ?? 0), end: end)
    }

    private func write(_ text: String, to relative: String) throws(MediaError) {
        try write(Array(text.utf8), to: temporaryPath + "/" + relative)
    }

    private func write(_ bytes: [UInt8], to path: String) throws(MediaError) { try write(Data(bytes), to: path) }

    private func write(_ data: Data, to path: String) throws(MediaError) {
        guard FileManager.default.createFile(atPath: path, contents: data) else {
            throw MediaError(.io, path: path, "cannot write (disk full or not writable?)")
        }
    }

    /// Renames the finished folder to `outputPath`, replacing an existing package only when asked.
    private func moveIntoPlace() throws(MediaError) {
        var old: String?
        if FileManager.default.fileExists(atPath: outputPath) {
            guard overwrite else {
                throw MediaError(.outputExists, path: outputPath, "already exists (use --overwrite)")
            }
            let aside = temporaryPath + ".old"
            guard rename(outputPath, aside) == 0 else {
                throw MediaError(.outputLocation, path: outputPath, "cannot move the old package aside: \(errnoText())")
            }
            old = aside
        }
        guard rename(temporaryPath, outputPath) == 0 else {
            let reason = errnoText()
            if let old { _ = rename(old, outputPath) }
            throw MediaError(.outputLocation, path: outputPath, "cannot move the package into place: \(reason)")
        }
        if let old { try? FileManager.default.removeItem(atPath: old) }
    }

    private func errnoText() -> String { String(cString: strerror(errno)) }
}
