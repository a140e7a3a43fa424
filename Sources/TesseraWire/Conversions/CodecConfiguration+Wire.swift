import Foundation
import TesseraCore

extension Tessera_V1_CodecParameters {
    /// - Parameter field: where the message sits, for errors ("task.source", "output.parameters").
    /// - Throws: `.unrepresentable` when an integer does not fit in 32 bits or a rule of `validate` fails.
    public init(_ configuration: CodecConfiguration, field: String = "codec_parameters") throws(WireError) {
        self.init()
        let c = configuration
        codec = c.codec
        codecTag = c.codecTag
        width = try WireValue.int32(c.width, "\(field).width")
        height = try WireValue.int32(c.height, "\(field).height")
        pixelFormat = c.pixelFormat
        profile = try WireValue.int32(c.profile, "\(field).profile")
        level = try WireValue.int32(c.level, "\(field).level")
        extradata = Data(c.extradata)
        colorRange = try WireValue.int32(c.colorRange, "\(field).color_range")
        colorPrimaries = try WireValue.int32(c.colorPrimaries, "\(field).color_primaries")
        colorTransfer = try WireValue.int32(c.colorTransfer, "\(field).color_transfer")
        colorSpace = try WireValue.int32(c.colorSpace, "\(field).color_space")
        chromaLocation = try WireValue.int32(c.chromaLocation, "\(field).chroma_location")
        fieldOrder = try WireValue.int32(c.fieldOrder, "\(field).field_order")
        sampleAspectRatio = Tessera_V1_Rational(c.sampleAspectRatio)
        bitsPerRawSample = try WireValue.int32(c.bitsPerRawSample, "\(field).bits_per_raw_sample")
        videoDelay = try WireValue.int32(c.videoDelay, "\(field).video_delay")
        bitRate = c.bitRate
        try WireValue.checkOutgoing { () throws(WireError) in try validate(field) }
    }

    /// - Throws: `.malformed` for an empty codec name, a negative size, or a sample aspect ratio with a
    ///   denominator ≤ 0 or a negative numerator.
    func validate(_ field: String) throws(WireError) {
        guard !codec.isEmpty else { throw WireValue.malformed("\(field).codec", "is empty") }
        guard width >= 0, height >= 0 else {
            throw WireValue.malformed("\(field).width/height", "is \(width)x\(height): negative")
        }
        try sampleAspectRatio.validate("\(field).sample_aspect_ratio", .nonNegative)
        // FFmpeg's colour, chroma and field-order enums are small and unsigned: a negative or huge value
        // would trap where it becomes the C enum's UInt32.
        for (name, value) in [
            ("color_range", colorRange), ("color_primaries", colorPrimaries),
            ("color_transfer", colorTransfer), ("color_space", colorSpace),
            ("chroma_location", chromaLocation), ("field_order", fieldOrder),
        ]
        where !(0...255).contains(value) {
            throw WireValue.malformed("\(field).\(name)", "is \(value): outside 0…255")
        }
        guard bitsPerRawSample >= 0, videoDelay >= 0 else {
            throw WireValue.malformed("\(field).bits_per_raw_sample/video_delay", "is negative")
        }
    }
}

extension CodecConfiguration {
    /// - Parameter field: where the message sits, for errors ("task.source", "output.parameters").
    /// - Throws: `.malformed` naming the field that breaks a rule (see `Tessera_V1_CodecParameters`).
    public init(wire: Tessera_V1_CodecParameters, field: String = "codec_parameters") throws(WireError) {
        try wire.validate(field)
        self.init(
            codec: wire.codec, codecTag: wire.codecTag, width: Int(wire.width), height: Int(wire.height),
            pixelFormat: wire.pixelFormat, profile: Int(wire.profile), level: Int(wire.level),
            extradata: [UInt8](wire.extradata), colorRange: Int(wire.colorRange),
            colorPrimaries: Int(wire.colorPrimaries), colorTransfer: Int(wire.colorTransfer),
            colorSpace: Int(wire.colorSpace), chromaLocation: Int(wire.chromaLocation),
            fieldOrder: Int(wire.fieldOrder), sampleAspectRatio: Fraction(unchecked: wire.sampleAspectRatio),
            bitsPerRawSample: Int(wire.bitsPerRawSample), videoDelay: Int(wire.videoDelay), bitRate: wire.bitRate)
    }
}
