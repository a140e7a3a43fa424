import CZeroMQ

extension ZMQSocket {
    /// Makes this socket a CURVE server: every connection must complete a CurveZMQ handshake against
    /// `secretKey`, and is then checked by the context's ZAP handler (`ZAPAuthenticator`) when one is
    /// running. Call before `bind`.
    /// - Throws: `.keys` for a malformed key or a libzmq without CURVE; `.closed`.
    public func makeCurveServer(secretKey: String) throws(WireError) {
        try CurveKeyPair.validate(secretKey, "server secret key")
        try requireCurve()
        try setInt(ZMQ_CURVE_SERVER, 1, "CURVE server")
        try setBytes(ZMQ_CURVE_SECRETKEY, Array(secretKey.utf8), "CURVE secret key")
    }

    /// Makes this socket a CURVE client of the server whose public key is `serverPublicKey`, proving
    /// itself with `keyPair`. Call before `connect`. A wrong server key fails the handshake silently:
    /// nothing is delivered either way and libzmq keeps retrying.
    /// - Throws: `.keys` for a malformed key or a libzmq without CURVE; `.closed`.
    public func makeCurveClient(serverPublicKey: String, keyPair: CurveKeyPair) throws(WireError) {
        try CurveKeyPair.validate(serverPublicKey, "server public key")
        try requireCurve()
        try setBytes(ZMQ_CURVE_SERVERKEY, Array(serverPublicKey.utf8), "CURVE server key")
        try setBytes(ZMQ_CURVE_PUBLICKEY, Array(keyPair.publicKey.utf8), "CURVE public key")
        try setBytes(ZMQ_CURVE_SECRETKEY, Array(keyPair.secretKey.utf8), "CURVE secret key")
    }

    private func requireCurve() throws(WireError) {
        guard zmq_has("curve") != 0 else { throw WireError(.keys, "this libzmq was built without CURVE") }
    }
}
