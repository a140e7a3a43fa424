/// How a retimed export times its video frames.
public enum FrameTiming: String, Sendable, Hashable, Codable, CaseIterable {
    /// A constant frame rate: output frame k at k·frameDuration shows the frame the selection chooses.
    case constant
    /// Every source frame once, at the output time where the map reaches it: the source's variable rate
    /// kept, slowed and sped with the map (as AVFoundation's scaled time ranges play).
    case passthrough
}
