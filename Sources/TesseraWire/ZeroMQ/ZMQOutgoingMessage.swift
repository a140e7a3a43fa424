import CZeroMQ
import SwiftProtobuf

/// A libzmq message buffer that SwiftProtobuf serializes straight into, so an envelope reaches the socket
/// without an intermediate copy: `let message: ZMQOutgoingMessage = try envelope.serializedBytes()`.
///
/// The `zmq_msg_t` lives on the heap (libzmq messages must not be moved) and is closed when the last copy
/// of the value goes away; copies share it, so only the serializer should write to it.
struct ZMQOutgoingMessage: SwiftProtobufContiguousBytes {
    final class Storage {
        let message = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 1)
        /// False when libzmq could not allocate the buffer; `ZMQSocket.send` then throws.
        let allocated: Bool

        init(count: Int) {
            allocated = zmq_msg_init_size(message, count) == 0
            if !allocated { zmq_msg_init(message) }
        }

        deinit {
            zmq_msg_close(message)
            message.deallocate()
        }
    }

    let storage: Storage

    init(repeating byte: UInt8, count: Int) {
        storage = Storage(count: count)
        if storage.allocated && count > 0 {
            zmq_msg_data(storage.message).initializeMemory(as: UInt8.self, repeating: byte, count: count)
        }
    }

    /// Copies `bytes` once, into the message.
    init(copying bytes: UnsafeRawBufferPointer) {
        storage = Storage(count: bytes.count)
        if storage.allocated, let base = bytes.baseAddress, bytes.count > 0 {
            zmq_msg_data(storage.message).copyMemory(from: base, byteCount: bytes.count)
        }
    }

    init<S: Sequence>(_ sequence: S) where S.Element == UInt8 {
        if let copied = sequence.withContiguousStorageIfAvailable({ Self(copying: UnsafeRawBufferPointer($0)) }) {
            self = copied
        } else {
            self = Array(sequence).withUnsafeBytes { Self(copying: $0) }
        }
    }

    var count: Int { zmq_msg_size(storage.message) }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: zmq_msg_data(storage.message), count: count))
    }

    mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeMutableRawBufferPointer(start: zmq_msg_data(storage.message), count: count))
    }
}
