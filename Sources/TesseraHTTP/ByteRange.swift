/// One byte range of a `Range` header (RFC 9110 §14.2), against a file of `size` bytes.
enum ByteRange: Equatable {
    /// No range asked for, or one this server ignores (several ranges, another unit, bad syntax): the
    /// whole file, 200.
    case whole
    /// Bytes `lowerBound` through `upperBound`, both within the file: 206.
    case part(ClosedRange<Int64>)
    /// A range that starts past the end (or a file of no bytes): 416.
    case unsatisfiable

    static func parse(_ header: String?, size: Int64) -> ByteRange {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return .whole }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard let dash = spec.firstIndex(of: "-") else { return .whole }
        let (first, last) = (spec[..<dash], spec[spec.index(after: dash)...])
        // Digits only, and few enough of them for Int64: a value from outside never traps.
        func number(_ text: Substring) -> Int64? {
            text.count <= 18 && !text.isEmpty && text.allSatisfy(\.isASCII) && text.allSatisfy(\.isNumber)
                ? Int64(text) : nil
        }
        if first.isEmpty {
            // The last n bytes.
            guard let n = number(last) else { return .whole }
            guard n > 0, size > 0 else { return .unsatisfiable }
            return .part(max(0, size - n)...(size - 1))
        }
        guard let start = number(first) else { return .whole }
        let end: Int64
        if last.isEmpty {
            end = size - 1
        } else {
            guard let e = number(last), e >= start else { return .whole }
            end = min(e, size - 1)
        }
        guard start < size else { return .unsatisfiable }
        return .part(start...end)
    }
}
