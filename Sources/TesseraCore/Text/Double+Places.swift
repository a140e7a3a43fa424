extension Double {
    /// The value to `places` decimals, as the API and the page show rates and ages; 0 for a value that is
    /// not finite (JSON cannot carry it).
    public func rounded(places: Int) -> Double {
        guard isFinite else { return 0 }
        var scale = 1.0
        for _ in 0..<max(0, places) { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
