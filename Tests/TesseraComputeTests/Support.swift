import Foundation
import TesseraAV
import TesseraCompute
import TesseraCore
import Testing

/// Whether this machine has a Vulkan device, and which (or why not), for `.enabled(if:)` traits.
enum VulkanAvailability {
    static let result = VulkanProcessor.availableDevice()
    static var isAvailable: Bool { (try? result.get()) != nil }
    static var reason: Comment {
        switch result {
        case .success(let name): "Vulkan device: \(name)"
        case .failure(let error): "no Vulkan device here, Vulkan tests skipped: \(error)"
        }
    }
}

enum Backend: String, CaseIterable, CustomTestStringConvertible {
    case vulkan, cpu
    var testDescription: String { rawValue }

    func processor(_ spec: ProcessingSpec) throws -> any FrameProcessor {
        switch self {
        case .vulkan: try VulkanProcessor(spec: spec)
        case .cpu: try CPUProcessor(spec: spec)
        }
    }
}

/// Runs one picture through a processor and reads the result back.
func run(_ processor: any FrameProcessor, _ picture: TestPicture) throws -> TestPicture {
    let output = try processor.process(try picture.makeFrame())
    #expect(output.width == processor.spec.outputWidth && output.height == processor.spec.outputHeight)
    #expect(PixelFormat(output.pixelFormat) == processor.spec.outputFormat)
    return TestPicture(frame: output)
}

func formatted(_ values: [Double]) -> String { values.map { String(format: "%.1f", $0) }.joined(separator: "/") }

/// How many samples differ between two pictures' channels (0 when identical), without printing arrays.
func differences(_ a: [[Int]], _ b: [[Int]]) -> Int {
    guard a.count == b.count else { return Int.max }
    return zip(a, b).reduce(0) { total, pair in
        pair.0.count != pair.1.count ? Int.max : total + zip(pair.0, pair.1).filter { $0 != $1 }.count
    }
}
