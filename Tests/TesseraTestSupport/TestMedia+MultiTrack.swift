import Foundation

extension TestMedia {
    /// The subtitle events of `makeMultiTrack`'s source, in seconds: (start, end, text).
    public static let multiTrackEvents: [(Double, Double, String)] = [
        (0.5, 1.5, "hello"), (2.0, 3.2, "second line"), (3.6, 3.9, "third"),
    ]

    /// A 4 s Matroska source with what an export must keep: video; two AAC tracks, English (4 s) and
    /// French titled "Français" (3.5 s, so each track's own end matters); a SubRip track; two chapters
    /// (0–2 s, 2–4 s); and, when asked, a font attachment.
    public static func makeMultiTrack(_ dir: URL, attachment: Bool = true) throws -> URL {
        let srt = dir.appendingPathComponent("sub.srt"), chapters = dir.appendingPathComponent("chapters.txt")
        func stamp(_ t: Double) -> String {
            let ms = Int((t * 1000).rounded())
            return String(format: "00:00:%02d,%03d", ms / 1000, ms % 1000)
        }
        let events = multiTrackEvents.enumerated().map {
            "\($0.offset + 1)\n\(stamp($0.element.0)) --> \(stamp($0.element.1))\n\($0.element.2)\n"
        }
        try events.joined(separator: "\n").write(to: srt, atomically: true, encoding: .utf8)
        try
            ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=2000\ntitle=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=2000\nEND=4000\ntitle=Two\n"
            .write(to: chapters, atomically: true, encoding: .utf8)
        let font = dir.appendingPathComponent("font.ttf")
        try Data("not really a font".utf8).write(to: font)
        let src = dir.appendingPathComponent("multi.mkv")
        _ = try run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y",
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=4",
                "-f", "lavfi", "-i", "sine=frequency=440:duration=4", "-f", "lavfi", "-i",
                "sine=frequency=660:duration=3.5",
                "-i", srt.path, "-i", chapters.path, "-map", "0:v", "-map", "1:a", "-map", "2:a", "-map", "3:s",
                "-map_metadata", "4", "-map_chapters", "4",
                "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-c:a", "aac", "-c:s", "srt",
                "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fre", "-metadata:s:a:1",
                "title=Français",
                "-metadata:s:s:0", "language=eng",
            ]
                + (attachment ? ["-attach", font.path, "-metadata:s:t", "mimetype=application/x-truetype-font"] : [])
                + [src.path])
        return src
    }

    /// Every stream's index, type, codec and language/title tags, from ffprobe.
    public static func streams(_ url: URL) throws -> [[String: Any]] {
        (try probe(url)["streams"] as? [[String: Any]]) ?? []
    }

    /// A subtitle stream's events as (start, end) seconds from the first video frame (Matroska shifts a
    /// whole file by the audio encoder's priming), from ffprobe's packets. The empty samples MP4 puts
    /// between mov_text events (2 bytes: a zero text length) are not events.
    /// `fromVideo: false` gives them on the container's timeline instead.
    public static func subtitleEvents(
        _ url: URL, stream: String = "s:0", fromVideo: Bool = true
    ) throws
        -> [(Double, Double)]
    {
        let videoStart = fromVideo ? try framePTS(url).first ?? 0 : 0
        return try run(
            "ffprobe",
            [
                "-v", "error", "-select_streams", stream, "-show_entries",
                "packet=pts_time,duration_time,size", "-of", "csv=p=0", url.path,
            ]
        )
        .split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",").compactMap { Double($0) }
            return f.count == 3 && f[2] > 2 ? (f[0] - videoStart, f[0] + f[1] - videoStart) : nil
        }
    }

    /// The chapters as (start, end, title), from ffprobe.
    public static func chapters(_ url: URL) throws -> [(Double, Double, String)] {
        let out = try run("ffprobe", ["-v", "error", "-show_chapters", "-of", "json", url.path])
        let json = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]
        return ((json?["chapters"] as? [[String: Any]]) ?? []).map {
            (
                Double($0["start_time"] as? String ?? "") ?? -1, Double($0["end_time"] as? String ?? "") ?? -1,
                ($0["tags"] as? [String: Any])?["title"] as? String ?? ""
            )
        }
    }
}
