import Foundation
import SwiftProtobuf

/// Turns `Envelope`s into the single frame that carries each on the wire, and back.
///
/// ```
///  DEALER frame:  [ Envelope ]                 ROUTER frames:  [ routing id ][ Envelope ]
/// ```
public enum WireCodec {
    /// The protocol version this build speaks (`Envelope.version`, `Hello.versions`).
    public static let version: UInt32 = 1
    /// The largest envelope accepted unless configured otherwise (256 MiB).
    public static let defaultMaxMessageBytes = 256 << 20

    /// The serialized envelope. Sets `version` to `WireCodec.version` when the caller left it 0.
    public static func encode(_ envelope: Tessera_V1_Envelope) -> Data {
        var envelope = envelope
        if envelope.version == 0 { envelope.version = version }
        // Serializing a message with only proto3 fields cannot fail (no required fields to miss).
        return (try? envelope.serializedBytes()) ?? Data()
    }

    /// Parses and checks one envelope.
    /// - Throws: `.tooLarge` when `data` exceeds `maxBytes`; `.malformed` for bytes that do not parse, an
    ///   envelope without a version, or one without a body; `.unsupportedVersion` for a version other
    ///   than `WireCodec.version` (checked before the body, which a later version may have added).
    public static func decode(
        _ data: Data, maxBytes: Int = defaultMaxMessageBytes
    ) throws(WireError)
        -> Tessera_V1_Envelope
    {
        guard data.count <= maxBytes else {
            throw WireError(.tooLarge, "\(data.count) bytes, the limit is \(maxBytes)")
        }
        let envelope: Tessera_V1_Envelope
        do {
            envelope = try Tessera_V1_Envelope(serializedBytes: data)
        } catch {
            throw WireError(.malformed, "\(data.count) bytes that are not a tessera.v1.Envelope (\(error))")
        }
        guard envelope.version != 0 else {
            throw WireError(.malformed, "envelope without a version (\(data.count) bytes)")
        }
        guard envelope.version == version else {
            throw WireError(.unsupportedVersion, "envelope version \(envelope.version), this side speaks \(version)")
        }
        guard envelope.body != nil else {
            throw WireError(.malformed, "envelope without a body (an unknown message kind, or none)")
        }
        return envelope
    }
}
