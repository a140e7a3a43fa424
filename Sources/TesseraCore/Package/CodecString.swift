import Foundation

/// The RFC 6381 `codecs` value of a CMAF track (`avc1.64001f`, `hvc1.1.6.L93.B0`, `av01.0.08M.08`,
/// `mp4a.40.2`), read from the sample entry its initialization segment holds: the muxer's canonical
/// configuration boxes, whatever form the encoder's extradata had.
public enum CodecString {
    /// nil when the initialization segment holds no sample entry this knows.
    public static func of(initSegment bytes: [UInt8]) -> String? {
        if let c = body(of: "avcC", in: bytes), c.count >= 4 {
            return "avc1." + hex(c[1]) + hex(c[2]) + hex(c[3])
        }
        if let c = body(of: "hvcC", in: bytes), c.count >= 13 {
            let space = ["", "A", "B", "C"][Int(c[1] >> 6)]
            let tier = c[1] & 0x20 != 0 ? "H" : "L"
            let compat = c[2...5].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            var constraints = Array(c[6...11])
            while constraints.last == 0 { constraints.removeLast() }
            let entry = body(of: "hev1", in: bytes) != nil && body(of: "hvc1", in: bytes) == nil ? "hev1" : "hvc1"
            return
                ([
                    entry, space + String(c[1] & 0x1f), String(reversedBits(compat), radix: 16).uppercased(),
                    tier + String(c[12]),
                ] + constraints.map { String($0, radix: 16).uppercased() }).joined(separator: ".")
        }
        if let c = body(of: "av1C", in: bytes), c.count >= 3 {
            let profile = c[1] >> 5
            let level = c[1] & 0x1f
            let tier = c[2] & 0x80 != 0 ? "H" : "M"
            let depth = c[2] & 0x40 == 0 ? 8 : (profile == 2 && c[2] & 0x20 != 0 ? 12 : 10)
            return "av01.\(profile).\(level < 10 ? "0" : "")\(level)\(tier).\(depth < 10 ? "0" : "")\(depth)"
        }
        if let c = body(of: "vpcC", in: bytes), c.count >= 7 {
            func two(_ v: UInt8) -> String { v < 10 ? "0\(v)" : "\(v)" }
            return "vp09.\(two(c[4])).\(two(c[5])).\(two(c[6] >> 4))"
        }
        if body(of: "dOps", in: bytes) != nil { return "opus" }
        if body(of: "dac3", in: bytes) != nil { return "ac-3" }
        if body(of: "dec3", in: bytes) != nil { return "ec-3" }
        if let e = body(of: "esds", in: bytes) { return mp4a(esds: e) }
        return nil
    }

    /// `mp4a.40.<audio object type>` for AAC, `mp4a.6B` for MP3, from an esds box's descriptors.
    static func mp4a(esds e: [UInt8]) -> String? {
        var i = 4  // version and flags
        // A descriptor: its tag, then its size in up to four bytes of 7 bits.
        func descriptor(_ tag: UInt8) -> Bool {
            guard i < e.count, e[i] == tag else { return false }
            i += 1
            for _ in 0..<4 {
                guard i < e.count else { return false }
                let more = e[i] & 0x80 != 0
                i += 1
                if !more { break }
            }
            return true
        }
        guard descriptor(0x03), i + 3 <= e.count else { return nil }
        let flags = e[i + 2]
        i += 3
        if flags & 0x80 != 0 { i += 2 }
        if flags & 0x40 != 0, i < e.count { i += 1 + Int(e[i]) }
        if flags & 0x20 != 0 { i += 2 }
        guard descriptor(0x04), i + 13 <= e.count else { return nil }
        let objectType = e[i]
        guard objectType == 0x40 else { return "mp4a." + hex(objectType).uppercased() }
        i += 13
        guard descriptor(0x05), i < e.count else { return "mp4a.40.2" }
        var aot = Int(e[i] >> 3)
        if aot == 31, i + 1 < e.count { aot = 32 + Int((e[i] & 0x07) << 3 | e[i + 1] >> 5) }
        return "mp4a.40.\(aot)"
    }

    /// The body of the first box of `type` (its bytes after the size and type), searched for anywhere.
    static func body(of type: String, in bytes: [UInt8]) -> [UInt8]? {
        let tag = Array(type.utf8)
        guard tag.count == 4, bytes.count >= 8 else { return nil }
        var i = 4
        while i + 4 <= bytes.count {
            if bytes[i] == tag[0] && bytes[i + 1] == tag[1] && bytes[i + 2] == tag[2] && bytes[i + 3] == tag[3] {
                let size = bytes[(i - 4)..<i].reduce(0) { $0 << 8 | Int($1) }
                let end = i - 4 + size
                if size >= 8 && end <= bytes.count { return Array(bytes[(i + 4)..<end]) }
            }
            i += 1
        }
        return nil
    }

    static func hex(_ b: UInt8) -> String { (b < 16 ? "0" : "") + String(b, radix: 16) }

    static func reversedBits(_ v: UInt32) -> UInt32 {
        var r: UInt32 = 0
        for k in 0..<32 where v & (1 << k) != 0 { r |= 1 << (31 - k) }
        return r
    }
}
