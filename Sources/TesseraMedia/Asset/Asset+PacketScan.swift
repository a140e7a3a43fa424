import CFFmpeg
import TesseraAV
import TesseraCore

extension Asset {
    /// What one pass over a stream's packets (read, never decoded) found.
    ///
    /// A video frame's display time is its packet's PTS, or its DTS where the stream does not reorder
    /// frames (then the two are equal). A reordering stream's packet without a PTS (MPEG-PS anchor
    /// frames, AVI with B-frames) has no display time short of decoding; such keyframes are left out of
    /// the index, which only makes a lookup answer an earlier keyframe, never a later one.
    struct PacketScan {
        var packetCount = 0
        /// Earliest display time, and the latest display time plus packet duration (stream time base).
        var firstPTS: Int64?
        var endPTS: Int64?
        /// Video only: every known display time, in packet (decode) order.
        var presentationTimes: [Int64] = []
        /// Video only: frames with no known display time, and the decode times of those that have one.
        var framesWithoutPTS = 0
        var decodeTimesWithoutPTS: [Int64] = []
        /// Video only.
        var keyframes: [Keyframe] = []
        var keyframesWithoutPTS = 0
        /// A PTS lower than the one before it in decode order: the stream reorders frames (B-frames).
        var isReordered = false
        /// Every packet of the stream in decode order, when the scan was asked to keep them.
        var packets: [PacketTiming]?
        private var lastPTS: Int64?

        /// The smallest step between consecutive distinct display times, and whether the steps vary.
        ///
        /// Steps within a tick of the nominal frame duration (`1 / nominalRate`) are rounding: 30 fps in a
        /// 1/1000 time base steps 33, 34, 33, … A step of k nominal frames is a hole left by k - 1 frames
        /// without a PTS, as long as there are that many; anything else makes the track variable-rate.
        /// With no PTS at all, decode times stand in: at a constant rate they step the same way.
        func frameSteps(timeBase: AVRational, nominalRate: AVRational) -> (min: Int64, variable: Bool)? {
            let noPTS = presentationTimes.isEmpty
            let sorted = (noPTS ? decodeTimesWithoutPTS : presentationTimes).sorted()
            let unplaced = noPTS ? 0 : framesWithoutPTS
            var steps: [Int64] = []
            for (a, b) in zip(sorted, sorted.dropFirst()) where b > a { steps.append(b - a) }
            guard let smallest = steps.min() else { return nil }
            // Compare in units of 1 / (tb.den · rate.num) s, where a step is step · tb.num · rate.num and
            // the nominal duration tb.den · rate.den; without a rate, against the smallest step in ticks.
            let hasRate = nominalRate.num > 0 && nominalRate.den > 0 && timeBase.num > 0 && timeBase.den > 0
            let tick = hasRate ? Int128(timeBase.num) * Int128(nominalRate.num) : 1
            let nominal = hasRate ? Int128(timeBase.den) * Int128(nominalRate.den) : Int128(smallest)
            var holes = 0
            for step in steps.map({ Int128($0) * tick }) where abs(step - nominal) > tick {
                let frames = (step + nominal / 2) / nominal
                guard frames >= 2, abs(step - frames * nominal) <= frames * tick, holes + Int(frames) - 1 <= unplaced
                else { return (smallest, true) }
                holes += Int(frames) - 1
            }
            return (smallest, false)
        }

        mutating func add(_ packet: AVPacket, isVideo: Bool, hasReorderDelay: Bool, timeBase: AVRational) {
            let noValue = tessera_AV_NOPTS_VALUE()
            packetCount += 1
            var shown = packet.pts
            if isVideo, shown == noValue, !(hasReorderDelay || isReordered) { shown = packet.dts }
            if shown != noValue {
                firstPTS = min(firstPTS ?? shown, shown)
                // A timestamp from the file near the end of time must not trap: such a packet ends nowhere.
                let (end, overflow) = shown.addingReportingOverflow(max(packet.duration, 0))
                if !overflow { endPTS = max(endPTS ?? end, end) }
            }
            guard isVideo else { return }
            if shown != noValue {
                presentationTimes.append(shown)
                if let lastPTS, shown < lastPTS { isReordered = true }
                lastPTS = shown
            } else {
                framesWithoutPTS += 1
                if packet.dts != noValue { decodeTimesWithoutPTS.append(packet.dts) }
            }
            guard packet.flags & AV_PKT_FLAG_KEY != 0 else { return }
            guard shown != noValue else {
                keyframesWithoutPTS += 1
                return
            }
            keyframes.append(
                Keyframe(
                    pts: shown, dts: packet.dts, time: Asset.time(shown, in: timeBase),
                    bytePosition: packet.pos))
        }
    }
}

extension InputFile {
    /// The one pass over a file's packets (read, never decoded): per-stream counts and timestamps and,
    /// for video streams, keyframes and presentation times; every packet of `track` kept when asked (the
    /// segment planner's index); `each` sees every packet as it is read (the verifier decodes there).
    ///
    /// Linear in the number of packets (the only sort is of one track's PTS list at the end).
    ///
    /// - Throws: `.corrupt` when a packet cannot be read before the end of the file (`read(into:)`);
    ///   what `each` throws.
    func scanPackets(
        recordingPacketsOf track: Int? = nil, each: (Packet) throws(MediaError) -> Void = { _ in }
    ) throws(MediaError) -> [Int: Asset.PacketScan] {
        let packet = try Packet()
        var scans: [Asset.PacketScan] = []
        var isVideo: [Bool] = [], reorderDelay: [Bool] = [], timeBases: [AVRational] = []
        while try read(into: packet) {
            defer { av_packet_unref(packet.pointer) }
            let index = Int(packet.pointer.pointee.stream_index)
            if index >= scans.count {
                // MPEG-TS and other header-less formats can add streams while packets are read.
                let streams = self.streams
                guard index < streams.count else { continue }
                for stream in streams[scans.count...] {
                    let parameters = stream.pointee.codecpar.pointee
                    var scan = Asset.PacketScan()
                    if Int(stream.pointee.index) == track { scan.packets = [] }
                    scans.append(scan)
                    isVideo.append(parameters.codec_type == AVMEDIA_TYPE_VIDEO)
                    reorderDelay.append(parameters.video_delay > 0)
                    timeBases.append(stream.pointee.time_base)
                }
            }
            scans[index].add(
                packet.pointer.pointee, isVideo: isVideo[index], hasReorderDelay: reorderDelay[index],
                timeBase: timeBases[index])
            if index == track { scans[index].packets?.append(PacketTiming(packet)) }
            try each(packet)
        }
        return Dictionary(uniqueKeysWithValues: scans.enumerated().map { ($0.offset, $0.element) })
    }
}
