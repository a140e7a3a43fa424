import CFFmpeg
import TesseraAV
import TesseraCore

/// One pass over a file for the verifier: every video packet's timestamps in demux order, every
/// decoded video frame's presentation time, and the decoded audio samples of every audio track.
///
/// ```
///  InputFile.scanPackets (each packet) ─────────┬─ video: (pts, dts, key) ──▶ Decoder ──▶ frames
///                                              └─ audio: Decoder ──▶ sample count, first sample time
/// ```
///
/// Reading and decoding failures are recorded in `failure`, never thrown: a damaged output is a
/// verification result, and everything read up to the damage is still reported. Blocks while it reads
/// the whole file, so run it on a dedicated thread.
struct MediaTimingScan {
    /// A video packet as demuxed.
    typealias VideoPacket = PacketTiming

    /// A decoded video frame: `best_effort_timestamp` and the duration of the packet it came from.
    struct VideoFrame {
        var pts: Int64
        var duration: Int64
        var isKeyframe: Bool
    }

    /// The first read or decode failure.
    struct Failure {
        var message: String
        /// The video packet (demux order) reading or decoding stopped at, when it was a video packet.
        var packet: Int?
        var time: MediaTime?
    }

    /// What one audio track decoded to.
    struct Audio {
        /// The stream index.
        var track: Int
        var codec: String
        var sampleRate: Int32
        /// Samples per coded frame from the codec parameters (1024 for AAC, 960 for Opus), else the
        /// largest frame decoded; 0 when neither is known.
        var frameSize: Int
        var samples: Int64 = 0
        /// The first decoded sample's presentation time.
        var firstSampleTime: MediaTime?
    }

    var path: String
    /// libavformat's demuxer name.
    var formatName: String
    /// Formats whose timestamps need not start at zero (MPEG-TS, MPEG-PS: `AVFMT_TS_DISCONT`).
    var hasFreeRunningTimestamps: Bool
    var videoStream: Int?
    var videoTimeBase = AVRational(num: 1, den: 1)
    /// The video stream's average frame rate, for the duration of a lone frame.
    var videoFrameRate = AVRational(num: 0, den: 1)
    /// The rate the container declares (`r_frame_rate`), which players and remuxers read.
    var videoDeclaredRate = AVRational(num: 0, den: 1)
    var videoCodec = ""
    var packets: [VideoPacket] = []
    var frames: [VideoFrame] = []
    /// Every audio track, in file order.
    var audios: [Audio] = []
    /// The first audio track.
    var audio: Audio? { audios.first }
    var failure: Failure?

    /// Reads `input` to the end (or the first unreadable packet), decoding audio when asked and video
    /// when asked; without video decoding the frames are the packets in presentation order.
    init(_ input: InputFile, decodeAudio: Bool = true, decodeVideo: Bool = true) {
        path = input.path
        formatName = input.formatName
        hasFreeRunningTimestamps =
            input.context.pointee.iformat.map { $0.pointee.flags & AVFMT_TS_DISCONT != 0 }
            ?? false
        let streams = input.streams
        videoStream = input.bestStream(AVMEDIA_TYPE_VIDEO)
        var videoDecoder: Decoder?
        if let index = videoStream {
            let stream = streams[index]
            videoTimeBase = stream.pointee.time_base
            videoFrameRate = stream.pointee.avg_frame_rate
            videoDeclaredRate = stream.pointee.r_frame_rate
            videoCodec = String(cString: avcodec_get_name(stream.pointee.codecpar.pointee.codec_id))
            if decodeVideo { videoDecoder = open(stream) }
        }
        // Audio decoders and time bases by stream index, in the order of `audios`.
        var audioDecoders: [Int: (slot: Int, decoder: Decoder?, timeBase: AVRational)] = [:]
        if decodeAudio {
            for stream in streams where stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO {
                let parameters = stream.pointee.codecpar.pointee, index = Int(stream.pointee.index)
                audios.append(
                    Audio(
                        track: index, codec: String(cString: avcodec_get_name(parameters.codec_id)),
                        sampleRate: parameters.sample_rate, frameSize: Int(parameters.frame_size)))
                audioDecoders[index] = (audios.count - 1, open(stream), stream.pointee.time_base)
            }
        }
        do {
            // The file's one packet scan; each packet is decoded as it is read.
            _ = try input.scanPackets { (packet) throws(MediaError) in
                if packet.streamIndex == videoStream {
                    packets.append(PacketTiming(packet))
                    if decodeVideo {
                        videoDecoder = decodeVideoPacket(packet, with: videoDecoder)
                    } else {
                        frames.append(
                            VideoFrame(
                                pts: packet.pts, duration: packet.pointer.pointee.duration,
                                isKeyframe: packet.isKeyframe))
                    }
                } else if let entry = audioDecoders[packet.streamIndex] {
                    audioDecoders[packet.streamIndex]?.decoder = decodeAudioPacket(
                        packet, with: entry.decoder, slot: entry.slot,
                        timeBase: entry.timeBase)
                }
            }
        } catch {
            record(
                Failure(
                    message: "reading stopped after \(input.packetsRead) packets (\(packets.count) video): "
                        + error.message, packet: videoStream.map { _ in packets.count }))
        }
        _ = decodeVideoPacket(nil, with: videoDecoder)
        if !decodeVideo { frames.sort { $0.pts < $1.pts } }
        for entry in audioDecoders.values.sorted(by: { $0.slot < $1.slot }) {
            _ = decodeAudioPacket(nil, with: entry.decoder, slot: entry.slot, timeBase: entry.timeBase)
        }
    }

    /// Keeps the first failure only: later ones are usually its consequences.
    private mutating func record(_ failure: Failure) {
        if self.failure == nil { self.failure = failure }
    }

    private mutating func open(_ stream: UnsafeMutablePointer<AVStream>) -> Decoder? {
        do {
            // Timing and decodability are checked, not pixels: the deblocking filter is skipped.
            return try Decoder(stream: stream, path: path, checkOnly: true)
        } catch {
            record(Failure(message: "track \(stream.pointee.index) cannot be decoded: \(error.message)"))
            return nil
        }
    }

    /// Decodes one video packet (nil drains), keeping the frames; returns the decoder to go on with, nil
    /// after damage (a decoder that reported damage proves nothing about what follows).
    private mutating func decodeVideoPacket(_ packet: Packet?, with decoder: Decoder?) -> Decoder? {
        guard let decoder else { return nil }
        do {
            try decoder.decode(packet) { frame throws(MediaError) in
                let f = frame.pointer.pointee
                frames.append(
                    VideoFrame(
                        pts: frame.pts, duration: f.pkt_duration,
                        isKeyframe: f.key_frame != 0 || f.pict_type == AV_PICTURE_TYPE_I))
                return true
            }
            return decoder
        } catch {
            let index = packet == nil ? nil : packets.count - 1
            record(
                Failure(
                    message: "video packet \(index.map(String.init) ?? "at the end") does not decode: "
                        + error.message, packet: index,
                    time: packet.map { Asset.time($0.pts, in: videoTimeBase) }))
            return nil
        }
    }

    private mutating func decodeAudioPacket(
        _ packet: Packet?, with decoder: Decoder?, slot: Int,
        timeBase: AVRational
    ) -> Decoder? {
        guard let decoder else { return nil }
        var audio = audios[slot]
        defer { audios[slot] = audio }
        do {
            try decoder.decode(packet) { frame throws(MediaError) in
                if audio.firstSampleTime == nil { audio.firstSampleTime = Asset.time(frame.pts, in: timeBase) }
                audio.samples += Int64(frame.sampleCount)
                if frame.sampleCount > audio.frameSize && decoder.context.pointee.frame_size <= 0 {
                    audio.frameSize = frame.sampleCount
                }
                return true
            }
            return decoder
        } catch {
            let time = packet.map { Asset.time($0.pts, in: timeBase) }
            record(Failure(message: "audio track \(audio.track) does not decode: \(error.message)", time: time))
            return nil
        }
    }
}
