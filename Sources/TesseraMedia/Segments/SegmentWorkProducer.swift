import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore

/// Cuts a file's video packets into segments' work for a `SegmentExecutor` (the demux stage of a
/// segmented export or composition).
enum SegmentWorkProducer {
    /// Reads the video packets once, in decode order, handing each segment its packets as soon as
    /// the last one it needs has been read (segments can share packets past a keyframe).
    /// - Parameters:
    ///   - plan: the segments of `path`'s video track, in order (their indices may start anywhere: a
    ///     composition's runs are numbered on after each other).
    ///   - lastEnd: the last segment's end tick (`SegmentWork.endTick`).
    ///
    /// For an executor that takes packets known from the index alone (`takesIndexedPackets`: a farm's),
    /// an MP4 or QuickTime source whose samples the index places is read for its boxes only, as the
    /// planner read it: each packet's place and size, not its bytes (a two-hour film's 6.5 GB are not
    /// read by the coordinator when its workers read the source themselves).
    /// - Returns: false when the executor stopped taking work (the job has stopped).
    static func produce(
        path: String, videoID: Int, plan: [SegmentSpec], template: SegmentWork, lastEnd: Int64?,
        into executor: any SegmentExecutor
    ) throws(MediaError) -> Bool {
        var input = try executor.takesIndexedPackets ? InputFile(indexing: path) : InputFile(path: path)
        if !input.skipsSampleBytes && executor.takesIndexedPackets { input = try InputFile(path: path) }
        let indexed = input.skipsSampleBytes
        let verbatim = input.storesPacketsVerbatim
        let sourceBytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)??.int64Value
        var buffer: [EncodedPacket] = []
        // The first packet any segment from i on needs: decode ranges need not start in plan order (a
        // keyframe shown late can be decoded early), so packets are kept until no later segment needs them.
        var firstNeeded = plan.map(\.decodePackets.lowerBound)
        for i in firstNeeded.indices.reversed().dropFirst() { firstNeeded[i] = min(firstNeeded[i], firstNeeded[i + 1]) }
        var bufferStart = firstNeeded[0]
        var decodeIndex = 0
        var nextSegment = 0
        let packet = try Packet()
        while nextSegment < plan.count, try input.read(into: packet) {
            defer { av_packet_unref(packet.pointer) }
            guard packet.streamIndex == videoID else { continue }
            if decodeIndex >= bufferStart { buffer.append(EncodedPacket(packet, verbatim: verbatim, indexed: indexed)) }
            decodeIndex += 1
            while nextSegment < plan.count, plan[nextSegment].decodePackets.upperBound <= decodeIndex {
                let spec = plan[nextSegment]
                if !executor.isFinished(spec.index) {
                    // A file whose keyframes decode far from where they are shown can plan a segment
                    // starting before packets already dropped: refuse it rather than slice out of range.
                    let lower = spec.decodePackets.lowerBound - bufferStart
                    let upper = spec.decodePackets.upperBound - bufferStart
                    guard lower >= 0, lower <= upper, upper <= buffer.count else {
                        throw MediaError(
                            .unsupported, path: path,
                            "segment \(spec.index) needs packets "
                                + "\(spec.decodePackets) that were read before it: this file's decode order "
                                + "cannot be segmented; transcode it in one pass")
                    }
                    var work = template
                    work.spec = spec
                    work.packets = Array(buffer[lower..<upper])
                    work.sourceBytes = verbatim ? sourceBytes : nil
                    work.endTick =
                        nextSegment == plan.count - 1
                        ? lastEnd : spec.timeMap.output(spec.presentationRange.upperBound)
                    guard executor.schedule(work) else { return false }
                }
                nextSegment += 1
                // Drop packets no later segment needs.
                if nextSegment < plan.count {
                    let keep = firstNeeded[nextSegment]
                    if keep > bufferStart {
                        buffer.removeFirst(min(buffer.count, keep - bufferStart))
                        bufferStart = keep
                    }
                }
            }
        }
        guard nextSegment == plan.count else {
            throw MediaError(.corrupt, path: path, "the file ended before segment \(plan[nextSegment].index)'s packets")
        }
        return true
    }
}
