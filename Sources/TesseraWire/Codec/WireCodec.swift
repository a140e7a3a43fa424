import Foundation
import SwiftProtobuf

/// Turns `Envelope`s into the single frame that carries each on the wire, and back.
///
/// ```
///  DEALER frame:  [ Envelope ]                 ROUTER frames:  [ routing id ][ Envelope ]
/// ```
public enum WireCodec {
    /// The protocol version this build speaks (`Envelope.version`, `Hello.versions`).
    public static let version: UInt32 = 2
    /// The version every session starts in: Hello, Welcome and Reject travel in it whatever the session
    /// speaks, so a peer of another version can always be told why it is refused (PROTOCOL.md §3).
    public static let sessionVersion: UInt32 = 1
    /// The largest envelope accepted unless configured otherwise (256 MiB): a task, or an assembled result.
    public static let defaultMaxMessageBytes = 256 << 20
    /// The most result bytes in one `ResultPart` unless the coordinator's Welcome says otherwise (1 MiB).
    public static let defaultPartBytes = 1 << 20
    /// Room beside a part's data for the rest of its envelope (the task reference, field tags): a
    /// coordinator's frame limit is its part size plus this.
    public static let partOverheadBytes = 64 << 10

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
    ///   than `WireCodec.version` (checked before the body, which a later version may have added), except
    ///   that Hello, Welcome and Reject are taken in `sessionVersion` too.
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
        let opensSession: Bool
        switch envelope.body {
        case .hello?, .welcome?, .reject?: opensSession = true
        default: opensSession = false
        }
        guard envelope.version == version || (envelope.version == sessionVersion && opensSession) else {
            throw WireError(.unsupportedVersion, "envelope version \(envelope.version), this side speaks \(version)")
        }
        guard envelope.body != nil else {
            throw WireError(.malformed, "envelope without a body (an unknown message kind, or none)")
        }
        return envelope
    }
}
