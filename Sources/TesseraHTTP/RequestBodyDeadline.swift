import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request body trickles. Hummingbird's idle timeout already closes one whose
/// head does not arrive (it counts from the connection or the last response), but every body part resets
/// it, so a client sending a byte every few seconds would hold its descriptor forever: here, once a head
/// has arrived, its body must end within `window`, or bring at least `minimumBytes` in each `window`
/// (an upload of gigabytes keeps going; a trickle does not).
final class RequestBodyDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    let window: TimeAmount
    let minimumBytes: Int
    private var timer: Scheduled<Void>?
    private var bytesInWindow = 0

    init(window: TimeAmount, minimumBytes: Int) {
        self.window = window
        self.minimumBytes = minimumBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            bytesInWindow = 0
            arm(context)
        case .body(let buffer):
            bytesInWindow += buffer.readableBytes
        case .end:
            timer?.cancel()
            timer = nil
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    private func arm(_ context: ChannelHandlerContext) {
        timer?.cancel()
        let loop = context.eventLoop.assumeIsolated()
        timer = loop.scheduleTask(in: window) { [self] in
            guard bytesInWindow >= minimumBytes else {
                context.close(promise: nil)
                return
            }
            bytesInWindow = 0
            arm(context)
        }
    }
}
