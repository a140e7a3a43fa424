import PropertyBased

@testable import TesseraCore

/// Generators of times and ranges shared by the property tests.
enum TimeGen {
    /// Timescales media really uses; their pairwise least common multiples all fit in Int32, so sums of
    /// times on them are exact.
    static let mediaTimescales: [Int32] = [
        1, 2, 10, 24, 25, 30, 48, 50, 60, 600, 1000, 1001, 24000, 25000,
        30000, 44100, 48000, 60000, 90000,
    ]

    static var mediaTimescale: Generator<Int32, some SendableSequenceType> {
        Gen.int(in: 0...(mediaTimescales.count - 1)).map { mediaTimescales[$0] }
    }

    /// Media timescales whose least common multiple *all together* (2⁵·3²·5⁴·7²·11·13 = 1 261 260 000) fits
    /// in Int32, so chains of range operations (ends, intersections of ends, unions of those) never round.
    /// The full list above does not have that property: 48000, 25000, 44100 and 1001 together need 2³⁴.
    static let rangeTimescales: [Int32] = [
        1, 2, 10, 24, 25, 30, 48, 50, 60, 600, 1000, 1001, 30000, 44100,
        60000, 90000,
    ]

    static var rangeTimescale: Generator<Int32, some SendableSequenceType> {
        Gen.int(in: 0...(rangeTimescales.count - 1)).map { rangeTimescales[$0] }
    }

    /// A media timescale half the time, any positive Int32 otherwise.
    static var timescale: Generator<Int32, some SendableSequenceType> {
        zip(Gen.bool, mediaTimescale, Gen.int32(in: 1...Int32.max)).map { $0.0 ? $0.1 : $0.2 }
    }

    /// Any numeric time in epoch 0: the full Int64 value range over any timescale.
    static var numeric: Generator<MediaTime, some SendableSequenceType> {
        zip(Gen.int64(), timescale).map { MediaTime(value: $0, timescale: $1) }
    }

    /// A numeric time with |value| ≤ 2³¹ over any timescale, so that cross products fit in Int64 and an
    /// independent reference can use plain Int64 arithmetic.
    static var smallNumeric: Generator<MediaTime, some SendableSequenceType> {
        zip(Gen.int64(in: -(1 << 31)...(1 << 31)), timescale).map { MediaTime(value: $0, timescale: $1) }
    }

    /// A time on a media timescale with |value| ≤ 10¹², far from any overflow, so arithmetic is exact.
    static var mediaNumeric: Generator<MediaTime, some SendableSequenceType> {
        zip(Gen.int64(in: -1_000_000_000_000...1_000_000_000_000), mediaTimescale)
            .map { MediaTime(value: $0, timescale: $1) }
    }

    static let specials: [MediaTime] = [.invalid, .indefinite, .positiveInfinity, .negativeInfinity]

    /// Any time at all: numeric in epochs −1…1 (small values, to make ties likely), numeric over the full
    /// range, or one of the special times with arbitrary leftover fields.
    static var any: Generator<MediaTime, some SendableSequenceType> {
        zip(
            Gen.int(in: 0...5), Gen.int64(in: -4...4), timescale, Gen.int64(in: -1...1), numeric,
            Gen.int(in: 0...3)
        )
        .map { choice, smallValue, timescale, epoch, wide, special in
            switch choice {
            case 0, 1:
                return MediaTime(
                    value: smallValue, timescale: Int32(truncatingIfNeeded: timescale % 6 + 1),
                    epoch: epoch)
            case 2, 3:
                return wide
            default:
                var time = specials[special]
                time.value = smallValue  // other fields must not matter for special times
                time.epoch = epoch
                return time
            }
        }
    }

    /// A valid range on `rangeTimescales`: start within ±10⁶ ticks, duration 0…10⁶ ticks (zero often).
    static var range: Generator<TimeRange, some SendableSequenceType> {
        zip(
            Gen.int64(in: -1_000_000...1_000_000), rangeTimescale, Gen.int64(in: -1000...1_000_000),
            rangeTimescale
        )
        .map { start, startScale, duration, durationScale in
            TimeRange(
                start: MediaTime(value: start, timescale: startScale),
                duration: MediaTime(value: max(0, duration), timescale: durationScale))
        }
    }
}
