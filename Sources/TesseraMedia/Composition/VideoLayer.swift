import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore

/// One asset's pictures as a layer of a composition: square pixels, turned upright by the track's
/// display matrix (the preferred transform), then fitted into the render size keeping its aspect ratio
/// and centred, or placed by its layer transform (scaled, turned about its centre, its bounding box's
/// top-left corner at a render position, cut to the render), on the background colour, 8-bit 4:2:0. A libavfilter graph configured from the first
/// frame.
struct VideoLayer {
    private let graph: FilterGraph

    init(
        first: Frame, rotation: Rotation, width: Int, height: Int, background: (r: Int, g: Int, b: Int),
        transform: CompositionSpec.Transform? = nil
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
        if let transform {
            // A transform from outside (a farm's task) is held to the spec's bound before any graph is made.
            let longer = max(Double(f.width) * min(max(Double(sar.num) / Double(sar.den), 1e-3), 1e3), Double(f.height))
            let extent = transform.extent(ofSide: longer)
            guard extent <= CompositionSpec.Transform.maxExtent else {
                throw MediaError(
                    .invalidArgument,
                    "the layer transform makes the picture \(String(format: "%.0f", extent)) px across; at most "
                        + String(format: "%.0f", CompositionSpec.Transform.maxExtent))
            }
            // The upright picture's size in square pixels, then scaled; offsets and sizes even for 4:2:0.
            // A file's sample aspect ratio can be any pair of 32-bit values: every size and offset is
            // bounded (±2^20 px) before it becomes an Int, so none can trap and none reaches the graph huge.
            func even(_ v: Double) -> Int { Int((min(max(v, -1_048_576), 1_048_576) / 2).rounded(.down)) * 2 }
            var (w, h) = (even(Double(f.width) * Double(sar.num) / Double(sar.den)), even(Double(f.height)))
            if rotation.swapsDimensions { (w, h) = (h, w) }
            let sw = max(2, even(Double(w) * transform.scale)), sh = max(2, even(Double(h) * transform.scale))
            let (turn, bw, bh) = Self.turn(width: sw, height: sh, degrees: transform.degrees, color: color)
            let x = even(Double(transform.x)), y = even(Double(transform.y))
            let left = max(0, -x), top = max(0, -y)
            let visibleW = min(bw, width - x) - left, visibleH = min(bh, height - y) - top
            if visibleW >= 2 && visibleH >= 2 {
                filters += ["scale=\(sw):\(sh)", "setsar=1"] + turn
                filters += [
                    "crop=\(even(Double(visibleW))):\(even(Double(visibleH))):\(left):\(top)",
                    "pad=\(width):\(height):\(max(0, x)):\(max(0, y)):color=\(color)", "format=yuv420p",
                ]
            } else {
                // Placed wholly outside the render: the background alone.
                filters += [
                    "scale=\(width):\(height)", "setsar=1", "format=yuv420p",
                    "drawbox=x=0:y=0:w=iw:h=ih:color=\(color):t=fill",
                ]
            }
        } else {
            filters += [
                "scale=\(width):\(height):force_original_aspect_ratio=decrease:force_divisible_by=2", "setsar=1",
                "pad=\(width):\(height):(ow-iw)/2:(oh-ih)/2:color=\(color)", "format=yuv420p",
            ]
        }
        graph = try FilterGraph(
            video: true, source: source, description: filters.joined(separator: ","), what: "the video layer")
    }

    /// The filters that turn a `width`×`height` picture `degrees` clockwise about its centre, and the size
    /// of its bounding box (even). Right angles are exact (transposes and flips); any other angle is
    /// resampled by libavfilter's `rotate`, the corners filled with `color`.
    static func turn(
        width: Int, height: Int, degrees: Double, color: String
    ) -> (filters: [String], width: Int, height: Int) {
        switch degrees {
        case 0: return ([], width, height)
        case 90: return (["transpose=clock"], height, width)
        case 180: return (["hflip", "vflip"], width, height)
        case 270: return (["transpose=cclock"], height, width)
        default:
            let a = degrees * .pi / 180
            let (c, s) = (abs(cos(a)), abs(sin(a)))
            // The sides are at most 2^20 (bounded above), the box at most 2^20 · √2: no conversion can trap.
            let bw = max(2, Int((Double(width) * c + Double(height) * s) / 2) * 2)
            let bh = max(2, Int((Double(width) * s + Double(height) * c) / 2) * 2)
            return (["rotate=a=\(a):ow=\(bw):oh=\(bh):fillcolor=\(color)"], bw, bh)
        }
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
