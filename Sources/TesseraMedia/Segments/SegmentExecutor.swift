import Foundation
import TesseraAV
import TesseraCore

/// Who transcodes a segmented job's segments: local threads (`LocalSegmentExecutor`) or a farm's
/// workers (the coordinator's dispatcher). The job's producer thread hands over each segment's work in
/// order; its stitching thread takes the outputs back in order.
public protocol SegmentExecutor: AnyObject, Sendable {
    /// Queues one segment. May block to hold back the producer (back-pressure); returns false once the
    /// job has stopped, telling the producer to quit.
    func schedule(_ work: SegmentWork) -> Bool
    /// Whether `schedule` takes work whose packets are known from the source's index alone (their
    /// places and sizes, `EncodedPacket.indexedSize`): the executor reads their bytes where it needs
    /// them (`SourcePacketReader.load`), and the producer reads only the file's boxes.
    var takesIndexedPackets: Bool { get }
    /// Whether segment `index` is already finished (e.g. spooled before a restart): its work need not
    /// be scheduled again.
    func isFinished(_ index: Int) -> Bool
    /// Blocks until segment `index`'s output is ready.
    /// - Throws: the segment's error, or `.cancelled` when the job was stopped first.
    func output(_ index: Int) throws(MediaError) -> SegmentOutput
    /// Stops the job's segments: blocked calls return, queued work is dropped.
    func cancel(_ error: MediaError)
    /// Called once the job has finished (successfully or not), so resources can be released.
    func finish()
    /// Segment `index`'s output, `bytes` of packets, was written into the output in `seconds` (its own
    /// stitching, not the wait for it).
    func stitched(_ index: Int, seconds: Double, bytes: Int)
}

extension SegmentExecutor {
    public var takesIndexedPackets: Bool { false }

    public func stitched(_ index: Int, seconds: Double, bytes: Int) {}
}
