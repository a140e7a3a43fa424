import CFFmpeg
import CVulkan
import TesseraAV
import Testing

@testable import TesseraCompute

/// Errors say what failed: a GPU failure is `.device`, memory is `.internal`, a full disk is `.io`,
/// none of them an encoder's (`.ffmpeg`), so workers report them under codes of their own.
@Suite struct ErrorKindTests {
    @Test func vulkanFailuresAreDeviceErrorsAndMissingFeaturesUnsupported() {
        for (result, kind) in [
            (VK_ERROR_OUT_OF_DEVICE_MEMORY, MediaError.Kind.device), (VK_ERROR_DEVICE_LOST, .device),
            (VK_ERROR_FEATURE_NOT_PRESENT, .unsupported),
        ] {
            let error = #expect(throws: MediaError.self) { try vk(result, "allocate") }
            #expect(error?.kind == kind, "\(result)")
        }
        #expect(throws: Never.self) { try vk(VK_SUCCESS, "allocate") }
    }

    @Test func libavCodesAreSortedByWhatFailed() {
        let cases: [(Int32, MediaError.Kind)] = [
            (tessera_AVERROR(ENOSPC), .io), (tessera_AVERROR(EIO), .io), (tessera_AVERROR(ENOMEM), .internal),
            (tessera_AVERROR_INVALIDDATA(), .corrupt), (tessera_AVERROR(ENOENT), .notFound),
            (tessera_AVERROR(EINVAL), .ffmpeg),
        ]
        for (code, kind) in cases {
            let error = #expect(throws: MediaError.self) { try ff(code, "write") }
            #expect(error?.kind == kind, "\(code): \(String(describing: error))")
        }
    }
}
