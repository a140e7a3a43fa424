import Foundation
import TesseraMedia

/// Turns SIGINT/SIGTERM into a call (cancel the export) instead of killing the process mid-write.
final class InterruptHandler: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []

    init(_ action: @escaping @Sendable () -> Void) {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler(handler: action)
            source.resume()
            sources.append(source)
        }
    }

    func remove() {
        sources.forEach { $0.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
