import CZeroMQ

/// The ZeroMQ socket patterns Tessera uses.
///
/// The farm's data plane is ROUTER (coordinator, binds) ↔ DEALER (worker, connects); PAIR links two
/// threads over `inproc://`; PUSH/PULL are for one-way pipelines; REP answers ZAP requests.
public enum ZMQSocketType: Sendable, Hashable, CaseIterable {
    case router, dealer, pair, push, pull, rep

    var rawValue: Int32 {
        switch self {
        case .router: ZMQ_ROUTER
        case .dealer: ZMQ_DEALER
        case .pair: ZMQ_PAIR
        case .push: ZMQ_PUSH
        case .pull: ZMQ_PULL
        case .rep: ZMQ_REP
        }
    }
}
