import Foundation
import Testing

@testable import TesseraWire

/// CURVE with a ZAP allow-list, over real TCP on loopback.
@Suite struct CurveTests {
    /// A CURVE server ROUTER with a running authenticator that allows `allowed`.
    struct Server {
        let context = ZMQContext()
        let keys: CurveKeyPair
        let router: ZMQSocket
        let endpoint: String
        let authenticator: ZAPAuthenticator
        let log = LogLines()

        init(allowing allowed: Set<String>) throws {
            keys = try CurveKeyPair.generate()
            authenticator = ZAPAuthenticator(context: context, allowedPublicKeys: allowed, log: log.sink)
            try authenticator.start()
            router = try ZMQSocket(context, .router)
            try router.makeCurveServer(secretKey: keys.secretKey)
            endpoint = try router.bind("tcp://127.0.0.1:*")
        }

        func client(_ keyPair: CurveKeyPair, serverKey: String? = nil, id: String) throws -> ZMQSocket {
            let dealer = try ZMQSocket(context, .dealer)
            try dealer.set(.routingID(Data(id.utf8)))
            try dealer.makeCurveClient(serverPublicKey: serverKey ?? keys.publicKey, keyPair: keyPair)
            try dealer.connect(endpoint)
            return dealer
        }

        func stop() {
            authenticator.stop()
        }
    }

    @Test func anAllowedClientExchangesMessages() throws {
        let worker = try CurveKeyPair.generate()
        let server = try Server(allowing: [worker.publicKey])
        defer { server.stop() }
        let dealer = try server.client(worker, id: "w1")

        try dealer.send([Data("hello".utf8)])
        let frames = try #require(try server.router.receive(timeoutMilliseconds: 5000))
        #expect(frames == [Data("w1".utf8), Data("hello".utf8)])
        try server.router.send([frames[0], Data("welcome".utf8)])
        #expect(try dealer.receive(timeoutMilliseconds: 5000) == [Data("welcome".utf8)])
        #expect(server.authenticator.decisions.accepted == 1)
        #expect(server.authenticator.decisions.refused == 0)
    }

    @Test func aClientNotOnTheAllowListGetsNothingAndIsLogged() throws {
        let allowed = try CurveKeyPair.generate()
        let stranger = try CurveKeyPair.generate()
        let server = try Server(allowing: [allowed.publicKey])
        defer { server.stop() }
        let dealer = try server.client(stranger, id: "stranger")

        try dealer.send([Data("let me in".utf8)])
        #expect(try server.router.receive(timeoutMilliseconds: 1500) == nil)
        #expect(try dealer.receive(timeoutMilliseconds: 100) == nil)
        #expect(server.authenticator.decisions.refused >= 1)
        #expect(server.authenticator.decisions.accepted == 0)
        let refusal = try #require(server.log.all.first)
        #expect(refusal.contains(stranger.publicKey))
        #expect(refusal.contains("127.0.0.1"))
    }

    @Test func aClientWithTheWrongServerKeyGetsNothing() throws {
        let worker = try CurveKeyPair.generate()
        let impostor = try CurveKeyPair.generate()
        let server = try Server(allowing: [worker.publicKey])
        defer { server.stop() }
        let dealer = try server.client(worker, serverKey: impostor.publicKey, id: "lost")

        try dealer.send([Data("hello?".utf8)])
        #expect(try server.router.receive(timeoutMilliseconds: 1500) == nil)
        #expect(server.authenticator.decisions.accepted == 0)
    }

    @Test func aClientWithoutCurveIsNotServed() throws {
        let server = try Server(allowing: [])
        defer { server.stop() }
        let plain = try ZMQSocket(server.context, .dealer)
        try plain.connect(server.endpoint)
        try plain.send([Data("no keys".utf8)])
        #expect(try server.router.receive(timeoutMilliseconds: 1000) == nil)
    }

    @Test func changingTheAllowListAdmitsANewKey() throws {
        let late = try CurveKeyPair.generate()
        let server = try Server(allowing: [])
        defer { server.stop() }
        server.authenticator.allowedPublicKeys = [late.publicKey]
        let dealer = try server.client(late, id: "late")
        try dealer.send([Data("now?".utf8)])
        #expect(try server.router.receive(timeoutMilliseconds: 5000) == [Data("late".utf8), Data("now?".utf8)])
    }

    @Test func malformedZAPRequestsGetAnErrorReplyNotACrash() throws {
        let authenticator = ZAPAuthenticator(context: ZMQContext(), allowedPublicKeys: [], log: { _ in })
        let reply = authenticator.answer([Data("2.0".utf8), Data("id".utf8)])
        #expect(reply.count == 6)
        #expect(reply[1] == Data("id".utf8))
        #expect(reply[2] == Data("500".utf8))
        #expect(authenticator.answer([])[2] == Data("500".utf8))
    }

    @Test func malformedKeysAreRefusedBeforeTheyReachLibzmq() throws {
        let context = ZMQContext()
        let socket = try ZMQSocket(context, .router)
        for key in ["", "short", String(repeating: "A", count: 39), String(repeating: " ", count: 40)] {
            do {
                try socket.makeCurveServer(secretKey: key)
                Issue.record("accepted \"\(key)\"")
            } catch {
                #expect(error.kind == .keys)
            }
        }
    }

    @Test func aSecondAuthenticatorOnTheSameContextIsAnError() throws {
        let context = ZMQContext()
        let first = ZAPAuthenticator(context: context, allowedPublicKeys: [], log: { _ in })
        try first.start()
        defer { first.stop() }
        let second = ZAPAuthenticator(context: context, allowedPublicKeys: [], log: { _ in })
        #expect(throws: WireError.self) { try second.start() }
    }
}
