import PropertyBased
import Testing

@testable import TesseraCore

@Suite struct MediaTimeArithmeticTests {
    // MARK: Properties

    @Test func addingThenSubtractingGivesBackTheSameTimeExactly() async {
        await propertyCheck(count: 1000, input: TimeGen.mediaNumeric, TimeGen.mediaNumeric) { a, b in
            let sum = a + b
            #expect(!sum.flags.contains(.hasBeenRounded), "\(a) + \(b) = \(sum) should be exact")
            #expect(sum - b == a)
            #expect(sum - a == b)
            #expect(!(sum - b).flags.contains(.hasBeenRounded))
        }
    }

    @Test func sumIsExactAndOnTheLeastCommonMultipleOfTheTimescales() async {
        // Independent check: a/p + b/q = (a·q + b·p) / (p·q), cross-multiplied in plain Int64, which the
        // ranges keep below 2⁶³.
        let small = zip(Gen.int64(in: -100_000...100_000), Gen.int32(in: 1...2000))
            .map { MediaTime(value: $0, timescale: $1) }
        await propertyCheck(count: 1000, input: small, small) { a, b in
            let sum = a + b
            let (p, q) = (Int64(a.timescale), Int64(b.timescale))
            #expect(sum.value * p * q == (a.value * q + b.value * p) * Int64(sum.timescale))
            let expectedScale = p == q ? p : p / gcd(p, q) * q
            if expectedScale <= Int64(Int32.max) {
                #expect(Int64(sum.timescale) == expectedScale)
                #expect(!sum.flags.contains(.hasBeenRounded))
            }
        }
    }

    @Test func additionIsCommutativeForEveryKindOfTime() async {
        await propertyCheck(count: 1000, input: TimeGen.any, TimeGen.any) { a, b in
            let (ab, ba) = (a + b, b + a)
            #expect(ab == ba)
            #expect(ab.value == ba.value && ab.timescale == ba.timescale && ab.flags == ba.flags)
        }
    }

    @Test func negationIsAnInvolutionAndCancelsAddition() async {
        await propertyCheck(count: 1000, input: TimeGen.numeric) { a in
            guard a.value != .min else { return }
            #expect(-(-a) == a)
            #expect(a + -a == .zero)
            #expect(a - a == .zero)
            #expect((-a).timescale == a.timescale)
            #expect(a.absolute >= .zero)
            #expect(a.absolute == (a < .zero ? -a : a))
        }
    }

    @Test func roundedSumsStayWithinHalfATickOfTheExactSum() async {
        // Coprime timescales near Int32.max: their lcm does not fit, so the sum goes to the larger
        // timescale, rounded half away from zero. Reference: the sum in ticks of that timescale is
        // (a·T·q + b·T·p) / (p·q); compare 2·|error| ≤ 1 tick with Int128 formed the textbook way.
        let scale = Gen.int32(in: (Int32.max - 1000)...Int32.max)
        let value = Gen.int64(in: -1_000_000_000...1_000_000_000)
        await propertyCheck(count: 500, input: value, scale, value, scale) { av, p, bv, q in
            let (a, b) = (MediaTime(value: av, timescale: p), MediaTime(value: bv, timescale: q))
            let sum = a + b
            guard p != q, gcd(Int64(p), Int64(q)) == 1 else { return }
            let big = Int128(max(p, q))
            #expect(Int128(sum.timescale) == big)
            let exactTicksTimesPQ = Int128(av) * big * Int128(q) + Int128(bv) * big * Int128(p)
            let pq = Int128(p) * Int128(q)
            let error = Int128(sum.value) * pq - exactTicksTimesPQ
            #expect(2 * error.magnitude <= pq.magnitude)
            #expect(sum.flags.contains(.hasBeenRounded) == (error != 0))
        }
    }

    @Test func multiplyingByAnIntegerKeepsTheTimescale() async {
        await propertyCheck(count: 1000, input: TimeGen.mediaNumeric, Gen.int64(in: -1_000_000...1_000_000)) { a, k in
            let product = a * k
            #expect(product.timescale == a.timescale)
            #expect(product.value == a.value * k)
            #expect(product == a.multiplied(by: k))
            #expect(!product.flags.contains(.hasBeenRounded))
        }
    }

    @Test func multiplyingByARatioIsExactWheneverTheResultFits() async {
        let time = zip(Gen.int64(in: -1_000_000_000...1_000_000_000), Gen.int32(in: 1...100_000))
            .map { MediaTime(value: $0, timescale: $1) }
        let numerator = Gen.int64(in: -1000...1000)
        let denominator = zip(Gen.bool, Gen.int64(in: 1...1000)).map { $0 ? $1 : -$1 }
        await propertyCheck(count: 1000, input: time, numerator, denominator) { a, n, d in
            let product = a.multiplied(by: n, dividedBy: d, rounding: .roundTowardZero)
            // a · n/d written directly with a timescale of a.timescale · |d| (< 2³¹ here).
            let sign: Int64 = d < 0 ? -1 : 1
            let reference = MediaTime(value: a.value * n * sign, timescale: Int32(Int64(a.timescale) * d * sign))
            #expect(product == reference)
            #expect(!product.flags.contains(.hasBeenRounded))
            #expect(product.timescale % a.timescale == 0, "the result stays on a multiple of the input grid")
        }
    }

    // MARK: Examples

    @Test func sumTimescaleIsSharedThenLcmThenTheLarger() {
        let ntsc = MediaTime(value: 1001, timescale: 30000)
        #expect((ntsc + ntsc).timescale == 30000)
        #expect((ntsc + ntsc).value == 2002)
        let audio = MediaTime(value: 1024, timescale: 44100)
        let sum = ntsc + audio
        #expect(sum.timescale == 4_410_000)  // lcm(30000, 44100)
        #expect(sum.value == 1001 * 147 + 1024 * 100)
        #expect(!sum.flags.contains(.hasBeenRounded))

        // 2³¹−1 and 2³¹−2 are coprime: their lcm is ~2⁶², so the larger one is used, rounded.
        let coarse = MediaTime(value: 1, timescale: Int32.max - 1)
        let fine = MediaTime(value: 0, timescale: Int32.max)
        let rounded = coarse + fine
        #expect(rounded.timescale == Int32.max)
        #expect(rounded.value == 1)  // 1.0000000005 ticks
        #expect(rounded.flags.contains(.hasBeenRounded))
        // Rounded operands pass the flag on even when the sum itself is exact.
        let flagged = MediaTime(value: 1, timescale: 2, flags: [.valid, .hasBeenRounded])
        #expect((flagged + MediaTime(value: 1, timescale: 2)).flags.contains(.hasBeenRounded))
    }

    @Test func overflowingSumsHalveTheTimescaleThenBecomeInfinite() {
        let nearMax = MediaTime(value: .max, timescale: 2)
        let exact = nearMax + MediaTime(value: 1, timescale: 2)  // 2⁶³/2 = 2⁶² seconds
        #expect(exact.timescale == 1 && exact.value == 1 << 62)
        #expect(!exact.flags.contains(.hasBeenRounded))

        let thirds = MediaTime(value: .max, timescale: 3) + MediaTime(value: 1, timescale: 3)
        #expect(thirds.timescale == 1)
        #expect(thirds.value == 3_074_457_345_618_258_603)  // 2⁶³/3 = …602.67, rounded half away from zero
        #expect(thirds.flags.contains(.hasBeenRounded))

        let tooBig = MediaTime(value: .max, timescale: 1) + MediaTime(value: 1, timescale: 1)
        #expect(tooBig == .positiveInfinity)
        #expect(tooBig.flags.contains(.hasBeenRounded))
        #expect(MediaTime(value: .min, timescale: 1) - MediaTime(value: 1, timescale: 1) == .negativeInfinity)
    }

    @Test(arguments: [
        (MediaTime.positiveInfinity, MediaTime.positiveInfinity, MediaTime.positiveInfinity, MediaTime.invalid),
        (.negativeInfinity, .negativeInfinity, .negativeInfinity, .invalid),
        (.positiveInfinity, .negativeInfinity, .invalid, .positiveInfinity),
        (.negativeInfinity, .positiveInfinity, .invalid, .negativeInfinity),
        (MediaTime(value: 5, timescale: 1), .positiveInfinity, .positiveInfinity, .negativeInfinity),
        (.indefinite, MediaTime(value: 5, timescale: 1), .indefinite, .indefinite),
        (.indefinite, .positiveInfinity, .positiveInfinity, .negativeInfinity),
        (.indefinite, .indefinite, .indefinite, .indefinite),
        (.invalid, .positiveInfinity, .invalid, .invalid),
        (MediaTime(value: 5, timescale: 1), .invalid, .invalid, .invalid),
    ])
    func nonNumericOperandsFollowCMTimeAdd(a: MediaTime, b: MediaTime, sum: MediaTime, difference: MediaTime) {
        #expect(a + b == sum)
        #expect(a - b == difference)
    }

    @Test func epochsCombineOnlyWithDurationsOrTheSameEpoch() {
        let five = MediaTime(value: 5, timescale: 1, epoch: 1)
        let three = MediaTime(value: 3, timescale: 1, epoch: 1)
        let difference = five - three
        #expect(difference == MediaTime(value: 2, timescale: 1) && difference.epoch == 0)
        let later = five + MediaTime(value: 2, timescale: 1)
        #expect(later.epoch == 1 && later.value == 7)
        #expect((five - MediaTime(value: 2, timescale: 1)).epoch == 1)
        #expect((MediaTime(value: 2, timescale: 1) + five).epoch == 1)
        #expect(!(five + MediaTime(value: 2, timescale: 1, epoch: 2)).isValid)
        #expect(!(MediaTime(value: 2, timescale: 1) - five).isValid, "a duration minus a time has no meaning")
    }

    @Test func negatingTheMostNegativeValueMovesToACoarserTimescale() {
        let evenScale = -MediaTime(value: .min, timescale: 2)  // 2⁶³/2 = 2⁶² exactly at timescale 1
        #expect(evenScale.value == 1 << 62 && evenScale.timescale == 1)
        #expect(!evenScale.flags.contains(.hasBeenRounded))
        let oddScale = -MediaTime(value: .min, timescale: 3)
        #expect(oddScale.timescale == 1 && oddScale.flags.contains(.hasBeenRounded))
        #expect(-MediaTime.positiveInfinity == .negativeInfinity)
        #expect(-MediaTime.indefinite == .indefinite)
        #expect(!(-MediaTime.invalid).isValid)
        #expect(MediaTime.negativeInfinity.absolute == .positiveInfinity)
        #expect(MediaTime(value: -3, timescale: 2, epoch: 4).absolute.value == 3)
        #expect(MediaTime(value: 3, timescale: 2, epoch: -4).absolute.value == 3, "absolute ignores the epoch")
    }

    @Test func multiplyingByAnIntegerOverflowsIntoACoarserTimescaleThenInfinity() {
        let big = MediaTime(value: 1 << 62, timescale: 1000)
        let doubled = big * 2  // 2⁶³ ticks of 1/1000 does not fit; 2⁶² ticks of 1/500 does
        #expect(doubled.timescale == 500 && doubled.value == 1 << 62)
        #expect(doubled == MediaTime(value: 1 << 62, timescale: 500))
        #expect(MediaTime(value: .max, timescale: 1) * 2 == .positiveInfinity)
        #expect(MediaTime(value: .max, timescale: 1) * -2 == .negativeInfinity)
        #expect(MediaTime.positiveInfinity * -3 == .negativeInfinity)
        #expect(MediaTime.negativeInfinity * -3 == .positiveInfinity)
        #expect(!(MediaTime.positiveInfinity * 0).isValid)
        #expect(MediaTime.indefinite * 3 == .indefinite)
        #expect(!(MediaTime.invalid * 3).isValid)
    }

    @Test func multiplyingByARatioRoundsOnlyWhenTheExactResultDoesNotFit() {
        let frame = MediaTime(value: 1, timescale: 30)
        let slowed = frame.multiplied(by: 1001, dividedBy: 1000)
        #expect(slowed.value == 1001 && slowed.timescale == 30000)
        #expect(frame.multiplied(by: 1, dividedBy: 2).timescale == 60)
        #expect(frame.multiplied(by: 1, dividedBy: -2) == MediaTime(value: -1, timescale: 60))
        #expect(MediaTime(value: 2, timescale: 30).multiplied(by: 1, dividedBy: 2).timescale == 30)
        #expect(MediaTime(value: 0, timescale: 30).multiplied(by: 7, dividedBy: 3).timescale == 30)

        // 1/(2³¹−1) · 1/3 needs a timescale of 3·(2³¹−1): rounded at the original timescale instead.
        let tick = MediaTime(value: 1, timescale: Int32.max)
        for (method, expected): (RoundingMethod, Int64) in [
            (.roundTowardZero, 0), (.roundAwayFromZero, 1), (.roundHalfAwayFromZero, 0),
            (.roundTowardPositiveInfinity, 1), (.roundTowardNegativeInfinity, 0),
        ] {
            let third = tick.multiplied(by: 1, dividedBy: 3, rounding: method)
            #expect(third.timescale == Int32.max && third.value == expected, "\(method)")
            #expect(third.flags.contains(.hasBeenRounded))
        }
        #expect(tick.multiplied(by: -1, dividedBy: 3, rounding: .quickTime).value == -1, "never rounds to −0")

        #expect(!frame.multiplied(by: 1, dividedBy: 0).isValid)
        #expect(MediaTime.positiveInfinity.multiplied(by: -1, dividedBy: 2) == .negativeInfinity)
        #expect(MediaTime.positiveInfinity.multiplied(by: -1, dividedBy: -2) == .positiveInfinity)
        #expect(!MediaTime.negativeInfinity.multiplied(by: 0, dividedBy: 2).isValid)
        #expect(MediaTime(value: .max, timescale: 1).multiplied(by: 3, dividedBy: 1) == .positiveInfinity)
    }

    private func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? abs(a) : gcd(b, a % b) }
}
