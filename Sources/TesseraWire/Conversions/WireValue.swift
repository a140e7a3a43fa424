/// Range checks shared by the conversions. A wire value that breaks a rule is `.malformed`; the same rule
/// broken by a Swift value about to be sent is `.unrepresentable`, as is a Swift value that does not fit
/// its wire field. Messages name the field in the protocol's spelling (`task.spec.output_end_frame`).
///
/// The rules live once, in each wire type's `validate(_:)`; encoders run it on what they built, so any
/// value that encodes without error decodes back to itself.
enum WireValue {
    static func int32(_ value: Int, _ field: String) throws(WireError) -> Int32 {
        guard let wire = Int32(exactly: value) else {
            throw WireError(.unrepresentable, "\(field) = \(value) does not fit in 32 bits")
        }
        return wire
    }

    static func uint32(_ value: Int, _ field: String) throws(WireError) -> UInt32 {
        guard let wire = UInt32(exactly: value) else {
            throw WireError(.unrepresentable, "\(field) = \(value) is negative or does not fit in 32 bits")
        }
        return wire
    }

    static func uint64(_ value: Int, _ field: String) throws(WireError) -> UInt64 {
        guard let wire = UInt64(exactly: value) else {
            throw WireError(.unrepresentable, "\(field) = \(value) is negative")
        }
        return wire
    }

    /// An optional count or size whose "unset" is 0 on the wire: nil ↔ 0, so a set value must be positive.
    static func positiveOrUnset(_ value: Int?, _ field: String) throws(WireError) -> UInt32 {
        guard let value else { return 0 }
        guard value > 0 else {
            throw WireError(.unrepresentable, "\(field) = \(value): must be positive; nil means unset")
        }
        return try uint32(value, field)
    }

    /// An optional string whose "unset" is "" on the wire, so a set value must not be empty.
    static func nonEmptyOrUnset(_ value: String?, _ field: String) throws(WireError) -> String {
        guard let value else { return "" }
        guard !value.isEmpty else {
            throw WireError(.unrepresentable, "\(field) is an empty string; nil means unset")
        }
        return value
    }

    static func int(_ value: UInt64, _ field: String) throws(WireError) -> Int {
        guard let int = Int(exactly: value) else { throw malformed(field, "= \(value) is out of range") }
        return int
    }

    /// A rate factor as the wire carries it: rounded to a whole step (`crf`, which earlier peers read),
    /// and as encoded (`rate_factor`).
    static func rateFactor(_ value: Double, _ field: String) throws(WireError) -> (crf: UInt32, exact: Double) {
        guard value.isFinite, (0...63).contains(value), let whole = UInt32(exactly: value.rounded()) else {
            throw WireError(.unrepresentable, "\(field) = \(value) is not a rate factor 0…63")
        }
        return (whole, value)
    }

    /// The rate factor of a message that carries it as `rate_factor` (read first) or `crf` (a peer of an
    /// earlier build).
    /// - Throws: `.malformed` naming the field for a factor that is not a number 0…63.
    static func rateFactor(exact: Double?, crf: UInt32, _ field: String) throws(WireError) -> Double {
        if let exact {
            guard exact.isFinite, (0...63).contains(exact) else {
                throw malformed("\(field).rate_factor", "is \(exact): a rate factor 0…63")
            }
            return exact
        }
        guard crf <= 63 else { throw malformed("\(field).crf", "is \(crf): at most 63") }
        return Double(crf)
    }

    static func malformed(_ field: String, _ problem: String) -> WireError {
        WireError(.malformed, "\(field) \(problem)")
    }

    /// Runs a wire type's rules on a message just built from Swift values.
    static func checkOutgoing(_ validate: () throws(WireError) -> Void) throws(WireError) {
        do { try validate() } catch { throw WireError(.unrepresentable, error.message) }
    }
}
