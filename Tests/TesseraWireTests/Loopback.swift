import Foundation
import Testing

@testable import TesseraWire

/// A ROUTER bound on loopback with DEALERs connected to it, all in one context: the farm's topology
/// in miniature.
struct Loopback {
    let context = ZMQContext()
    let router: ZMQSocket
    let endpoint: String

    init(routerOptions: [ZMQSocketOption] = []) throws {
        router = try ZMQSocket(context, .router)
        for option in routerOptions { try router.set(option) }
        endpoint = try router.bind("tcp://127.0.0.1:*")
    }

    func dealer(id: String, options: [ZMQSocketOption] = []) throws -> ZMQSocket {
        let dealer = try ZMQSocket(context, .dealer)
        try dealer.set(.routingID(Data(id.utf8)))
        for option in options { try dealer.set(option) }
        try dealer.connect(endpoint)
        return dealer
    }
}

/// Runs `body` on a dedicated thread (blocking socket loops never run on the cooperative pool in product
/// code; the tests keep that shape) and lets the test wait for it.
final class BackgroundThread: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [done] in
            body()
            done.signal()
        }
        thread.start()
    }

    /// True when the thread finished within `seconds`.
    func join(seconds: Double = 10) -> Bool {
        done.wait(timeout: .now() + seconds) == .success
    }
}

/// Lines collected from a logger that other threads call.
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    var sink: @Sendable (String) -> Void { { [self] line in lock.withLock { lines.append(line) } } }
    var all: [String] { lock.withLock { lines } }
}

/// A fresh scratch directory under the system's temporary directory.
func scratchDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "tessera-wire-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Bytes that differ from position to position, so a misplaced or dropped chunk shows.
func patternedData(count: Int, seed: UInt8 = 0) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ ($0 >> 16) &+ Int(seed)) })
}
