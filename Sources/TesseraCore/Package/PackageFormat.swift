import Foundation

/// An adaptive-streaming package's manifest format. Both describe the same CMAF files (fragmented MP4:
/// one initialization segment and numbered media segments per track).
public enum PackageFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// HTTP Live Streaming, version 7: `master.m3u8` and a media playlist per rendition.
    case hls
    /// MPEG-DASH: a static `manifest.mpd`.
    case dash

    /// Whether a rendition of `codec` can be listed: HLS has no VP9.
    public func canList(_ codec: VideoCodec) -> Bool { self == .dash || codec != .vp9 }

    /// "hls,dash" → [.hls, .dash], each once, in the order given.
    /// - Throws: `JobRequestError` naming `field` for an empty list or an unknown name.
    public static func list(_ text: String, field: String) throws(JobRequestError) -> [PackageFormat] {
        var formats: [PackageFormat] = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
            guard let format = PackageFormat(rawValue: trimmed) else {
                throw JobRequestError(
                    field: field, "\(JobRequestError.quoted(String(name))) is not a package format (hls, dash)")
            }
            if !formats.contains(format) { formats.append(format) }
        }
        guard !formats.isEmpty else { throw JobRequestError(field: field, "names no package format (hls, dash)") }
        return formats
    }
}
