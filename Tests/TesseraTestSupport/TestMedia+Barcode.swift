import Foundation

/// Sources whose pictures carry their own frame index as a 12-bit barcode (libavfilter's geq: 12 stripes
/// 16 px wide, bit k white when set), so a test reads back which source frame an output frame shows.
extension TestMedia {
    /// Writes a barcoded 192x16 video at `rate` fps (lossless H.264; `video` adds encoder options, such
    /// as B-frames), with a sine track when `audio`.
    public static func makeBarcoded(
        _ url: URL, rate: Int, seconds: Int, audio: Bool = false, video: [String] = ["-preset", "ultrafast"]
    ) throws {
        let code = "if(bitand(floor(N/pow(2,floor(X/16))),1),235,16)"
        var args = [
            "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
            "color=black:size=192x16:rate=\(rate):duration=\(seconds),format=gray,geq=lum='\(code)',format=yuv420p",
        ]
        if audio { args += ["-f", "lavfi", "-i", "sine=duration=\(seconds)", "-c:a", "aac"] }
        args += ["-c:v", "libx264"] + video + ["-qp", "0", "-g", "\(rate)", url.path]
        try run("ffmpeg", args)
    }

    /// The frame index each picture of `url` (a video, or a still) shows, in presentation order.
    public static func barcodeIndices(_ url: URL) throws -> [Int] {
        let result = try runCapturingBytes(
            "ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-i", url.path, "-fps_mode", "passthrough", "-vf",
                "scale=12:1:flags=area,format=gray", "-f", "rawvideo", "-",
            ])
        guard result.status == 0 else { throw ToolFailure(description: "ffmpeg: \(result.stderr)") }
        let bytes = [UInt8](result.stdout)
        return stride(from: 0, to: bytes.count - 11, by: 12).map { start in
            (0..<12).reduce(0) { $0 | (bytes[start + $1] > 128 ? 1 << $1 : 0) }
        }
    }
}
