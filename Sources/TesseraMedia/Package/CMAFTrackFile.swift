import Foundation
import TesseraAV

/// A finished CMAF track file (fragmented MP4, one track) cut at its top-level boxes into the
/// initialization segment (everything before the first `moof`) and one media segment per fragment
/// (`moof` + `mdat`, with any `styp`/`sidx`/`prft` written before it).
struct CMAFTrackFile {
    var initSegment: Range<Int>
    var fragments: [Range<Int>]
    /// For each fragment, how far into it its first sample's data starts (past the `mdat` header).
    var mediaOffsets: [Int]

    /// - Throws: `.corrupt` for a box that runs past the end or a file without fragments.
    init(bytes: [UInt8], path: String) throws(MediaError) {
        var offset = 0
        var boxes: [(type: String, range: Range<Int>)] = []
        while offset + 8 <= bytes.count {
            var size = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            if size == 1, offset + 16 <= bytes.count {
                let large = bytes[(offset + 8)..<(offset + 16)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                size = large > UInt64(bytes.count) ? -1 : Int(large)
            } else if size == 0 {
                size = bytes.count - offset
            }
            guard size >= 8, offset + size <= bytes.count else {
                throw MediaError(.corrupt, path: path, "box '\(type.logSafe())' at byte \(offset) runs past the end")
            }
            boxes.append((type, offset..<(offset + size)))
            offset += size
        }
        guard boxes.contains(where: { $0.type == "moof" }) else {
            throw MediaError(.corrupt, path: path, "holds no fragment")
        }
        // A fragment starts at its moof, or at the styp/sidx/prft boxes just before it.
        var starts: [Int] = []
        for (i, box) in boxes.enumerated() where box.type == "moof" {
            var s = i
            while s > 0 && ["styp", "sidx", "prft"].contains(boxes[s - 1].type) { s -= 1 }
            starts.append(boxes[s].range.lowerBound)
        }
        let initStart = boxes[0].range.lowerBound
        initSegment = initStart..<starts[0]
        let end = boxes.last { ["mdat", "moof"].contains($0.type) }?.range.upperBound ?? bytes.count
        fragments = zip(starts, starts.dropFirst() + [end]).map { $0..<$1 }
        mediaOffsets = fragments.map { range in
            let mdat = boxes.first { $0.type == "mdat" && range.contains($0.range.lowerBound) }
            return mdat.map { $0.range.lowerBound - range.lowerBound + 8 } ?? range.count
        }
    }
}
