import PropertyBased
import Testing

@testable import TesseraCore

@Suite struct MediaTimeOrderingTests {
    // MARK: Properties

    @Test func orderAgreesWithPlainCrossMultiplicationOnSmallValues() async {
        // |value| ≤ 2³¹ and timescale < 2³¹, so value · timescale fits in Int64 and needs no tricks.
        await propertyCheck(count: 1000, input: TimeGen.smallNumeric, TimeGen.smallNumeric) { a, b in
            let left = a.value * Int64(b.timescale)
            let right = b.value * Int64(a.timescale)
            #expect((a < b) == (left < right))
            #expect((a == b) == (left == right))
            #expect((a > b) == (left > right))
        }
    }

    @Test func orderAgreesWithTheWideReferenceOverTheFullInt64Range() async {
        await propertyCheck(count: 1000, input: TimeGen.numeric, TimeGen.numeric) { a, b in
            #expect(MediaTime.order(a, b) == Reference.order(a, b))
        }
    }

    @Test func videoAndAudioClocksCompareWithoutOverflowNearInt64Limits() async {
        // Values within 2³² of Int64.min or Int64.max, on the 90 kHz and 44.1 kHz clocks: the products
        // value · timescale are ~2⁷⁹, far past Int64.
        let nearLimit = zip(Gen.bool, Gen.int64(in: 0...(1 << 32)))
            .map { $0 ? Int64.max - $1 : Int64.min + $1 }
        await propertyCheck(count: 1000, input: nearLimit, nearLimit) { x, y in
            let video = MediaTime(value: x, timescale: 90000)
            let audio = MediaTime(value: y, timescale: 44100)
            #expect(MediaTime.order(video, audio) == Reference.order(video, audio))
            #expect(MediaTime.order(audio, video) == -Reference.order(video, audio))
        }
        #expect(MediaTime(value: 1, timescale: 90000) < MediaTime(value: 1, timescale: 44100))
        #expect(MediaTime(value: .max, timescale: 90000) < MediaTime(value: .max, timescale: 44100))
        #expect(MediaTime(value: .min, timescale: 90000) > MediaTime(value: .min, timescale: 44100))
        // 2⁶³ − 1 is divisible by neither, so the nearest representable neighbours must still order exactly.
        let seconds = Int64.max / 90000
        #expect(
            MediaTime(value: seconds * 90000, timescale: 90000)
                == MediaTime(
                    value: seconds * 44100,
                    timescale: 44100))
        #expect(
            MediaTime(value: seconds * 90000 + 1, timescale: 90000)
                > MediaTime(
                    value: seconds * 44100,
                    timescale: 44100))
    }

    @Test func orderIsTotalAndAntisymmetricForEveryKindOfTime() async {
        await propertyCheck(count: 1000, input: TimeGen.any, TimeGen.any) { a, b in
            let outcomes = [a < b, a == b, a > b].filter { $0 }
            #expect(outcomes.count == 1, "exactly one of <, ==, > must hold for \(a) and \(b)")
            #expect((a < b) == (b > a))
            #expect((a == b) == (b == a))
            #expect((a <= b) == !(a > b))
        }
    }

    @Test func orderIsTransitive() async {
        await propertyCheck(count: 1000, input: TimeGen.any, TimeGen.any, TimeGen.any) { a, b, c in
            for (x, y, z) in [(a, b, c), (a, c, b), (b, a, c), (b, c, a), (c, a, b), (c, b, a)] {
                if x <= y && y <= z { #expect(x <= z, "\(x) ≤ \(y) ≤ \(z)") }
                if x == y && y == z { #expect(x == z) }
                if x < y && y <= z { #expect(x < z) }
            }
        }
    }

    @Test func equalTimesHashEqually() async {
        // The same instant written with value and timescale both multiplied by k.
        let factor = Gen.int64(in: 1...10_000)
        await propertyCheck(count: 500, input: TimeGen.mediaNumeric, factor) { time, k in
            let scaled = MediaTime(value: time.value * k, timescale: Int32(Int64(time.timescale) * k % (1 << 31)))
            guard Int64(scaled.timescale) == Int64(time.timescale) * k else { return }
            #expect(scaled == time)
            #expect(scaled.hashValue == time.hashValue)
            #expect(Set([time, scaled]).count == 1)
        }
        await propertyCheck(count: 1000, input: TimeGen.any, TimeGen.any) { a, b in
            if a == b { #expect(a.hashValue == b.hashValue, "\(a) == \(b) but their hashes differ") }
        }
    }

    // MARK: Examples

    @Test func halfIsTwoQuarters() {
        let half = MediaTime(value: 1, timescale: 2)
        #expect(half == MediaTime(value: 2, timescale: 4))
        #expect(half != MediaTime(value: 2, timescale: 5))
        #expect(Set([half, MediaTime(value: 2, timescale: 4), MediaTime(value: 15000, timescale: 30000)]).count == 1)
        #expect(MediaTime(value: 0, timescale: 1) == MediaTime(value: 0, timescale: 90000))
        #expect([MediaTime(value: 3, timescale: 6): "x"][half] == "x")
    }

    @Test func specialTimesSortAsCMTimeCompareDocuments() {
        // −∞ < all finite values < indefinite < +∞ < invalid
        let ascending: [MediaTime] = [
            .negativeInfinity, MediaTime(value: .min, timescale: 1), MediaTime(value: -1, timescale: 90000), .zero,
            MediaTime(value: .max, timescale: 1), .indefinite, .positiveInfinity, .invalid,
        ]
        for (i, lower) in ascending.enumerated() {
            for higher in ascending[(i + 1)...] {
                #expect(lower < higher, "\(lower) < \(higher)")
            }
        }
        #expect(ascending.shuffled().sorted() == ascending)
    }

    @Test func specialTimesOfOneKindAreEqualWhateverTheirOtherFields() {
        #expect(MediaTime(value: 7, timescale: 0) == .invalid)  // init drops .valid for a zero timescale
        #expect(MediaTime(value: 7, timescale: 3, flags: []) == .invalid)
        #expect(MediaTime(value: 9, timescale: 5, flags: [.valid, .positiveInfinity], epoch: 3) == .positiveInfinity)
        let indefinite = MediaTime(value: 9, timescale: 5, flags: [.valid, .indefinite])
        #expect(indefinite.hashValue == MediaTime.indefinite.hashValue)
        var broken = MediaTime(value: 1, timescale: 30)
        broken.timescale = 0  // written after init: still not numeric
        #expect(!broken.isNumeric)
        #expect(broken == .invalid)
        #expect(MediaTime.indefinite != .positiveInfinity)
        #expect(MediaTime.invalid != .zero)
    }

    @Test func epochComparesBeforeValue() {
        let late = MediaTime(value: -1000, timescale: 1, epoch: 1)
        let early = MediaTime(value: 1000, timescale: 1, epoch: 0)
        #expect(early < late)
        #expect(MediaTime(value: 1, timescale: 2, epoch: 1) != MediaTime(value: 1, timescale: 2))
        // Epochs do not order the special times.
        #expect(MediaTime(value: 0, timescale: 1, flags: [.valid, .positiveInfinity], epoch: -5) > late)
    }

    @Test func roundingFlagDoesNotAffectEquality() {
        let exact = MediaTime(value: 1, timescale: 3)
        let rounded = MediaTime(value: 1, timescale: 3, flags: [.valid, .hasBeenRounded])
        #expect(exact == rounded)
        #expect(exact.hashValue == rounded.hashValue)
    }

    @Test func minimumAndMaximumFollowTheOrderAndPreferTheFirstOnTies() {
        let a = MediaTime(value: 1, timescale: 2)
        let b = MediaTime(value: 2, timescale: 4)
        #expect(MediaTime.minimum(a, b).timescale == 2)
        #expect(MediaTime.maximum(b, a).timescale == 4)
        #expect(MediaTime.minimum(.invalid, .zero) == .zero)
        #expect(MediaTime.maximum(.invalid, .positiveInfinity) == .invalid)
        #expect(MediaTime.minimum(.negativeInfinity, MediaTime(value: .min, timescale: 1)) == .negativeInfinity)
        #expect(
            MediaTime.maximum(MediaTime(value: 1, timescale: 90000), MediaTime(value: 1, timescale: 44100))
                .timescale == 44100)
    }
}
