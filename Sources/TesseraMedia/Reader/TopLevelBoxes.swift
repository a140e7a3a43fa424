import Foundation

/// The top-level boxes of an ISO BMFF / QuickTime file (MP4, MOV, a CMAF track file), from their headers
/// alone: what tells a damaged file's cause (`Asset.isoBoxDamage`), a fragmented file from one whose
/// `moov` indexes every sample (`InputFile(indexing:)`), and a track file's fragments (`CMAFTrackFile`).
struct TopLevelBoxes {
    struct Box: Equatable {
        /// The four-character type, with bytes outside printable ASCII shown as `?`.
        var type: String
        var range: Range<Int64>
    }

    /// The boxes that fit in the file, in file order.
    private(set) var boxes: [Box] = []
    /// Why the walk stopped before the end of the file (a box header cut short, a size too small, a box
    /// running past the end), or nil when every box fits.
    private(set) var damage: String?
    /// The box whose declared size runs past the end of the file, when that is what stopped the walk.
    private(set) var overrun: Box?

    /// Reads the headers of `path`, `size` bytes long; nil when the file cannot be opened.
    init?(path: String, size: Int64) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var offset: Int64 = 0
        while offset < size {
            guard (try? handle.seek(toOffset: UInt64(offset))) != nil,
                let header = try? handle.read(upToCount: 16), header.count >= 8
            else {
                damage = "the file ends inside a box header at byte \(offset)"
                return
            }
            let bytes = [UInt8](header)
            let size32 = bytes[0..<4].reduce(Int64(0)) { $0 << 8 | Int64($1) }
            let type = String(decoding: bytes[4..<8].map { (32...126).contains($0) ? $0 : 63 }, as: UTF8.self)
            var boxSize = size32
            if size32 == 1 {
                guard bytes.count >= 16 else {
                    damage = "the file ends inside the '\(type)' box header"
                    return
                }
                // A 64-bit size past Int64's range reads as negative: refused below as too small.
                boxSize = Int64(bitPattern: bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            } else if size32 == 0 {
                boxSize = size - offset  // "extends to the end of the file"
            }
            guard boxSize >= 8 else {
                damage = "invalid size \(boxSize) for the '\(type)' box at byte \(offset)"
                return
            }
            guard boxSize <= size - offset else {
                overrun = Box(type: type, range: offset..<(boxSize > Int64.max - offset ? Int64.max : offset + boxSize))
                damage =
                    "the '\(type)' box at byte \(offset) declares \(boxSize) bytes but the file ends "
                    + "\(boxSize - (size - offset)) bytes short"
                return
            }
            boxes.append(Box(type: type, range: offset..<(offset + boxSize)))
            offset += boxSize
        }
    }

    /// Whether a box of `type` is among them.
    func contains(_ type: String) -> Bool { boxes.contains { $0.type == type } }
}
