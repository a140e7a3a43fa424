import TesseraCore

extension VerificationReport {
    /// One verified property of the output, with what was found.
    public struct Check: Codable, Sendable, Equatable {
        /// The properties `OutputVerifier` checks, in the order it reports them.
        public enum Name: String, Codable, Sendable, CaseIterable {
            /// The file has a video track with a decoder.
            case videoTrack = "video-track"
            /// The first video packet in demux order is a keyframe.
            case firstPacketKeyframe = "first-packet-keyframe"
            /// Video packet DTS strictly increase in demux order.
            case dtsIncreasing = "dts-increasing"
            /// No video packet is presented before it is decoded (PTS ≥ DTS).
            case ptsNotBeforeDTS = "pts-not-before-dts"
            /// Every packet reads and every video and audio packet decodes, to the end of the file.
            case decodable
            /// Every video packet carries a duration, equal to the step to the next presentation time
            /// (within one tick of container rounding), so tools that remux or play by duration see it.
            case packetDurations = "packet-durations"
            /// For constant-rate video, the container's declared frame rate is the rate the timestamps show.
            case frameRate = "frame-rate"
            /// Decoded frames come out with strictly increasing presentation times (no duplicate, none
            /// missing or going back).
            case presentationOrder = "presentation-order"
            /// The first frame shown is a keyframe at the output start.
            case firstFrameAtStart = "first-frame-at-start"
            /// Every frame at the expected presentation time (PTS grid or PTS set), up to one tick of the
            /// container's rounding.
            case presentationTimes = "presentation-times"
            /// Exactly the expected number of frames.
            case frameCount = "frame-count"
            /// The audio ends within one audio frame of the end of the last video frame.
            case audioDuration = "audio-duration"
            /// The first audio sample is within one audio frame of the first video frame.
            case avStartOffset = "av-start-offset"
        }

        public var name: Name
        public var passed: Bool
        /// What was found, for people; on failure it names the first offender.
        public var detail: String
        /// The first offending frame (index in presentation order), when the failure is about a frame.
        public var frame: Int?
        /// The first offending video packet (index in demux order), when the failure is about a packet.
        public var packet: Int?
        /// The offending frame's or packet's time, when it has one.
        @OptionalSecondsAndExact public var time: MediaTime?

        public init(
            _ name: Name, passed: Bool, _ detail: String, frame: Int? = nil, packet: Int? = nil,
            time: MediaTime? = nil
        ) {
            self.name = name
            self.passed = passed
            self.detail = detail
            self.frame = frame
            self.packet = packet
            self.time = time
        }
    }
}
