import TesseraCore

/// On the wire an unset optional is 0 or "" (proto3 has no nil for scalars), so a set `maxWidth`,
/// `gopLength`, `level` must be positive and a set `speed`, `pixelFormat`, `profile` non-empty.
extension Tessera_V1_VideoSettings {
    /// - Throws: `.unrepresentable` for a set optional that is 0, negative or empty, or a negative rate.
    public init(_ settings: VideoSettings, field: String = "settings") throws(WireError) {
        self.init()
        codec = settings.codec.rawValue
        maxWidth = try WireValue.positiveOrUnset(settings.maxWidth, "\(field).max_width")
        maxHeight = try WireValue.positiveOrUnset(settings.maxHeight, "\(field).max_height")
        switch settings.rateControl {
        case .crf(let crf): rateControl = .crf(try WireValue.uint32(crf, "\(field).crf"))
        case .bitRate(let bitRate): rateControl = .bitRate(try WireValue.uint64(bitRate, "\(field).bit_rate"))
        }
        speed = try WireValue.nonEmptyOrUnset(settings.speed, "\(field).speed")
        gopLength = try WireValue.positiveOrUnset(settings.gopLength, "\(field).gop_length")
        pixelFormat = try WireValue.nonEmptyOrUnset(settings.pixelFormat?.rawValue, "\(field).pixel_format")
        profile = try WireValue.nonEmptyOrUnset(settings.profile, "\(field).profile")
        level = try WireValue.positiveOrUnset(settings.level, "\(field).level")
        if let cap = settings.maxBitRate { maxBitRate = try WireValue.uint64(cap, "\(field).max_bit_rate") }
    }
}

extension VideoSettings {
    /// - Throws: `.malformed` for a codec name Tessera does not encode, a missing rate control, or a bit
    ///   rate beyond Int.
    public init(wire: Tessera_V1_VideoSettings, field: String = "settings") throws(WireError) {
        guard let codec = VideoCodec(rawValue: wire.codec) else {
            let known = VideoCodec.allCases.map(\.rawValue).joined(separator: ", ")
            throw WireValue.malformed("\(field).codec", "\"\(wire.codec)\" is not one of \(known)")
        }
        let rateControl: RateControl
        switch wire.rateControl {
        case .crf(let crf): rateControl = .crf(Int(crf))
        case .bitRate(let bitRate): rateControl = .bitRate(try WireValue.int(bitRate, "\(field).bit_rate"))
        case nil: throw WireValue.malformed("\(field).rate_control", "is missing (crf or bit_rate)")
        }
        func unset<T: BinaryInteger>(_ value: T) -> Int? { value == 0 ? nil : Int(value) }
        func unset(_ value: String) -> String? { value.isEmpty ? nil : value }
        self.init(
            codec: codec, maxWidth: unset(wire.maxWidth), maxHeight: unset(wire.maxHeight), rateControl: rateControl,
            speed: unset(wire.speed), gopLength: unset(wire.gopLength),
            pixelFormat: unset(wire.pixelFormat).map(PixelFormat.init(rawValue:)), profile: unset(wire.profile),
            level: unset(wire.level),
            maxBitRate: wire.maxBitRate == 0 ? nil : try WireValue.int(wire.maxBitRate, "\(field).max_bit_rate"))
    }
}
