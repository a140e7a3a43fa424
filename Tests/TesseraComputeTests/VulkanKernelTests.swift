import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore
import Testing

/// Every Vulkan kernel against the double-precision reference (`Reference`).
@Suite(.enabled(if: VulkanAvailability.isAvailable, VulkanAvailability.reason))
struct VulkanKernelTests {
    static let inputs: [PixelFormat] = [.yuv420p, .nv12, .yuv420p10le, .p010le, .yuv422p, .yuv444p, .rgba]
    static let outputs: [PixelFormat] = [.yuv420p, .nv12, .p010le, .rgba]

    @Test("colour conversion, every input × output format, odd size", arguments: inputs, outputs)
    func conversion(input: PixelFormat, output: PixelFormat) throws {
        let picture = TestPicture.pattern(input, width: 67, height: 45)
        let spec = ProcessingSpec(outputWidth: 67, outputHeight: 45, outputFormat: output)
        let actual = try run(try VulkanProcessor(spec: spec), picture)
        let psnr = Reference.psnr(actual, Reference.process(picture, spec))
        #expect(psnr.allSatisfy { $0 >= 50 }, "PSNR \(formatted(psnr)) dB")
    }

    struct Scaling: CustomTestStringConvertible, Sendable {
        var input: PixelFormat, width: Int, height: Int, output: PixelFormat, outWidth: Int, outHeight: Int
        var testDescription: String { "\(input) \(width)x\(height) → \(output) \(outWidth)x\(outHeight)" }
    }

    static let scalings: [Scaling] = [
        .init(input: .yuv420p, width: 1918, height: 1078, output: .yuv420p, outWidth: 1280, outHeight: 720),
        .init(input: .nv12, width: 321, height: 239, output: .nv12, outWidth: 643, outHeight: 481),
        .init(input: .yuv420p10le, width: 640, height: 360, output: .yuv420p, outWidth: 213, outHeight: 119),
        .init(input: .p010le, width: 255, height: 143, output: .p010le, outWidth: 100, outHeight: 57),
        .init(input: .rgba, width: 200, height: 100, output: .yuv420p, outWidth: 99, outHeight: 51),
        .init(input: .yuv422p, width: 130, height: 74, output: .rgba, outWidth: 301, outHeight: 177),
    ]

    @Test("scaling with every filter, odd sizes", arguments: scalings, ScalingFilter.allCases)
    func scaling(_ job: Scaling, filter: ScalingFilter) throws {
        let picture = TestPicture.pattern(job.input, width: job.width, height: job.height)
        let spec = ProcessingSpec(
            outputWidth: job.outWidth, outputHeight: job.outHeight, outputFormat: job.output,
            filter: filter)
        let actual = try run(try VulkanProcessor(spec: spec), picture)
        let psnr = Reference.psnr(actual, Reference.process(picture, spec))
        #expect(psnr.allSatisfy { $0 >= 50 }, "PSNR \(formatted(psnr)) dB")
    }

    @Test("identity is exact", arguments: [PixelFormat.yuv420p, .nv12, .p010le, .rgba], ScalingFilter.allCases)
    func identity(format: PixelFormat, filter: ScalingFilter) throws {
        var picture = TestPicture.pattern(format, width: 37, height: 23)
        // Opaque: nothing to composite.
        if format == .rgba { picture.channels[3] = picture.channels[3].map { _ in 255 } }
        let spec = ProcessingSpec(outputWidth: 37, outputHeight: 23, outputFormat: format, filter: filter)
        let actual = try run(try VulkanProcessor(spec: spec), picture)
        #expect(differences(actual.channels, picture.channels) == 0)
    }

    @Test("10-bit input to 10-bit output keeps every bit", arguments: [PixelFormat.yuv420p10le, .p010le])
    func tenBitIdentity(format: PixelFormat) throws {
        let picture = TestPicture.pattern(format, width: 64, height: 36)
        let spec = ProcessingSpec(outputWidth: 64, outputHeight: 36, outputFormat: .p010le)
        let actual = try run(try VulkanProcessor(spec: spec), picture)
        #expect(differences(actual.channels, picture.channels) == 0)
    }

    @Test("10 → 8 bit with and without dither", arguments: [true, false])
    func tenToEight(dither: Bool) throws {
        let picture = TestPicture.pattern(.yuv420p10le, width: 96, height: 54)
        let spec = ProcessingSpec(outputWidth: 96, outputHeight: 54, outputFormat: .yuv420p, dither: dither)
        let actual = try run(try VulkanProcessor(spec: spec), picture)
        let reference = Reference.process(picture, spec)
        let psnr = Reference.psnr(actual, reference)
        #expect(psnr.allSatisfy { $0 >= 50 }, "PSNR \(formatted(psnr)) dB")
        // Dither trades a little PSNR for no banding and, unlike rounding half up, adds no bias.
        guard dither else { return }
        let bias =
            zip(actual.channels[0], reference[0]).reduce(0.0) { $0 + Double($1.0) - $1.1 }
            / Double(actual.channels[0].count)
        #expect(abs(bias) < 0.1, "mean error \(bias)")
    }

    struct Orientation: CustomTestStringConvertible, Sendable {
        var rotation: Rotation, flipH: Bool, flipV: Bool
        var testDescription: String { "\(rotation)\(flipH ? " flipH" : "")\(flipV ? " flipV" : "")" }
    }

    static let orientations: [Orientation] =
        [0, 90, 180, 270].flatMap { d in
            [
                Orientation(rotation: Rotation(degrees: d), flipH: false, flipV: false),
                Orientation(rotation: Rotation(degrees: d, mirrored: true), flipH: false, flipV: false),
            ]
        } + [
            Orientation(rotation: .none, flipH: true, flipV: false),
            Orientation(rotation: .none, flipH: false, flipV: true),
            Orientation(rotation: Rotation(degrees: 90), flipH: true, flipV: true),
        ]

    @Test("rotations and flips, scaled, odd sizes", arguments: orientations, [PixelFormat.yuv420p, .rgba])
    func orientation(_ o: Orientation, output: PixelFormat) throws {
        let picture = TestPicture.pattern(.yuv420p, width: 161, height: 97)
        let (w, h) = o.rotation.swapsDimensions ? (71, 119) : (119, 71)
        let spec = ProcessingSpec(
            outputWidth: w, outputHeight: h, outputFormat: output, rotation: o.rotation,
            flipHorizontal: o.flipH, flipVertical: o.flipV)
        let actual = try run(try VulkanProcessor(spec: spec), picture)
        let psnr = Reference.psnr(actual, Reference.process(picture, spec))
        #expect(psnr.allSatisfy { $0 >= 50 }, "PSNR \(formatted(psnr)) dB")
    }

    @Test("rotation without scaling moves luma samples exactly", arguments: [0, 90, 180, 270])
    func exactRotation(degrees: Int) throws {
        let picture = TestPicture.pattern(.yuv420p, width: 33, height: 21)
        let rotation = Rotation(degrees: degrees)
        let (w, h) = rotation.swapsDimensions ? (21, 33) : (33, 21)
        let spec = ProcessingSpec(outputWidth: w, outputHeight: h, outputFormat: .yuv420p, rotation: rotation)
        let actual = try run(try VulkanProcessor(spec: spec), picture)
        var expected = [Int](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let (sx, sy): (Int, Int)
                switch degrees {
                case 90: (sx, sy) = (y, 20 - x)
                case 180: (sx, sy) = (32 - x, 20 - y)
                case 270: (sx, sy) = (32 - y, x)
                default: (sx, sy) = (x, y)
                }
                expected[y * w + x] = picture.channels[0][sy * 33 + sx]
            }
        }
        #expect(differences([actual.channels[0]], [expected]) == 0)
    }

    struct Colour: CustomTestStringConvertible, Sendable {
        var inMatrix: ColorMatrix, inRange: ColorRange, outMatrix: ColorMatrix, outRange: ColorRange
        var testDescription: String { "\(inMatrix) \(inRange.rawValue) → \(outMatrix) \(outRange.rawValue)" }
    }

    static let colours: [Colour] = [ColorMatrix.bt601, .bt709, .bt2020nc].flatMap { a in
        [ColorMatrix.bt601, .bt709, .bt2020nc].flatMap { b in
            [
                Colour(inMatrix: a, inRange: .limited, outMatrix: b, outRange: .full),
                Colour(inMatrix: a, inRange: .full, outMatrix: b, outRange: .limited),
            ]
        }
    }

    @Test("matrices and ranges", arguments: colours)
    func matrices(_ c: Colour) throws {
        let picture = TestPicture.pattern(.yuv420p10le, width: 50, height: 30, matrix: c.inMatrix, range: c.inRange)
        let spec = ProcessingSpec(
            outputWidth: 50, outputHeight: 30, outputFormat: .p010le, outputMatrix: c.outMatrix,
            outputRange: c.outRange)
        let actual = try run(try VulkanProcessor(spec: spec), picture)
        let psnr = Reference.psnr(actual, Reference.process(picture, spec))
        #expect(psnr.allSatisfy { $0 >= 50 }, "PSNR \(formatted(psnr)) dB")
    }

    @Test(
        "opacity and background colour, with and without source alpha",
        arguments: [PixelFormat.yuv420p, .rgba], [0.0, 0.4, 1.0])
    func opacity(input: PixelFormat, opacity: Double) throws {
        let picture = TestPicture.pattern(input, width: 80, height: 44)
        let spec = ProcessingSpec(
            outputWidth: 60, outputHeight: 34, outputFormat: .nv12, opacity: opacity,
            backgroundColor: RGBColor(red: 0.9, green: 0.2, blue: 0.4))
        let actual = try run(try VulkanProcessor(spec: spec), picture)
        let psnr = Reference.psnr(actual, Reference.process(picture, spec))
        #expect(psnr.allSatisfy { $0 >= 50 }, "PSNR \(formatted(psnr)) dB")
    }

    @Test("staging buffers (the discrete-GPU path) give the same pictures")
    func staging() throws {
        let picture = TestPicture.pattern(.nv12, width: 300, height: 170)
        let spec = ProcessingSpec(
            outputWidth: 211, outputHeight: 119, outputFormat: .yuv420p, rotation: Rotation(degrees: 180))
        let direct = try run(try VulkanProcessor(spec: spec), picture)
        let staged = try run(try VulkanProcessor(spec: spec, forceStaging: true), picture)
        #expect(differences(direct.channels, staged.channels) == 0)
    }

    @Test("frames in flight come back in order, equal to one-at-a-time processing")
    func pipelined() throws {
        let spec = ProcessingSpec(outputWidth: 160, outputHeight: 90, outputFormat: .yuv420p)
        let pictures = (0..<7).map { TestPicture.pattern(.yuv420p, width: 320, height: 180, seed: $0) }
        let single = try VulkanProcessor(spec: spec, framesInFlight: 1)
        let expected = try pictures.map { try run(single, $0).channels }
        let processor = try VulkanProcessor(spec: spec, framesInFlight: 3)
        var received: [[[Int]]] = []
        for (i, p) in pictures.enumerated() {
            if processor.pendingCount == processor.framesInFlight, let f = try processor.receive() {
                received.append(TestPicture(frame: f).channels)
            }
            let frame = try p.makeFrame()
            frame.pts = Int64(i)
            try processor.submit(frame)
        }
        while let f = try processor.receive() { received.append(TestPicture(frame: f).channels) }
        #expect(received.count == expected.count)
        for (r, e) in zip(received, expected) { #expect(differences(r, e) == 0) }
    }

    @Test("a change of input size mid-stream rebuilds the setup")
    func geometryChange() throws {
        let spec = ProcessingSpec(outputWidth: 64, outputHeight: 36, outputFormat: .yuv420p)
        let processor = try VulkanProcessor(spec: spec)
        for (w, h) in [(128, 72), (99, 51), (128, 72)] {
            let picture = TestPicture.pattern(.yuv420p, width: w, height: h)
            let psnr = Reference.psnr(try run(processor, picture), Reference.process(picture, spec))
            #expect(psnr.allSatisfy { $0 >= 50 }, "\(w)x\(h): PSNR \(formatted(psnr)) dB")
        }
    }
}
