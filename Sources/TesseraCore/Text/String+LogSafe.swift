extension String {
    /// The text as it may go into a log line, an error message or an API answer when it came from
    /// outside (a request, the wire, a file): at most `limit` characters (then "…(N bytes)"), and control
    /// characters (newlines included) written as `\u{…}`, so it cannot forge a line or fill a log.
    /// Reads at most `limit` scalars of the text, however long it is.
    public func logSafe(limit: Int = 64) -> String {
        var out = ""
        var taken = 0
        var truncated = false
        for scalar in unicodeScalars {
            if taken == limit {
                truncated = true
                break
            }
            taken += 1
            if scalar.value < 0x20 || (0x7f...0x9f).contains(scalar.value) || scalar == "\u{2028}"
                || scalar == "\u{2029}"
            {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return truncated ? out + "…(\(utf8.count) bytes)" : out
    }
}
