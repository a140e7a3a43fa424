import TesseraAV
import TesseraCore

/// A segment's `VideoGate` for frames that go through a deinterlacer: besides the frames of the range
/// (each at `pts − start`), it hands on the frame shown just before the range (for a segment that is not
/// the first) and the one just after it, at their own relative times (negative, and past the range), as
/// the one pass's deinterlacer sees them; the leg deinterlaces with them and keeps only the range's
/// frames (`SegmentPlanner.withNeighbours` has them decoded).
struct NeighbourGate {
    private var inner: VideoGate
    private let range: TickRange
    private let wantsPrevious: Bool
    private var previous: Frame?
    private var started = false

    init(range: TickRange, wantsPrevious: Bool) {
        inner = VideoGate(range: range)
        self.range = range
        self.wantsPrevious = wantsPrevious
    }

    mutating func accept(_ frame: Frame, _ emit: (Frame) -> Bool) throws(MediaError) -> Bool {
        let pts = frame.pts
        if pts < range.start {
            previous = frame
            return try inner.accept(frame, emit)
        }
        if pts >= range.end {
            if started {
                frame.pts = pts &- range.start
                _ = emit(frame)
            }
            return false
        }
        if !started {
            started = true
            // Only a frame exactly on the start makes the one before it a neighbour; otherwise the gate
            // shows that one at the start.
            if wantsPrevious, pts == range.start, let p = previous {
                p.pts = p.pts &- range.start
                guard emit(p) else { return false }
            }
        }
        return try inner.accept(frame, emit)
    }

    mutating func finish(_ emit: (Frame) -> Bool) throws(MediaError) -> Bool { try inner.finish(emit) }
}
