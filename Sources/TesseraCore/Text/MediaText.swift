/// The project's one reading of the short texts people type for rates and sizes (flags, JSON fields).
public enum MediaText {
    /// "4M", "2500k", "128000" → bits per second; nil for anything else, or a rate past 1 Tb/s (no value
    /// reaches a trapping conversion).
    public static func bitRate(_ text: String) -> Int? {
        let lower = text.lowercased()
        let scale: Double = lower.hasSuffix("m") ? 1_000_000 : lower.hasSuffix("k") ? 1000 : 1
        guard let n = Double(scale == 1 ? lower : String(lower.dropLast())), n.isFinite, n > 0,
            n * scale < 1e12
        else { return nil }
        return Int((n * scale).rounded())
    }

    /// "1280x720" → (1280, 720); nil unless both sides are whole numbers of 2…65536.
    public static func size(_ text: String) -> (width: Int, height: Int)? {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (2...65536).contains(w),
            (2...65536).contains(h)
        else { return nil }
        return (w, h)
    }
}
