import Foundation

/// HDR (PQ or HLG) to BT.709 SDR, as the processors do it (`--hdr tonemap`, or an 8-bit output of an
/// HDR source): ITU-R BT.2390's EETF on the largest linear component (the hue kept), from the source's
/// black and peak to SDR white at 203 cd/m² (BT.2408's HDR reference white) and a 1000:1 display's
/// black; BT.2020 to BT.709 primaries after it, clipped; BT.1886's inverse (γ 2.4, that black) as the
/// output's transfer. libplacebo's `bt.2390` in `max` mode does the same and is the reference in tests.
public struct ToneMap: Sendable, Hashable, Codable {
    /// The source's transfer: `.smpte2084` (PQ) or `.aribStdB67` (HLG).
    public var transfer: TransferFunction
    /// The brightest the source shows, cd/m².
    public var sourcePeak: Double
    /// The darkest, cd/m².
    public var sourceBlack: Double

    /// SDR white, cd/m² (BT.2408).
    public static let sdrWhite = 203.0
    /// The peak assumed when a PQ source states none (most HDR10 masters), and HLG's nominal peak.
    public static let defaultPeak = 1000.0

    public init(transfer: TransferFunction, sourcePeak: Double, sourceBlack: Double = 0) {
        self.transfer = transfer
        self.sourcePeak = sourcePeak
        self.sourceBlack = sourceBlack
    }

    /// The tone map of a source with `transfer` and `hdr`'s static metadata: its peak is MaxCLL where
    /// stated, else the mastering display's, else `defaultPeak` (HLG: always, its nominal display); its
    /// black the mastering display's. Values outside 0…10,000 cd/m² are not believed.
    public init(transfer: TransferFunction, hdr: HDRMetadata?) {
        func believable(_ v: Double?) -> Double? {
            guard let v, v.isFinite, v > 0, v <= 10_000 else { return nil }
            return v
        }
        let peak =
            transfer == .aribStdB67
            ? Self.defaultPeak
            : believable(hdr?.maxContentLightLevel.map(Double.init)) ?? believable(hdr?.masteringDisplay?.maxLuminance)
                ?? Self.defaultPeak
        let black = believable(hdr?.masteringDisplay?.minLuminance).map { min($0, peak / 100) } ?? 0
        self.init(transfer: transfer, sourcePeak: peak, sourceBlack: transfer == .aribStdB67 ? 0 : black)
    }

    /// What the report says it did.
    public var summary: String {
        "BT.2390 from \(String(format: "%.0f", sourcePeak)) cd/m² to SDR white at \(Int(Self.sdrWhite)) cd/m²"
    }
}
