import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraMedia

/// Planning reads an MP4's sample tables, not its samples (`InputFile(indexing:)`, `SampleTableIO`): the
/// index it builds must be the one a full read of every packet builds, whatever the file holds, and it
/// must read a small part of the file where it can skip the samples.
@Suite struct SampleTableIndexTests {
    struct Case {
        var name: String
        var video: [String]
        var audio: [String]?
        var extra: [String] = []
        /// Whether planning may skip the samples' bytes (an MP4 or QuickTime file of indexable codecs).
        var skips: Bool
    }

    static let x264 = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "16", "-bf", "3", "-g", "30"]
    static let cases: [Case] = [
        Case(name: "h264-aac.mp4", video: x264 + ["-pix_fmt", "yuv420p"], audio: ["-c:a", "aac"], skips: true),
        Case(
            name: "h264-open-gop.mp4",
            video: x264 + ["-pix_fmt", "yuv420p", "-x264-params", "open-gop=1:keyint=30:min-keyint=10"],
            audio: ["-c:a", "aac"], skips: true),
        Case(
            name: "hevc-pcm.mov",
            video: [
                "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error:keyint=30:bframes=3",
                "-tag:v", "hvc1", "-pix_fmt", "yuv420p10le",
            ],
            audio: ["-c:a", "pcm_s24le"], skips: true),
        Case(
            name: "prores-timecode.mov", video: ["-c:v", "prores_ks", "-profile:v", "2"], audio: ["-c:a", "pcm_s16le"],
            extra: ["-timecode", "01:00:00:00"], skips: true),
        Case(
            name: "fragmented.mp4", video: x264 + ["-pix_fmt", "yuv420p"], audio: ["-c:a", "aac"],
            extra: ["-movflags", "frag_keyframe+empty_moov"], skips: true),
        Case(
            name: "vp9.mp4", video: ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-g", "30"], audio: nil,
            skips: false),
        Case(name: "h264-aac.mkv", video: x264 + ["-pix_fmt", "yuv420p"], audio: ["-c:a", "aac"], skips: false),
    ]

    /// The first place two indexes differ, or nil.
    static func difference(_ a: VideoPacketIndex, _ b: VideoPacketIndex, audio: [Int]) -> String? {
        if a.entries.count != b.entries.count { return "\(a.entries.count) packets against \(b.entries.count)" }
        if let i = a.entries.indices.first(where: { a.entries[$0] != b.entries[$0] }) {
            return "packet \(i): \(a.entries[i]) against \(b.entries[i])"
        }
        for track in audio + [a.trackID] where a.streamEnds[track] != b.streamEnds[track] {
            return "track \(track) ends at \(String(describing: a.streamEnds[track])), "
                + "against \(String(describing: b.streamEnds[track]))"
        }
        return nil
    }

    @Test("Planning's index from the sample tables is the full read's, reading a small part of the file")
    func sameIndexFewerBytes() throws {
        let dir = try TestMedia.makeDirectory("sample-table")
        defer { TestMedia.cleanup(dir) }
        for c in Self.cases {
            let src = dir.appendingPathComponent(c.name)
            try TestMedia.make(src, seconds: 8, width: 640, height: 360, video: c.video, audio: c.audio, extra: c.extra)
            try check(src, c)
        }
        // A cut made by stream copy from mid-GOP: an edit list, with the packets before the cut back to the
        // keyframe kept and marked to discard.
        let cut = dir.appendingPathComponent("edit-list.mp4")
        _ = try TestMedia.run(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-y", "-ss", "1.3", "-i",
                dir.appendingPathComponent("h264-aac.mp4").path,
                "-c", "copy", cut.path,
            ])
        try check(cut, Case(name: "edit-list.mp4", video: [], audio: nil, skips: true), frames: nil)
    }

    /// The index from the sample tables against the full read's, and the bytes it read.
    func check(_ src: URL, _ c: Case, frames: Int? = 240) throws {
        let full = try InputFile(path: src.path)
        let track = try #require(full.bestStream(AVMEDIA_TYPE_VIDEO))
        let audio = full.streams.indices.filter {
            full.streams[$0].pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO
        }
        let indexing = try InputFile(indexing: src.path)
        let expected = try VideoPacketIndex.build(full, trackID: track)
        let index = try VideoPacketIndex.build(indexing, trackID: track)
        #expect(Self.difference(index, expected, audio: audio) == nil, "\(c.name)")
        if let frames { #expect(index.entries.count == frames, "\(c.name)") }
        #expect(index.entries.filter(\.isKeyframe).count >= 6, "\(c.name)")
        if !c.video.contains("prores_ks") { #expect(index.entries.contains { !$0.isKeyframe }, "\(c.name)") }
        let size = try #require(
            (try FileManager.default.attributesOfItem(atPath: src.path)[.size] as? NSNumber)?.int64Value)
        let read = try #require(indexing.bytesRead)
        // Opening reads some samples for real (libavformat decodes a few frames for each stream's
        // parameters); the rest is the boxes.
        if c.skips && c.name != "fragmented.mp4" {
            #expect(read * 2 < size, "\(c.name): \(read) of \(size) bytes read")
        } else {
            #expect(read >= size, "\(c.name): \(read) of \(size) bytes read")
        }
    }

    @Test("What indexing reads grows with the sample tables, not with the samples")
    func readsTablesNotSamples() throws {
        let dir = try TestMedia.makeDirectory("sample-table-growth")
        defer { TestMedia.cleanup(dir) }
        var reads: [Int64] = [], sizes: [Int64] = []
        for seconds in [8.0, 24.0] {
            let src = dir.appendingPathComponent("src-\(Int(seconds)).mp4")
            try TestMedia.make(
                src, seconds: seconds, width: 640, height: 360, video: Self.x264 + ["-pix_fmt", "yuv420p"],
                audio: ["-c:a", "aac"])
            let input = try InputFile(indexing: src.path)
            _ = try VideoPacketIndex.build(input, trackID: 0)
            reads.append(try #require(input.bytesRead))
            sizes.append(
                try #require(
                    (try FileManager.default.attributesOfItem(atPath: src.path)[.size] as? NSNumber)?.int64Value))
        }
        // Two thirds more film: a few kilobytes more of tables, megabytes more of samples.
        #expect((reads[1] - reads[0]) * 50 < sizes[1] - sizes[0], "read \(reads), files \(sizes)")
    }

    @Test("A plan from the sample tables cuts where a plan from every packet does")
    func samePlan() throws {
        let dir = try TestMedia.makeDirectory("sample-table-plan")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4")
        try TestMedia.make(src, seconds: 8, video: Self.x264 + ["-pix_fmt", "yuv420p"], audio: ["-c:a", "aac"])
        let full = try VideoPacketIndex.build(try InputFile(path: src.path), trackID: 0)
        let index = try VideoPacketIndex.build(try InputFile(indexing: src.path), trackID: 0)
        let plan = { (i: VideoPacketIndex) in
            SegmentPlanner.cut(i, start: 0, end: .max, .asIs(targetTicks: 2 * 15360, parallel: 3)).segments
        }
        #expect(plan(index).count >= 3)
        #expect(plan(index) == plan(full))
    }

    @Test("A file cut short is refused when indexing, as when reading it")
    func truncated() throws {
        let dir = try TestMedia.makeDirectory("sample-table-cut")
        defer { TestMedia.cleanup(dir) }
        let src = dir.appendingPathComponent("src.mp4")
        try TestMedia.make(
            src, seconds: 4, video: Self.x264 + ["-pix_fmt", "yuv420p"], audio: ["-c:a", "aac"],
            extra: ["-movflags", "+faststart"])
        let data = try Data(contentsOf: src)
        try data.prefix(data.count / 2).write(to: src)
        #expect {
            _ = try InputFile(indexing: src.path)
        } throws: { ($0 as? MediaError)?.kind == .corrupt }
    }
}
