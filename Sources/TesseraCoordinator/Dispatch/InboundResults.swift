import Foundation
import TesseraCore

/// Results arriving in parts (PROTOCOL.md §8), under one budget of bytes for every worker together.
///
/// A worker offers a result's size; the offer is granted when the budget has room (in the order offers
/// came, so a large result is not passed over for ever by small ones), and only then are its parts
/// sent. The room is held from the grant until the result has been acknowledged (spooled, or refused),
/// so results assembled, waiting for their check and being spooled never exceed the budget, however many
/// workers send at once. Parts nobody granted are refused before they are kept.
struct InboundResults {
    /// One result from one peer: a reconnected worker is a new peer, and its offer a new transfer.
    struct ID: Hashable {
        var routingID: Data
        var key: TaskKey
    }

    enum Offer: Equatable {
        /// Room is reserved: send the grant.
        case granted
        /// Queued until room frees (`finish`, `drop`, `expire` return it when it is granted).
        case waiting
        /// Already granted or waiting: nothing to do.
        case duplicate
        /// Never to be granted (an empty result, or one over `maxResultBytes`).
        case refused(String)
    }

    enum Part: Equatable {
        case incomplete
        /// Every byte is in: the result's envelope. Its room is held until `finish`.
        case complete(Data)
        /// Nothing was granted for it (or it is already complete): dropped, nothing changes.
        case unexpected
        /// It breaks the transfer (wrong offset, too long, empty): the transfer is dropped and its room freed.
        case broken(String)
    }

    private struct Transfer {
        var bytes: Int
        var data: Data
        var lastHeard: Double
        /// When it must be complete: a part now and then does not hold the room for ever.
        var deadline: Double
        var isComplete = false
    }

    /// The slowest a granted result may arrive, on top of the idle allowance (`expire`): 1 MiB/s.
    static let minimumBytesPerSecond = Double(1 << 20)

    /// Bytes of results granted and not yet finished, every peer together, at most.
    let budget: Int
    let maxResultBytes: Int
    let partBytes: Int
    private(set) var reserved = 0
    private var transfers: [ID: Transfer] = [:]
    private var waiting: [(id: ID, bytes: Int)] = []

    /// - Precondition: `budget ≥ maxResultBytes > 0`, `partBytes > 0` (the CLI bounds them so): the
    ///   largest result can always be granted once the others are finished.
    init(budget: Int, maxResultBytes: Int, partBytes: Int) {
        self.budget = max(budget, maxResultBytes)
        self.maxResultBytes = max(1, maxResultBytes)
        self.partBytes = max(1, partBytes)
    }

    var waitingCount: Int { waiting.count }

    mutating func offer(_ id: ID, bytes: UInt64, now: Double) -> Offer {
        guard transfers[id] == nil, !waiting.contains(where: { $0.id == id }) else { return .duplicate }
        guard bytes > 0 else { return .refused("an empty result") }
        guard bytes <= UInt64(clamping: maxResultBytes) else {
            return .refused(
                "a result of \(Self.mebibytes(bytes)) MiB, over this coordinator's \(Self.mebibytes(UInt64(clamping: maxResultBytes))) MiB "
                    + "limit (--max-message-mb); cut shorter segments")
        }
        waiting.append((id, Int(clamping: bytes)))
        return grantWaiting(now: now).contains(id) ? .granted : .waiting
    }

    mutating func part(_ id: ID, offset: UInt64, data: Data, now: Double) -> Part {
        guard var transfer = transfers[id], !transfer.isComplete else { return .unexpected }
        let problem: String? =
            if data.isEmpty { "an empty part" } else if data.count > partBytes {
                "a part of \(data.count) bytes, over \(partBytes)"
            } else if offset != UInt64(clamping: transfer.data.count) {
                "a part at byte \(offset), \(transfer.data.count) expected"
            } else if transfer.data.count + data.count > transfer.bytes {
                "parts past the \(transfer.bytes) bytes offered"
            } else { nil }
        if let problem {
            release(id)
            return .broken(problem)
        }
        transfer.data.append(data)
        transfer.lastHeard = now
        guard transfer.data.count == transfer.bytes else {
            transfers[id] = transfer
            return .incomplete
        }
        // The bytes leave with the caller; the room stays reserved until `finish`.
        let bytes = transfer.data
        transfer.data = Data()
        transfer.isComplete = true
        transfers[id] = transfer
        return .complete(bytes)
    }

    /// The result is done with (acknowledged): its room is freed. Returns the offers granted now.
    mutating func finish(_ id: ID, now: Double) -> [ID] {
        release(id)
        return grantWaiting(now: now)
    }

    /// A peer is gone: its waiting offers and unfinished transfers are dropped (a complete one keeps its
    /// room until it is finished). Returns the offers granted now.
    mutating func drop(peer routingID: Data, now: Double) -> [ID] {
        waiting.removeAll { $0.id.routingID == routingID }
        for (id, t) in transfers where id.routingID == routingID && !t.isComplete { release(id) }
        return grantWaiting(now: now)
    }

    /// Transfers granted but not completed, with no part for `idle` seconds or not complete by their
    /// deadline (`idle` plus their bytes at `minimumBytesPerSecond` after the grant), are dropped: an honest
    /// worker sends every part as soon as it is granted. Returns those dropped and the offers granted now.
    mutating func expire(idle: Double, now: Double) -> (expired: [ID], granted: [ID]) {
        let stale = transfers.filter {
            !$0.value.isComplete && (now - $0.value.lastHeard > idle || now > $0.value.deadline + idle)
        }.map(\.key)
        for id in stale { release(id) }
        return (stale, stale.isEmpty ? [] : grantWaiting(now: now))
    }

    private mutating func release(_ id: ID) {
        if let t = transfers.removeValue(forKey: id) { reserved -= t.bytes }
        waiting.removeAll { $0.id == id }
    }

    /// Grants waiting offers in order while the first fits.
    private mutating func grantWaiting(now: Double) -> [ID] {
        var granted: [ID] = []
        while let first = waiting.first, reserved + first.bytes <= budget {
            waiting.removeFirst()
            reserved += first.bytes
            // Reserved in address space only: pages are touched as parts arrive, and nothing is copied
            // as the buffer fills.
            transfers[first.id] = Transfer(
                bytes: first.bytes, data: Data(capacity: first.bytes), lastHeard: now,
                deadline: now + Double(first.bytes) / Self.minimumBytesPerSecond)
            granted.append(first.id)
        }
        return granted
    }

    private static func mebibytes(_ bytes: UInt64) -> String { String(format: "%.1f", Double(bytes) / 1_048_576) }
}
