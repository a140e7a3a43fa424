import CZeroMQ

/// A CURVE key pair in Z85 text (40 characters each), as ZeroMQ's CurveZMQ uses them.
///
/// The coordinator has one (it is the CURVE server; workers are given its public key); every worker has
/// its own, whose public key goes on the coordinator's allow-list. Files: see `save(prefix:)`.
public struct CurveKeyPair: Sendable, Codable, Hashable {
    public var publicKey: String
    public var secretKey: String

    /// - Throws: `.keys` unless both keys are Z85 keys and the public key belongs to the secret one.
    public init(publicKey: String, secretKey: String) throws(WireError) {
        try Self.validate(publicKey, "public key")
        try Self.validate(secretKey, "secret key")
        guard let derived = Self.publicKey(forSecretKey: secretKey), derived == publicKey else {
            throw WireError(.keys, "the public key \(publicKey) does not belong to the secret key")
        }
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// A fresh random key pair (libsodium, through libzmq).
    /// - Throws: `.keys` when libzmq was built without CURVE.
    public static func generate() throws(WireError) -> CurveKeyPair {
        guard zmq_has("curve") != 0 else { throw WireError(.keys, "this libzmq was built without CURVE") }
        var publicText = [CChar](repeating: 0, count: 41)
        var secretText = [CChar](repeating: 0, count: 41)
        guard zmq_curve_keypair(&publicText, &secretText) == 0 else {
            throw WireError.zmqFailure("generate a CURVE key pair")
        }
        return try CurveKeyPair(publicKey: String(cString: publicText), secretKey: String(cString: secretText))
    }

    /// Whether `key` is 40 characters of Z85 encoding 32 bytes.
    public static func isValidKey(_ key: String) -> Bool {
        decode(key) != nil
    }

    /// The 32 bytes a Z85 key stands for, or nil when it is not one.
    static func decode(_ key: String) -> [UInt8]? {
        guard key.utf8.count == 40 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        return zmq_z85_decode(&bytes, key) == nil ? nil : bytes
    }

    /// The Z85 text of a 32-byte key.
    static func encode(_ bytes: [UInt8]) -> String? {
        guard bytes.count == 32 else { return nil }
        var text = [CChar](repeating: 0, count: 41)
        return zmq_z85_encode(&text, bytes, 32) == nil ? nil : String(cString: text)
    }

    static func publicKey(forSecretKey secretKey: String) -> String? {
        var publicText = [CChar](repeating: 0, count: 41)
        return zmq_curve_public(&publicText, secretKey) == 0 ? String(cString: publicText) : nil
    }

    static func validate(_ key: String, _ what: String) throws(WireError) {
        guard isValidKey(key) else {
            throw WireError(.keys, "\(what) \"\(key.prefix(48))\" is not a 40-character Z85 CURVE key")
        }
    }
}
