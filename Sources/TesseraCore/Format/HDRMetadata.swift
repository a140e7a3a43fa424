/// A video's HDR metadata (SMPTE ST 2086 mastering display, CTA-861.3 content light level), and the
/// dynamic metadata a source may carry beside it, as the stream or its first frame states them.
public struct HDRMetadata: Sendable, Hashable, Codable {
    /// The mastering display: primaries and white point as CIE 1931 xy, luminance in cd/m².
    public struct MasteringDisplay: Sendable, Hashable, Codable {
        /// Red, green, blue, each `[x, y]`.
        public var primaries: [[Double]]
        public var whitePoint: [Double]
        public var minLuminance: Double
        public var maxLuminance: Double

        public init(primaries: [[Double]], whitePoint: [Double], minLuminance: Double, maxLuminance: Double) {
            self.primaries = primaries
            self.whitePoint = whitePoint
            self.minLuminance = minLuminance
            self.maxLuminance = maxLuminance
        }
    }

    public var masteringDisplay: MasteringDisplay?
    /// MaxCLL and MaxFALL, cd/m².
    public var maxContentLightLevel: Int?
    public var maxFrameAverageLightLevel: Int?
    /// Dolby Vision's profile when the stream carries its configuration or its frames carry RPUs.
    public var dolbyVisionProfile: Int?
    /// The frames carry HDR10+ (SMPTE ST 2094-40) dynamic metadata.
    public var hdr10Plus: Bool

    public init(
        masteringDisplay: MasteringDisplay? = nil, maxContentLightLevel: Int? = nil,
        maxFrameAverageLightLevel: Int? = nil, dolbyVisionProfile: Int? = nil, hdr10Plus: Bool = false
    ) {
        self.masteringDisplay = masteringDisplay
        self.maxContentLightLevel = maxContentLightLevel
        self.maxFrameAverageLightLevel = maxFrameAverageLightLevel
        self.dolbyVisionProfile = dolbyVisionProfile
        self.hdr10Plus = hdr10Plus
    }

    /// Nothing stated.
    public var isEmpty: Bool {
        masteringDisplay == nil && maxContentLightLevel == nil && maxFrameAverageLightLevel == nil
            && dolbyVisionProfile == nil && !hdr10Plus
    }
}
