import CFFmpeg
import TesseraAV
import TesseraCore

extension Asset {
    /// What one pass over a stream's packets (read, never decoded) found.
    struct PacketScan {
        var packetCount = 0
        /// Earliest presentation timestamp, and the latest `pts + duration` (stream time base).
        var firstPTS: Int64?
        var endPTS: Int64?
        /// Video only: every valid PTS in packet (decode) order, for the frame-step analysis.
        var presentationTimes: [Int64] = []
        /// Video only.
        var keyframes: [Keyframe] = []
        /// A PTS lower than the one before it in decode order: the stream reorders frames (B-frames).
        var isReordered = false
        private var lastPTS: Int64?

        /// The steps between consecutive distinct presentation times, smallest first, with how the
        /// steps compare to the nominal frame duration.
        func frameSteps(timeBase: AVRational, nominalRate: AVRational) -> (min: Int64, variable: Bool)? {
            let sorted = presentationTimes.sorted()
            var steps = Set<Int64>()
            for (a, b) in zip(sorted, sorted.dropFirst()) where b > a { steps.insert(b - a) }
            guard let smallest = steps.min() else { return nil }
            // One tick either way is rounding: 30 fps in a 1/1000 time base steps 33, 34, 33, ...
            let isNominal: (Int64) -> Bool
            if nominalRate.num > 0 && nominalRate.den > 0 && timeBase.num > 0 {
                // step · tb.num / tb.den seconds against rate.den / rate.num seconds, scaled by tb.den · rate.num.
                let tick = Int128(timeBase.num) * Int128(nominalRate.num)
                let nominal = Int128(timeBase.den) * Int128(nominalRate.den)
                isNominal = { step in abs(Int128(step) * tick - nominal) <= tick }
            } else {
                isNominal = { step in step - smallest <= 1 }
            }
            return (smallest, !steps.allSatisfy(isNominal))
        }

        mutating func add(_ packet: AVPacket, isVideo: Bool, hasReorderDelay: Bool, timeBase: AVRational) {
            let noValue = tessera_AV_NOPTS_VALUE()
            packetCount += 1
            let pts = packet.pts
            if pts != noValue {
                firstPTS = min(firstPTS ?? pts, pts)
                endPTS = max(endPTS ?? pts, pts + max(packet.duration, 0))
            }
            guard isVideo else { return }
            if pts != noValue {
                presentationTimes.append(pts)
                if let lastPTS, pts < lastPTS { isReordered = true }
                lastPTS = pts
            }
            guard packet.flags & AV_PKT_FLAG_KEY != 0 else { return }
            // Without a PTS the display time is only known from the DTS when frames are not reordered.
            let time = pts != noValue ? pts : (hasReorderDelay || isReordered ? noValue : packet.dts)
            guard time != noValue else { return }
            keyframes.append(Keyframe(pts: time, dts: packet.dts, time: Asset.time(time, in: timeBase),
                                      bytePosition: packet.pos))
        }
    }
}

extension Asset.Input {
    /// Reads every packet of the file once, without decoding, collecting per-stream counts and timestamps
    /// and, for video streams, keyframes and presentation times.
    ///
    /// Linear in the number of packets (the only sort is of one track's PTS list at the end).
    ///
    /// - Throws: `.corrupt` (or `.ffmpeg`) when a packet cannot be read before the end of the file.
    func scanPackets() throws(MediaError) -> [Int: Asset.PacketScan] {
        let packet = try Packet()
        var scans: [Asset.PacketScan] = []
        var isVideo: [Bool] = [], reorderDelay: [Bool] = [], timeBases: [AVRational] = []
        while true {
            let code = av_read_frame(context, packet.pointer)
            if code == tessera_AVERROR_EOF() { break }
            if code == tessera_AVERROR_EAGAIN() { continue }
            if code < 0 {
                let read = scans.reduce(0) { $0 + $1.packetCount }
                let position = avio_tell(context.pointee.pb)
                throw MediaError(code == tessera_AVERROR_INVALIDDATA() ? .corrupt : .ffmpeg,
                                 "cannot read packet \(read + 1) near byte \(position): \(ffErrorString(code))",
                                 code: code)
            }
            defer { av_packet_unref(packet.pointer) }
            let index = Int(packet.pointer.pointee.stream_index)
            if index >= scans.count {
                // MPEG-TS and other header-less formats can add streams while packets are read.
                let streams = self.streams
                guard index < streams.count else { continue }
                for stream in streams[scans.count...] {
                    let parameters = stream.pointee.codecpar.pointee
                    scans.append(Asset.PacketScan())
                    isVideo.append(parameters.codec_type == AVMEDIA_TYPE_VIDEO)
                    reorderDelay.append(parameters.video_delay > 0)
                    timeBases.append(stream.pointee.time_base)
                }
            }
            scans[index].add(packet.pointer.pointee, isVideo: isVideo[index], hasReorderDelay: reorderDelay[index],
                             timeBase: timeBases[index])
        }
        return Dictionary(uniqueKeysWithValues: scans.enumerated().map { ($0.offset, $0.element) })
    }
}
