import Foundation

/// A static MPEG-DASH manifest (ISO/IEC 23009-1, DASH-IF's live profile for CMAF) over the same files the
/// HLS playlists list: one adaptation set per type, each representation's segments on an exact
/// SegmentTimeline, so no second copy of the media is made.
public enum DASHManifest {
    public static let name = "manifest.mpd"

    public static func render(
        video: [PackagedTrack], audio: [PackagedTrack], subtitles: [PackagedSubtitles] = []
    ) -> String {
        let duration = video.map(\.duration).max() ?? audio.map(\.duration).max() ?? 0
        let longest = video.flatMap(\.segments).map { Double($0.duration) }.max() ?? 0
        let timescale = Double(video.first?.timescale ?? 1)
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" profiles=\"urn:mpeg:dash:profile:isoff-live:2011\" "
                + "type=\"static\" mediaPresentationDuration=\"\(isoDuration(duration))\" "
                + "minBufferTime=\"\(isoDuration(max(2, longest / timescale)))\">",
            "  <Period id=\"0\" start=\"PT0S\">",
        ]
        if !video.isEmpty {
            lines.append(
                "    <AdaptationSet id=\"0\" contentType=\"video\" mimeType=\"video/mp4\" segmentAlignment=\"true\" "
                    + "startWithSAP=\"1\">")
            for v in video {
                guard case .video(let width, let height, let rate) = v.kind else { continue }
                let (peak, _) = v.bandwidth(with: nil)
                lines.append(
                    "      <Representation id=\"\(escaped(v.name))\" bandwidth=\"\(peak)\" codecs=\"\(escaped(v.codecs))\" "
                        + "width=\"\(width)\" height=\"\(height)\" frameRate=\"\(rate.numerator)/\(rate.denominator)\" "
                        + "sar=\"1:1\">")
                lines += template(v, indent: "        ")
                lines.append("      </Representation>")
            }
            lines.append("    </AdaptationSet>")
        }
        for (i, a) in audio.enumerated() {
            guard case .audio(let language, _, let channels, let rate) = a.kind else { continue }
            let lang = language.map { " lang=\"\(escaped(LanguageTag.bcp47($0)))\"" } ?? ""
            lines.append(
                "    <AdaptationSet id=\"\(i + 1)\" contentType=\"audio\" mimeType=\"audio/mp4\" "
                    + "segmentAlignment=\"true\"\(lang)>")
            let (peak, _) = a.bandwidth(with: nil)
            lines.append(
                "      <Representation id=\"\(escaped(a.name))\" bandwidth=\"\(peak)\" codecs=\"\(escaped(a.codecs))\" "
                    + "audioSamplingRate=\"\(rate)\">")
            lines.append(
                "        <AudioChannelConfiguration "
                    + "schemeIdUri=\"urn:mpeg:dash:23003:3:audio_channel_configuration:2011\" value=\"\(channels)\"/>")
            lines += template(a, indent: "        ")
            lines.append("      </Representation>")
            lines.append("    </AdaptationSet>")
        }
        // Subtitles side-loaded as one WebVTT file each (DASH-IF IOP §6.4.5).
        for (i, s) in subtitles.enumerated() {
            let lang = s.language.map { " lang=\"\(escaped(LanguageTag.bcp47($0)))\"" } ?? ""
            lines.append(
                "    <AdaptationSet id=\"\(audio.count + i + 1)\" contentType=\"text\" mimeType=\"text/vtt\"\(lang)>")
            lines.append("      <Role schemeIdUri=\"urn:mpeg:dash:role:2011\" value=\"subtitle\"/>")
            let seconds = duration.isFinite ? Int(min(max(1, duration), 1e9).rounded(.up)) : 1
            let bits = max(1, s.wholeText.utf8.count * 8 / seconds)
            lines.append("      <Representation id=\"\(escaped(s.name))\" bandwidth=\"\(bits)\">")
            lines.append("        <BaseURL>\(escaped(s.name))/\(PackagedSubtitles.wholeName)</BaseURL>")
            lines.append("      </Representation>")
            lines.append("    </AdaptationSet>")
        }
        lines += ["  </Period>", "</MPD>"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The track's SegmentTemplate with its timeline: runs of equal durations as one `S` with a repeat.
    static func template(_ track: PackagedTrack, indent: String) -> [String] {
        var lines = [
            indent + "<SegmentTemplate timescale=\"\(track.timescale)\" "
                + "initialization=\"\(escaped(track.name))/\(PackagedTrack.initName)\" "
                + "media=\"\(escaped(track.name))/seg_$Number%05d$.m4s\" startNumber=\"1\">",
            indent + "  <SegmentTimeline>",
        ]
        var k = 0
        let segments = track.segments
        while k < segments.count {
            var repeats = 0
            while k + repeats + 1 < segments.count && segments[k + repeats + 1].duration == segments[k].duration {
                repeats += 1
            }
            let start =
                k == 0 || segments[k].start != segments[k - 1].start + segments[k - 1].duration
                ? " t=\"\(segments[k].start)\"" : ""
            lines.append(
                indent + "    <S\(start) d=\"\(segments[k].duration)\"\(repeats > 0 ? " r=\"\(repeats)\"" : "")/>")
            k += repeats + 1
        }
        lines += [indent + "  </SegmentTimeline>", indent + "</SegmentTemplate>"]
        return lines
    }

    /// ISO 8601 duration in seconds, to the millisecond: PT30.033S.
    static func isoDuration(_ seconds: Double) -> String {
        "PT" + String(format: "%.3f", seconds.isFinite ? max(0, seconds) : 0) + "S"
    }

    static func escaped(_ text: String) -> String { text.markupEscaped }
}
