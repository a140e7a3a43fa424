import Foundation

/// HTTP Live Streaming playlists (RFC 8216, version 7) for a package's CMAF tracks, as Apple's HLS
/// Authoring Specification asks: a VOD media playlist per track, an I-frame playlist per video rendition,
/// and a multivariant playlist whose BANDWIDTH and AVERAGE-BANDWIDTH are the measured rates.
public enum HLSPlaylists {
    public static let masterName = "master.m3u8"
    public static let playlistName = "playlist.m3u8"
    public static let iFramesName = "iframes.m3u8"
    static let audioGroup = "audio"
    static let subtitleGroup = "subs"

    /// The media playlist of `track`: every segment with its exact duration.
    public static func media(_ track: PackagedTrack) -> String {
        var lines = header(track)
        for (k, s) in track.segments.enumerated() {
            lines.append("#EXTINF:\(decimal(track.seconds(s.duration), 6)),")
            lines.append(PackagedTrack.segmentName(k + 1))
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The I-frame playlist of a video track: each segment's keyframe as a byte range of its file.
    public static func iFrames(_ track: PackagedTrack) -> String {
        var lines = header(track, iFramesOnly: true)
        for (k, s) in track.segments.enumerated() {
            lines.append("#EXTINF:\(decimal(track.seconds(s.duration), 6)),")
            lines.append("#EXT-X-BYTERANGE:\(s.keyframeBytes ?? s.bytes)@0")
            lines.append(PackagedTrack.segmentName(k + 1))
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func header(_ track: PackagedTrack, iFramesOnly: Bool = false) -> [String] {
        let target = targetDuration(track.segments.map { track.seconds($0.duration) })
        return [
            "#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(target)", "#EXT-X-PLAYLIST-TYPE:VOD",
            "#EXT-X-INDEPENDENT-SEGMENTS",
        ] + (iFramesOnly ? ["#EXT-X-I-FRAMES-ONLY"] : []) + ["#EXT-X-MAP:URI=\"\(PackagedTrack.initName)\""]
    }

    /// The multivariant playlist: each audio track as a rendition of one group, each video track as a
    /// variant with that group (its bandwidth counting the largest audio track), and its I-frame playlist.
    public static func master(
        video: [PackagedTrack], audio: [PackagedTrack], subtitles: [PackagedSubtitles] = []
    ) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"]
        for (i, s) in subtitles.enumerated() {
            let name = s.title ?? s.language ?? "Subtitles \(i + 1)"
            var attributes = [
                "TYPE=SUBTITLES", "GROUP-ID=\"\(subtitleGroup)\"", "NAME=\"\(quoted(name))\"", "DEFAULT=NO",
                "AUTOSELECT=YES", "FORCED=NO",
            ]
            if let language = s.language { attributes.append("LANGUAGE=\"\(quoted(LanguageTag.bcp47(language)))\"") }
            attributes.append("URI=\"\(s.name)/\(playlistName)\"")
            lines.append("#EXT-X-MEDIA:" + attributes.joined(separator: ","))
        }
        let loudest = audio.max { $0.bytes < $1.bytes }
        for (i, a) in audio.enumerated() {
            guard case .audio(let language, let title, let channels, _) = a.kind else { continue }
            let name = title ?? language ?? "Audio \(i + 1)"
            var attributes = [
                "TYPE=AUDIO", "GROUP-ID=\"\(audioGroup)\"", "NAME=\"\(quoted(name))\"",
                "DEFAULT=\(i == 0 ? "YES" : "NO")", "AUTOSELECT=YES",
            ]
            if let language { attributes.append("LANGUAGE=\"\(quoted(LanguageTag.bcp47(language)))\"") }
            attributes += ["CHANNELS=\"\(channels)\"", "URI=\"\(a.name)/\(playlistName)\""]
            lines.append("#EXT-X-MEDIA:" + attributes.joined(separator: ","))
        }
        for v in video {
            guard case .video(let width, let height, let rate) = v.kind else { continue }
            let (peak, average) = v.bandwidth(with: loudest)
            let codecs = ([v.codecs] + (loudest.map { [$0.codecs] } ?? [])).joined(separator: ",")
            var attributes = [
                "BANDWIDTH=\(peak)", "AVERAGE-BANDWIDTH=\(average)", "CODECS=\"\(codecs)\"",
                "RESOLUTION=\(width)x\(height)", "FRAME-RATE=\(decimal(rate.seconds, 3))",
            ]
            if loudest != nil { attributes.append("AUDIO=\"\(audioGroup)\"") }
            if !subtitles.isEmpty { attributes.append("SUBTITLES=\"\(subtitleGroup)\"") }
            lines.append("#EXT-X-STREAM-INF:" + attributes.joined(separator: ","))
            lines.append("\(v.name)/\(playlistName)")
        }
        for v in video {
            guard case .video(let width, let height, _) = v.kind else { continue }
            // An I-frame stream's rate: its keyframes' bytes over the segments' durations.
            let iFrames = PackagedTrack(
                name: v.name, kind: v.kind, codecs: v.codecs, timescale: v.timescale,
                segments: v.segments.map { .init(start: $0.start, duration: $0.duration, bytes: $0.keyframeBytes ?? 0) }
            )
            let (peak, average) = iFrames.bandwidth(with: nil)
            lines.append(
                "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=\(peak),AVERAGE-BANDWIDTH=\(average),CODECS=\"\(v.codecs)\","
                    + "RESOLUTION=\(width)x\(height),URI=\"\(v.name)/\(iFramesName)\"")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Every EXTINF, rounded to the nearest integer, must be at most the target duration (at least 1).
    /// Bounded: a duration comes from timestamps a source file chose.
    static func targetDuration(_ seconds: [Double]) -> Int {
        max(1, seconds.map { $0.isFinite ? Int(min(max(0, $0), 1e9).rounded()) : 1 }.max() ?? 1)
    }

    /// An attribute value without the characters a quoted-string cannot hold.
    static func quoted(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != "\"" && $0 != "\n" && $0 != "\r" }.map(Character.init))
    }

    /// `value` with `places` decimals, never in exponent form.
    static func decimal(_ value: Double, _ places: Int) -> String { String(format: "%.\(places)f", value) }
}
