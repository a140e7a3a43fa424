import Foundation
import TesseraAV

/// A finished CMAF track file (fragmented MP4, one track) cut at its top-level boxes into the
/// initialization segment (everything before the first `moof`) and one media segment per fragment
/// (`moof` + `mdat`, with any `styp`/`sidx`/`prft` written before it). Only the box headers are read; the
/// pieces are copied out one at a time, so a two-hour rendition is never held in memory.
struct CMAFTrackFile {
    var initSegment: Range<Int>
    var fragments: [Range<Int>]
    /// For each fragment, how far into it its first sample's data starts (past the `mdat` header).
    var mediaOffsets: [Int]
    private let handle: FileHandle
    private let path: String

    /// - Throws: `.io` when the file cannot be read; `.corrupt` for a box that runs past the end or a file
    ///   without fragments.
    init(path: String) throws(MediaError) {
        self.path = path
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw MediaError(.io, path: path, "cannot read the finished track file")
        }
        self.handle = handle
        let length: Int
        do { length = Int(clamping: try handle.seekToEnd()) } catch {
            throw MediaError(.io, path: path, "cannot read the finished track file: \(error)")
        }
        guard let walk = TopLevelBoxes(path: path, size: Int64(length)) else {
            throw MediaError(.io, path: path, "cannot read the finished track file")
        }
        if let damage = walk.damage { throw MediaError(.corrupt, path: path, damage) }
        // Offsets inside a file whose length fits an Int.
        let boxes = walk.boxes.map { (type: $0.type, range: Int($0.range.lowerBound)..<Int($0.range.upperBound)) }
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
        initSegment = boxes[0].range.lowerBound..<starts[0]
        let end = boxes.last { ["mdat", "moof"].contains($0.type) }?.range.upperBound ?? length
        fragments = zip(starts, starts.dropFirst() + [end]).map { $0..<$1 }
        mediaOffsets = fragments.map { range in
            let mdat = boxes.first { $0.type == "mdat" && range.contains($0.range.lowerBound) }
            return mdat.map { $0.range.lowerBound - range.lowerBound + 8 } ?? range.count
        }
    }

    /// The bytes of one piece (the init segment or a fragment).
    func bytes(_ range: Range<Int>) throws(MediaError) -> Data { try Self.read(handle, range, path: path) }

    private static func read(_ handle: FileHandle, _ range: Range<Int>, path: String) throws(MediaError) -> Data {
        do {
            try handle.seek(toOffset: UInt64(range.lowerBound))
            let data = try handle.read(upToCount: range.count) ?? Data()
            guard data.count == range.count else {
                throw MediaError(.io, path: path, "read \(data.count) of \(range.count) bytes at \(range.lowerBound)")
            }
            return data
        } catch let error as MediaError {
            throw error
        } catch {
            throw MediaError(.io, path: path, "cannot read the finished track file: \(error)")
        }
    }
}
