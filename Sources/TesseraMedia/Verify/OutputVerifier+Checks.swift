import CFFmpeg
import TesseraCore

/// The checks, each a pure function of the scan: one `Check` naming the first offender when it fails.
extension OutputVerifier {
    typealias Check = VerificationReport.Check

    /// Every check that applies, in `Check.Name` order. Without a video track only that failure and
    /// decoding are reported; the expectation checks run only with an expectation, the audio checks only
    /// with an audio track.
    static func checks(
        _ scan: MediaTimingScan, expectation: Expectation?, expectedStart: MediaTime = .zero,
        expectedAudioEndGaps: [MediaTime] = [], videoDecoding: VideoDecoding = .verifier
    ) -> [Check] {
        guard scan.videoStream != nil else {
            return [Check(.videoTrack, passed: false, "the file has no video track"), decodable(scan, videoDecoding)]
        }
        var checks = [
            Check(.videoTrack, passed: true, "\(scan.videoCodec) in \(scan.formatName)"),
            firstPacketKeyframe(scan), dtsIncreasing(scan), ptsNotBeforeDTS(scan), decodable(scan, videoDecoding),
            packetDurations(scan), frameRate(scan),
            presentationOrder(scan), firstFrameAtStart(scan, expectedStart: expectedStart),
        ]
        if let expectation {
            if let offsets = expectation.offsets() { checks.append(presentationTimes(scan, offsets)) }
            let expected = expectation.frameCount
            checks.append(
                Check(
                    .frameCount, passed: scan.frames.count == expected,
                    "\(scan.frames.count) frames, expected \(expected)"))
        }
        // Every audio track is held to the video on its own, against its own source track's gap.
        for (i, track) in scan.audios.enumerated() {
            var one = scan
            one.audios = [track]
            let gap = i < expectedAudioEndGaps.count ? expectedAudioEndGaps[i] : .zero
            for var check in [audioDuration(one, expectedGap: gap), avStartOffset(one, expectedStart: expectedStart)] {
                if scan.audios.count > 1 { check.detail = "audio track \(track.track): " + check.detail }
                checks.append(check)
            }
        }
        return checks
    }

    static func firstPacketKeyframe(_ scan: MediaTimingScan) -> Check {
        guard let first = scan.packets.first else {
            return Check(.firstPacketKeyframe, passed: false, "the video track has no packets")
        }
        let time = scan.videoTime(first.pts)
        return first.isKeyframe
            ? Check(.firstPacketKeyframe, passed: true, "packet 0 is a keyframe")
            : Check(
                .firstPacketKeyframe, passed: false, "packet 0 (pts \(secondsText(time))) is not a keyframe",
                packet: 0, time: time)
    }

    /// Packets without a DTS are skipped: Matroska stores none, and libavformat derives them only once
    /// it has seen how far frames are reordered, so the first packets of a B-frame stream lack one.
    static func dtsIncreasing(_ scan: MediaTimingScan) -> Check {
        let none = tessera_AV_NOPTS_VALUE()
        var previous: (index: Int, dts: Int64)?
        for (index, packet) in scan.packets.enumerated() where packet.dts != none {
            if let previous, packet.dts <= previous.dts {
                let time = scan.videoTime(packet.dts)
                return Check(
                    .dtsIncreasing, passed: false,
                    "packet \(index): dts \(packet.dts) (\(secondsText(time))) does not increase on packet "
                        + "\(previous.index)'s \(previous.dts)", packet: index, time: time)
            }
            previous = (index, packet.dts)
        }
        let missing = scan.packets.count { $0.dts == none }
        return Check(
            .dtsIncreasing, passed: true,
            "\(scan.packets.count) packets"
                + (missing > 0 ? ", \(missing) without a DTS in the container (skipped)" : ""))
    }

    static func ptsNotBeforeDTS(_ scan: MediaTimingScan) -> Check {
        let none = tessera_AV_NOPTS_VALUE()
        for (index, packet) in scan.packets.enumerated()
        where packet.pts != none && packet.dts != none && packet.pts < packet.dts {
            let time = scan.videoTime(packet.pts)
            return Check(
                .ptsNotBeforeDTS, passed: false,
                "packet \(index): pts \(packet.pts) (\(secondsText(time))) is before its dts \(packet.dts) "
                    + "(\(secondsText(scan.videoTime(packet.dts))))", packet: index, time: time)
        }
        return Check(.ptsNotBeforeDTS, passed: true, "every packet decoded no later than shown")
    }

    /// Every packet has a positive duration. For constant-rate video (every presentation step within one
    /// tick of the first) each duration is that step, to one tick (Matroska rounds to milliseconds). For
    /// variable-rate video only their presence is checked: MP4 stores durations in decode order, so with
    /// reordered frames they are not the presentation steps.
    static func packetDurations(_ scan: MediaTimingScan) -> Check {
        let none = tessera_AV_NOPTS_VALUE()
        let order = scan.packets.indices.filter { scan.packets[$0].pts != none }
            .sorted { scan.packets[$0].pts < scan.packets[$1].pts }
        if let index = order.first(where: { scan.packets[$0].duration <= 0 }) {
            let time = scan.videoTime(scan.packets[index].pts)
            return Check(
                .packetDurations, passed: false, "packet \(index) at \(secondsText(time)) has no duration",
                packet: index, time: time)
        }
        let steps = zip(order.dropFirst(), order).map { scan.packets[$0].pts &- scan.packets[$1].pts }
        guard let first = steps.first, steps.allSatisfy({ abs($0 &- first) <= 1 }) else {
            return Check(.packetDurations, passed: true, "\(order.count) packets, each with a duration (variable rate)")
        }
        for (rank, index) in order.dropLast().enumerated() {
            let packet = scan.packets[index]
            if abs(steps[rank] &- packet.duration) > 1 {
                let time = scan.videoTime(packet.pts)
                return Check(
                    .packetDurations, passed: false,
                    "packet \(index) at \(secondsText(time)) lasts \(packet.duration) ticks but the next frame "
                        + "comes \(steps[rank]) ticks later", packet: index, time: time)
            }
        }
        return Check(.packetDurations, passed: true, "\(order.count) packets, each lasting until the next")
    }

    /// Constant-rate video (every presentation step within one tick of the first) must declare that rate:
    /// one frame at the declared rate lasts the observed step, to one tick. Variable-rate video passes.
    static func frameRate(_ scan: MediaTimingScan) -> Check {
        let none = tessera_AV_NOPTS_VALUE()
        let times = scan.packets.map(\.pts).filter { $0 != none }.sorted()
        guard times.count > 2 else { return Check(.frameRate, passed: true, "too few frames to observe a rate") }
        let steps = zip(times.dropFirst(), times).map { $0 &- $1 }
        let first = steps[0]
        guard steps.allSatisfy({ abs($0 &- first) <= 1 }) else {
            return Check(.frameRate, passed: true, "variable frame rate: nothing to declare")
        }
        // The mean step, exactly: (last − first) / (count − 1) ticks.
        let span = Double(times.last! &- times.first!) / Double(steps.count)
        let tb = scan.videoTimeBase, rate = scan.videoDeclaredRate
        let observed = Double(tb.den) / (Double(tb.num) * span)
        guard rate.num > 0, rate.den > 0 else {
            return Check(
                .frameRate, passed: false,
                String(
                    format: "no frame rate declared; the frames run at %.3f/s",
                    observed))
        }
        // One frame at the declared rate, in ticks, against the observed step.
        let declaredStep = Double(rate.den) * Double(tb.den) / (Double(rate.num) * Double(tb.num))
        let text = String(
            format: "declared %d/%d (%.3f/s), observed %.3f/s", rate.num, rate.den,
            Double(rate.num) / Double(rate.den), observed)
        return Check(.frameRate, passed: abs(declaredStep - span) <= 1, text)
    }

    /// Passed says what was decoded: with `.skipped` the video was not, and the detail says so.
    static func decodable(_ scan: MediaTimingScan, _ videoDecoding: VideoDecoding = .verifier) -> Check {
        if let failure = scan.failure {
            return Check(.decodable, passed: false, failure.message, packet: failure.packet, time: failure.time)
        }
        let audio = scan.audios.map { ", \($0.samples) \($0.codec) samples" }.joined()
        let frames = "\(scan.frames.count) \(scan.videoCodec) frames"
        let video =
            switch videoDecoding {
            case .verifier: frames
            case .bySegments: frames + " (each segment decoded by its encoder)"
            case .byEncoder: frames + " (decoded and measured as they were encoded)"
            case .skipped: frames + " not decoded (verification level: timing; packets checked only)"
            }
        return Check(.decodable, passed: true, video + audio)
    }

    /// Frames come out of the decoder in presentation order, so any step that is not forward is a
    /// duplicated, missing or misplaced timestamp.
    static func presentationOrder(_ scan: MediaTimingScan) -> Check {
        for (index, frame) in scan.frames.enumerated() {
            guard frame.pts != tessera_AV_NOPTS_VALUE() else {
                return Check(
                    .presentationOrder, passed: false, "frame \(index) has no presentation time",
                    frame: index)
            }
            guard index > 0 else { continue }
            let previous = scan.frames[index - 1].pts, time = scan.videoTime(frame.pts)
            if frame.pts <= previous {
                let relation =
                    frame.pts == previous
                    ? "has the same pts as frame \(index - 1)"
                    : "comes after frame \(index - 1) at \(secondsText(scan.videoTime(previous)))"
                return Check(
                    .presentationOrder, passed: false, "frame \(index) at \(secondsText(time)) \(relation)",
                    frame: index, time: time)
            }
        }
        return Check(.presentationOrder, passed: true, "\(scan.frames.count) frames, each after the one before")
    }

    /// The output start is zero, or, in formats whose clocks run free (MPEG-TS), the earliest decoded video
    /// or audio time (exact, where libavformat's `start_time` is rounded to microseconds).
    /// Where the audio starts first, the video may start up to one audio frame late, and in Matroska by
    /// the audio encoder's priming more (`unmarkedPriming`: the muxer shifts the whole file by it); how
    /// far the two tracks are apart is the `av-start-offset` check's to judge.
    static func firstFrameAtStart(_ scan: MediaTimingScan, expectedStart: MediaTime = .zero) -> Check {
        guard let first = scan.sortedFramePTS.first, let frame = scan.frames.first(where: { $0.pts == first }) else {
            return Check(.firstFrameAtStart, passed: false, "no video frame decoded")
        }
        let time = scan.videoTime(first)
        let audioStart = scan.audio?.firstSampleTime.flatMap { $0.isNumeric ? $0 : nil }
        let start = scan.hasFreeRunningTimestamps ? MediaTime.minimum(time, audioStart ?? time) : expectedStart
        guard frame.isKeyframe else {
            return Check(
                .firstFrameAtStart, passed: false, "frame 0 at \(secondsText(time)) is not a keyframe",
                frame: 0, time: time)
        }
        var late = scan.videoTick
        if let audioStart, audioStart < time, let audioFrame = scan.audioFrameDuration {
            late = MediaTime.maximum(late, audioFrame + scan.unmarkedPriming)
        }
        let offset = time - start
        // An MP4/MOV edit list places the first frame in the movie timescale (1/1000 s in FFmpeg's
        // muxer), so a start off the millisecond grid moves by up to 1 ms.
        let early = MediaTime.maximum(scan.videoTick, MediaTime(value: 1, timescale: 1000))
        guard offset >= -early, offset <= late + early else {
            return Check(
                .firstFrameAtStart, passed: false,
                "frame 0 at \(secondsText(time)) (\(time)): expected at the output start \(secondsText(start)) (\(start))",
                frame: 0, time: time)
        }
        return Check(
            .firstFrameAtStart, passed: true,
            "frame 0 is a keyframe at \(secondsText(time))"
                + (offset > scan.videoTick
                    ? " (the output start is \(secondsText(start)); the audio starts first)" : ""))
    }

    /// Frame k's time after the first frame against the expected offset k, to one tick of the time base.
    static func presentationTimes(_ scan: MediaTimingScan, _ offsets: [MediaTime]) -> Check {
        let actual = scan.sortedFramePTS
        let base = actual.first ?? 0, baseTime = scan.videoTime(base)
        for (index, (pts, offset)) in zip(actual, offsets).enumerated()
        where !scan.isWithinOneTick(pts - base, of: offset) {
            let time = scan.videoTime(pts)
            return Check(
                .presentationTimes, passed: false,
                "frame \(index) at \(secondsText(time)): expected pts \(secondsText(baseTime + offset))",
                frame: index, time: time)
        }
        if actual.count < offsets.count {
            let index = actual.count
            return Check(
                .presentationTimes, passed: false,
                "frame \(index) is missing: expected at "
                    + "\(secondsText(baseTime + offsets[index])), but the output ends after \(index) frames",
                frame: index)
        }
        if actual.count > offsets.count {
            let index = offsets.count, time = scan.videoTime(actual[index])
            return Check(
                .presentationTimes, passed: false,
                "frame \(index) at \(secondsText(time)) is extra: expected \(offsets.count) frames",
                frame: index, time: time)
        }
        let tick = scan.videoTimeBase
        return Check(
            .presentationTimes, passed: true,
            "\(actual.count) frames at the expected times (to \(tick.num)/\(tick.den) s)")
    }

    /// Compares where the audio and video end rather than their lengths alone: Matroska keeps AAC's
    /// priming samples and shifts the video after them, so the lengths differ by the priming while the
    /// ends still meet. The start is the `av-start-offset` check's. `expectedGap` is how much later the
    /// source's own audio ends than its video (negative: earlier): an output can only match its source.
    static func audioDuration(_ scan: MediaTimingScan, expectedGap: MediaTime = .zero) -> Check {
        guard let audio = scan.audio, let audioStart = audio.firstSampleTime, audioStart.isNumeric,
            let frame = scan.audioFrameDuration, let video = scan.videoSpan
        else {
            return Check(.audioDuration, passed: false, "no audio or no video decoded to compare")
        }
        let length = MediaTime(value: audio.samples, timescale: audio.sampleRate)
        let gap = audioStart + length - video.end
        let relation = gap < .zero ? "before" : "after"
        let source =
            expectedGap == .zero
            ? ""
            : "; the source's audio ends \(secondsText(expectedGap.absolute)) \(expectedGap < .zero ? "before" : "after") its video"
        // Either the ends meet, or they sit as far apart as the source's do.
        return Check(
            .audioDuration, passed: gap.absolute <= frame || (gap - expectedGap).absolute <= frame,
            "audio ends \(secondsText(gap.absolute)) \(relation) the video (audio \(secondsText(length)) "
                + "from \(secondsText(audioStart)), video \(secondsText(video.end - video.start)) from "
                + "\(secondsText(video.start)))\(source); allowed \(secondsText(frame)) (one \(audio.frameSize)-sample "
                + "\(audio.codec) frame)", time: audioStart + length)
    }

    /// The audio's start against the video's, allowing one audio frame; `expectedStart` is how far the
    /// video is meant to trail the timeline's start (and so the audio).
    static func avStartOffset(_ scan: MediaTimingScan, expectedStart: MediaTime = .zero) -> Check {
        guard let measured = scan.avStartOffset, let frame = scan.audioFrameDuration else {
            return Check(.avStartOffset, passed: false, "no audio or no video decoded to compare")
        }
        // Audio that leads by its unmarked priming (Matroska) starts its real sound that much later.
        let priming = measured < .zero ? scan.unmarkedPriming : .zero
        let offset = measured + priming + expectedStart
        let relation = measured < .zero ? "before" : "after"
        return Check(
            .avStartOffset, passed: offset.absolute <= frame,
            "audio starts \(secondsText(measured.absolute)) \(relation) the video"
                + (priming == .zero
                    ? ""
                    : ", \(secondsText(priming)) of it the encoder's priming, which \(scan.formatName) cannot mark")
                + (expectedStart == .zero ? "" : " (the video is meant to start \(secondsText(expectedStart)) in)")
                + "; allowed \(secondsText(frame))", time: scan.audio?.firstSampleTime)
    }
}
