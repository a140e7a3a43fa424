import PropertyBased
import Testing

@testable import TesseraCore

/// Laws of containment, intersection and union on valid ranges over media timescales.
@Suite struct TimeRangeAlgebraTests {
    /// Instants near the generated ranges, on assorted timescales, so that ends and starts are hit often.
    private static var instant: Generator<MediaTime, some SendableSequenceType> {
        zip(Gen.int64(in: -1_100_000...2_200_000), TimeGen.mediaTimescale)
            .map { MediaTime(value: $0, timescale: $1) }
    }

    @Test func intersectionHoldsExactlyTheInstantsInBoth() async {
        await propertyCheck(count: 1000, input: TimeGen.range, TimeGen.range, Self.instant) { a, b, t in
            let both = a.intersection(b)
            #expect(both.isValid)
            #expect(both.contains(t) == (a.contains(t) && b.contains(t)), "\(a) ∩ \(b) = \(both) at \(t)")
            // Probe the ends too, where half-openness matters.
            for edge in [a.start, a.end, b.start, b.end] {
                #expect(both.contains(edge) == (a.contains(edge) && b.contains(edge)))
            }
        }
    }

    @Test func intersectionIsCommutativeIdempotentAndInsideBothWhenNonEmpty() async {
        await propertyCheck(count: 1000, input: TimeGen.range, TimeGen.range) { a, b in
            let both = a.intersection(b)
            #expect(both == b.intersection(a))
            #expect(a.intersection(a) == a)
            #expect(both.start == MediaTime.maximum(a.start, b.start))
            if !both.isEmpty {
                #expect(a.contains(both) && b.contains(both))
                #expect(both.end == MediaTime.minimum(a.end, b.end))
            } else {
                #expect(
                    a.end <= b.start || b.end <= a.start || a.isEmpty || b.isEmpty,
                    "only disjoint ranges meet in an empty range")
            }
        }
    }

    @Test func unionIsTheSmallestRangeCoveringBoth() async {
        await propertyCheck(count: 1000, input: TimeGen.range, TimeGen.range, Self.instant) { a, b, t in
            let either = a.union(b)
            #expect(either.isValid)
            #expect(either.contains(a) && either.contains(b))
            if a.contains(t) || b.contains(t) { #expect(either.contains(t)) }
            // Smallest: both of its ends belong to one of the ranges.
            #expect(either.start == a.start || either.start == b.start)
            #expect(either.end == a.end || either.end == b.end)
            #expect(either == b.union(a))
            #expect(a.union(a) == a)
        }
    }

    @Test func unionIsAssociativeAndAbsorbsIntersection() async {
        await propertyCheck(count: 500, input: TimeGen.range, TimeGen.range, TimeGen.range) { a, b, c in
            let (left, right) = (a.union(b).union(c), a.union(b.union(c)))
            #expect(left == right)
            #expect(!left.duration.flags.contains(.hasBeenRounded) && !right.duration.flags.contains(.hasBeenRounded))
            let both = a.intersection(b)
            if !both.isEmpty {
                #expect(a.union(both) == a, "a ∪ (a ∩ b) = a")
            }
            if a.contains(b) { #expect(a.union(b) == a && a.intersection(b) == b) }
        }
    }

    @Test func startEndRoundTripsThroughTextAndInit() async {
        await propertyCheck(count: 1000, input: TimeGen.range) { range in
            #expect(TimeRange(start: range.start, end: range.end) == range)
            let parsed = TimeRange(string: range.description)
            #expect(parsed == range, "\(range)")
            #expect(parsed?.start.timescale == range.start.timescale)
            #expect(range.contains(range.start) == !range.isEmpty)
            #expect(!range.contains(range.end))
        }
    }
}
