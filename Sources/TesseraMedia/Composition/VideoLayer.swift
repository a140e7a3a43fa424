import CFFmpeg
import TesseraAV
import TesseraCore

/// One asset's pictures as a layer of a composition: square pixels, turned upright by the track's
/// display matrix (the preferred transform), fitted into the render size keeping its aspect ratio,
/// centred on the background colour, 8-bit 4:2:0. A libavfilter graph configured from the first frame.
struct VideoLayer {
    private let graph: FilterGraph

    init(
        first: Frame, rotation: Rotation, width: Int, height: Int, background: (r: Int, g: Int, b: Int)
    ) throws(MediaError) {
        let f = first.pointer.pointee
        let sar =
            f.sample_aspect_ratio.num > 0 && f.sample_aspect_ratio.den > 0
            ? f.sample_aspect_ratio : AVRational(num: 1, den: 1)
        let format = av_get_pix_fmt_name(AVPixelFormat(rawValue: f.format)).map { String(cString: $0) } ?? "yuv420p"
        let source =
            "video_size=\(f.width)x\(f.height):pix_fmt=\(format):time_base=1/1:pixel_aspect=\(sar.num)/\(sar.den)"
        var filters: [String] = []
        if sar.num != sar.den { filters += ["scale=trunc(iw*sar/2)*2:ih", "setsar=1"] }
        switch rotation.degrees {
        case 90: filters.append("transpose=clock")
        case 180: filters += ["hflip", "vflip"]
        case 270: filters.append("transpose=cclock")
        default: break
        }
        if rotation.mirrored { filters.append("hflip") }
        let color = String(format: "0x%02X%02X%02X", background.r, background.g, background.b)
        filters += [
            "scale=\(width):\(height):force_original_aspect_ratio=decrease:force_divisible_by=2", "setsar=1",
            "pad=\(width):\(height):(ow-iw)/2:(oh-ih)/2:color=\(color)", "format=yuv420p",
        ]
        graph = try FilterGraph(
            video: true, source: source, description: filters.joined(separator: ","), what: "the video layer")
    }

    /// The frame as the layer shows it (its `pts` kept).
    func render(_ frame: Frame) throws(MediaError) -> Frame {
        var out: Frame?
        try graph.push(frame) { out = $0 }
        guard let out else { throw MediaError(.internal, "the video layer held a frame back") }
        out.pts = frame.pts
        return out
    }
}
