import Foundation
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraAV
@testable import TesseraMedia

/// The one check before a job runs, for a source and a composition, naming fields as the command line or
/// the API does.
@Suite struct JobPreflightTests {
    let dir: URL
    init() throws { dir = try TestMedia.makeDirectory("preflight") }

    func check(
        _ input: JobPreflight.Input, _ naming: JobPreflight.Naming = .request
    ) -> Result<JobPreflight, JobPreflight.Failure> {
        Result { () throws(JobPreflight.Failure) in try JobPreflight.check(input, naming: naming, segmentDuration: 1) }
    }

    func source(_ path: URL, range: TimeRange? = nil, audio: AudioTrackSelection? = nil) -> JobPreflight.Input {
        .source(path: path.path, range: range, retiming: nil, audioTracks: audio)
    }

    @Test func aSourcesJobIsItsMediasAndItsFieldsAreNamedAsTheCallerNamesThem() throws {
        defer { TestMedia.cleanup(dir) }
        let clip = dir.appendingPathComponent("clip.mp4"), sound = dir.appendingPathComponent("sound.m4a")
        try TestMedia.make(clip, seconds: 2)
        try TestMedia.make(sound, seconds: 1, video: nil)
        let made = try check(source(clip)).get()
        #expect(abs(made.duration.seconds - 2) < 0.05 && made.frameDuration == Rational(1, 30))
        #expect(made.renderWidth == nil && made.framesPerSegment == 30)
        // Each failure is its own case, for the CLI's exit status and the API's 400.
        guard case .failure(.noVideo) = check(source(sound)) else {
            Issue.record("audio-only")
            return
        }
        let text = dir.appendingPathComponent("notes.mp4")
        try Data("not media".utf8).write(to: text)
        guard case .failure(.media(let error)) = check(source(text)) else {
            Issue.record("not media")
            return
        }
        #expect(error.message.contains("not a media file"), "\(error.message)")
        let late = TimeRange(start: MediaTime(seconds: 5, preferredTimescale: 1000), duration: .zero)
        for (naming, field) in [(JobPreflight.Naming.flags, "--time-range"), (.request, "timeRange")] {
            guard case .failure(.request(let e)) = check(source(clip, range: late), naming) else {
                Issue.record("a range after the end")
                return
            }
            #expect(e.field == field && e.description.contains("after the source ends"), "\(e)")
        }
        let french = AudioTrackSelection(languages: ["fre"])
        guard case .failure(.request(let e)) = check(source(clip, audio: french), .flags) else {
            Issue.record("no French track")
            return
        }
        #expect(e.field == "--audio-track", "\(e)")
    }

    @Test func aCompositionsJobIsItsRenderAndItsSegmentsMemory() throws {
        defer { TestMedia.cleanup(dir) }
        let clip = dir.appendingPathComponent("clip.mp4")
        try TestMedia.make(clip, seconds: 1, audio: nil)
        func spec(_ size: String) throws -> CompositionSpec {
            try JSONDecoder().decode(
                CompositionSpec.self,
                from: Data(
                    #"{"assets": [{"id": "a", "path": "\#(clip.path)"}], "edits": [{"insert": {"asset": "a"}}], "videoComposition": {"renderSize": "\#(size)", "frameRate": "30"}}"#
                        .utf8))
        }
        let made = try check(.composition(try spec("640x360"), output: dir.appendingPathComponent("o.mp4").path)).get()
        #expect(made.renderWidth == 640 && made.renderHeight == 360 && made.framesPerSegment == 30)
        #expect(abs(made.duration.seconds - 1) < 1e-9)
        // 8192x8192 in segments of 30 frames is past what one segment may hold.
        guard case .failure(.request(let e)) = check(.composition(try spec("8192x8192"), output: "o.mp4")) else {
            Issue.record("a render too large for a segment")
            return
        }
        #expect(e.field == "spec.videoComposition.renderSize", "\(e)")
    }
}
