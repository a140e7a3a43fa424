import CFFmpeg
import Foundation
import Testing

@testable import TesseraAV
@testable import TesseraMedia

/// What a failed open is called: a process out of descriptors is an I/O condition of this process, not a
/// file "FFmpeg does not recognise" (a flood once made the coordinator say that of a good source).
@Suite struct OpenFailureTests {
    @Test(arguments: [EMFILE, ENFILE])
    func runningOutOfDescriptorsIsNotABadFile(code: Int32) throws {
        let error = Asset.openFailure(path: "/nonexistent/a.mp4", size: 1000, code: tessera_AVERROR(code))
        #expect(error.kind == .io)
        #expect(error.message.contains("too many open files"), "\(error.message)")
        #expect(!error.message.contains("not a media file"))
    }
}
