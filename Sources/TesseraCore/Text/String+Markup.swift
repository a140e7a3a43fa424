extension String {
    /// The text with `& < > " '` written as character references: safe in HTML and XML text and in
    /// attribute values either quote encloses (the dashboard's pages, a DASH manifest).
    public var markupEscaped: String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for c in self {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }
}
