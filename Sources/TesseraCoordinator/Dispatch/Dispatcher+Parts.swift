import Foundation
import TesseraCore
import TesseraWire

/// Results in parts (PROTOCOL.md §8): a worker offers a result's size, is granted room from the budget
/// every worker shares (`InboundResults`), sends the parts, and the assembled envelope is taken as a
/// result (`accept`). The room is freed when the result is acknowledged.
extension Dispatcher {
    /// An offer from the session holding the attempt is granted or queued; any other is acknowledged so
    /// the worker forgets it (a result for an attempt it does not hold would be discarded anyway).
    func offered(_ offer: Tessera_V1_ResultOffer, from routingID: Data, now: Double) {
        let key = TaskKey(offer.ref)
        guard isHolder(key, routingID) else {
            warnOnce(
                routingID, "not-holder",
                "refused result \(key) from worker \(sessions[routingID]?.id ?? "?"): that attempt was not leased to it"
            )
            send(.ack(key.ref), to: routingID)
            return
        }
        // A result on its way is a sign of progress for the worker's leases, as TaskProgress is.
        if let worker = sessions[routingID]?.id { farm.board.touch(worker: worker, now: now) }
        switch inbound.offer(.init(routingID: routingID, key: key), bytes: offer.bytes, now: now) {
        case .granted:
            send(.grant(key.ref), to: routingID)
        case .waiting:
            logger.debug("result \(key) waits for room (\(inbound.reserved) bytes of results in hand)")
        case .duplicate:
            break
        case .refused(let why):
            refuseTransfer(key, from: routingID, why: why, now: now)
        }
        farm.metrics.inboundResults(bytes: inbound.reserved, waiting: inbound.waitingCount)
    }

    func received(_ part: Tessera_V1_ResultPart, from routingID: Data, now: Double) {
        let key = TaskKey(part.ref)
        let id = InboundResults.ID(routingID: routingID, key: key)
        switch inbound.part(id, offset: part.offset, data: part.data, now: now) {
        case .incomplete:
            return
        case .unexpected:
            warnOnce(
                routingID, "unexpected-part",
                "dropped a part of result \(key) from \(Self.describe(routingID)): not granted")
        case .broken(let why):
            refuseTransfer(key, from: routingID, why: why, now: now)
        case .complete(let data):
            let result: Tessera_V1_TaskResult
            do throws(WireError) {
                let envelope = try WireCodec.decode(data, maxBytes: configuration.maxMessageBytes)
                guard case .result(let r)? = envelope.body, TaskKey(r.ref) == key else {
                    throw WireError(.malformed, "the parts of \(key) hold a \(envelope.kindName), not its TaskResult")
                }
                result = r
            } catch {
                refuseTransfer(key, from: routingID, why: "its parts are not a result: \(error)", now: now)
                return
            }
            accept(result, envelope: data, from: routingID, now: now)
        }
        farm.metrics.inboundResults(bytes: inbound.reserved, waiting: inbound.waitingCount)
    }

    /// Tells the worker its result is done with (kept or discarded), and frees the result's room.
    func acknowledge(_ key: TaskKey, to routingID: Data) {
        send(.ack(key.ref), to: routingID)
        grant(inbound.finish(.init(routingID: routingID, key: key), now: Date().timeIntervalSince1970))
        farm.metrics.inboundResults(bytes: inbound.reserved, waiting: inbound.waitingCount)
    }

    /// Sends the grants of offers that room was found for.
    func grant(_ ids: [InboundResults.ID]) {
        for id in ids { send(.grant(id.key.ref), to: id.routingID) }
    }

    /// A transfer that breaks the rules (or a result too large to take) fails its attempt, counted
    /// against the worker that sent it; the worker is told to forget it, and the segment goes elsewhere.
    private func refuseTransfer(_ key: TaskKey, from routingID: Data, why: String, now: Double) {
        let worker = sessions[routingID]?.id
        logger.warning("refused result \(key) from worker \(worker ?? "?"): \(why.logSafe(limit: 300))")
        if sessions[routingID]?.holding.remove(key) != nil {
            requeueOrFail(key, error: "result refused: \(why)", failure: .unusableResult, worker: worker)
        }
        acknowledge(key, to: routingID)
    }

    /// Transfers granted but silent for a liveness period free their room; the attempt is failed against
    /// its worker (an honest one sends every part as soon as it is granted).
    func expireTransfers(now: Double) {
        let idle = configuration.heartbeatInterval * Double(configuration.liveness)
        let (expired, granted) = inbound.expire(idle: idle, now: now)
        for id in expired {
            refuseTransfer(
                id.key, from: id.routingID,
                why: "its parts stopped coming (\(String(format: "%.1f", idle)) s idle allowed)", now: now)
        }
        grant(granted)
        if !expired.isEmpty { farm.metrics.inboundResults(bytes: inbound.reserved, waiting: inbound.waitingCount) }
    }
}
