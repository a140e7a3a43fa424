import PropertyBased
import Testing

@testable import TesseraCore

@Suite struct MediaTimeRoundingTests {
    // MARK: Properties

    @Test(arguments: RoundingMethod.allCases)
    func convertScaleRoundsAsTheMethodNamesIt(method: RoundingMethod) async {
        // Small values, so the reference can form value · newTimescale in plain Int64 and round with floor
        // and ceiling division; timescales overlap so that both coarser and finer conversions occur.
        let value = Gen.int64(in: -1_000_000...1_000_000)
        let scale = Gen.int32(in: 1...100_000)
        await propertyCheck(count: 1000, input: value, scale, scale) { v, old, new in
            let converted = MediaTime(value: v, timescale: old).convertScale(new, method: method)
            let numerator = v * Int64(new)
            let expected = Reference.divide(numerator, Int64(old), method, losesPrecision: new < old)
            #expect(converted.timescale == new)
            #expect(converted.value == expected, "\(v)/\(old) → ?/\(new) by \(method)")
            #expect(converted.flags.contains(.hasBeenRounded) == (numerator % Int64(old) != 0))
            // Whatever the method, the result is less than one new tick from the exact time.
            #expect(abs(converted.value * Int64(old) - numerator) < Int64(old))
        }
        // Halving the timescale makes every odd value land exactly on a half tick, the case that tells
        // half-away-from-zero from its neighbours.
        await propertyCheck(count: 300, input: value, Gen.int32(in: 1...50_000)) { v, new in
            let converted = MediaTime(value: v, timescale: new * 2).convertScale(new, method: method)
            #expect(converted.value == Reference.divide(v, 2, method, losesPrecision: true), "\(v)/\(new * 2)")
        }
    }

    @Test(arguments: RoundingMethod.allCases)
    func convertScaleBracketsTheExactTimeAcrossTheFullInt64Range(method: RoundingMethod) async {
        // 90 kHz video ticks to 44.1 kHz audio ticks, any value: the result r satisfies
        // r − 1 < exact < r + 1 (in new ticks), checked with the separately tested exact comparison.
        await propertyCheck(count: 500, input: Gen.int64()) { v in
            let time = MediaTime(value: v, timescale: 90000)
            let converted = time.convertScale(44100, method: method)
            #expect(converted.timescale == 44100)
            if converted.value > .min {
                #expect(MediaTime(value: converted.value - 1, timescale: 44100) < time)
            }
            if converted.value < .max {
                #expect(time < MediaTime(value: converted.value + 1, timescale: 44100))
            }
            switch method {
            case .roundTowardNegativeInfinity: #expect(converted <= time)
            case .roundTowardPositiveInfinity: #expect(converted >= time)
            case .roundTowardZero, .quickTime: #expect(converted.absolute <= time.absolute || converted.value == -1)
            case .roundAwayFromZero: #expect(converted.absolute >= time.absolute)
            case .roundHalfAwayFromZero: break
            }
        }
    }

    @Test func convertingToAFinerMultipleIsExactAndBack() async {
        await propertyCheck(count: 500, input: TimeGen.mediaNumeric, Gen.int32(in: 1...1000)) { time, k in
            guard let finer = Int32(exactly: Int64(time.timescale) * Int64(k)) else { return }
            let converted = time.convertScale(finer, method: .roundTowardZero)
            #expect(converted == time)
            #expect(!converted.flags.contains(.hasBeenRounded))
            #expect(converted.convertScale(time.timescale, method: .roundAwayFromZero).value == time.value)
        }
    }

    // MARK: Examples

    @Test(arguments: [
        // 1001/30000 s is 1.001 thirtieths: a small positive fraction.
        (RoundingMethod.roundHalfAwayFromZero, Int64(1001), Int64(1)),
        (.roundTowardZero, 1001, 1), (.roundAwayFromZero, 1001, 2), (.quickTime, 1001, 1),
        (.roundTowardPositiveInfinity, 1001, 2), (.roundTowardNegativeInfinity, 1001, 1),
        // −1001/30000 s.
        (.roundHalfAwayFromZero, -1001, -1), (.roundTowardZero, -1001, -1), (.roundAwayFromZero, -1001, -2),
        (.quickTime, -1001, -1), (.roundTowardPositiveInfinity, -1001, -1), (.roundTowardNegativeInfinity, -1001, -2),
        // 1500/30000 s is exactly 1.5 thirtieths: the half case.
        (.roundHalfAwayFromZero, 1500, 2), (.roundHalfAwayFromZero, -1500, -2), (.roundTowardZero, 1500, 1),
        // −100/30000 s is −0.1 thirtieths: QuickTime never rounds a negative time to zero.
        (.quickTime, -100, -1), (.roundTowardZero, -100, 0), (.quickTime, 100, 0),
    ])
    func ntscTicksToThirtiethsOfASecond(method: RoundingMethod, value: Int64, expected: Int64) {
        let converted = MediaTime(value: value, timescale: 30000).convertScale(30, method: method)
        #expect(converted.value == expected)
        #expect(converted.timescale == 30)
        #expect(converted.flags.contains(.hasBeenRounded))
    }

    @Test func quickTimeRoundsAwayFromZeroWhenGainingPrecision() {
        // 1/44100 s is 1.088… ticks of 1/48000.
        #expect(MediaTime(value: 1, timescale: 44100).convertScale(48000, method: .quickTime).value == 2)
        #expect(MediaTime(value: -1, timescale: 44100).convertScale(48000, method: .quickTime).value == -2)
        #expect(MediaTime(value: 1, timescale: 44100).convertScale(48000).value == 1)
    }

    @Test func convertScaleLeavesSpecialTimesAloneAndRefusesBadTimescales() {
        for special in TimeGen.specials {
            let converted = special.convertScale(1000)
            #expect(converted == special)
            #expect(converted.flags == special.flags)
        }
        #expect(!MediaTime(value: 1, timescale: 2).convertScale(0).isValid)
        #expect(!MediaTime(value: 1, timescale: 2).convertScale(-30).isValid)
        let overflow = MediaTime(value: .max, timescale: 1).convertScale(2)
        #expect(overflow == .positiveInfinity && overflow.flags.contains(.hasBeenRounded))
        #expect(MediaTime(value: .min, timescale: 1).convertScale(2) == .negativeInfinity)
        let epoch = MediaTime(value: 3, timescale: 2, epoch: 7).convertScale(4)
        #expect(epoch.epoch == 7 && epoch.value == 6)
        let inherited = MediaTime(value: 1, timescale: 2, flags: [.valid, .hasBeenRounded]).convertScale(4)
        #expect(inherited.flags.contains(.hasBeenRounded), "an exact conversion keeps an earlier rounding's mark")
    }

    @Test func secondsAreForPeopleAndMarkedWhenInexact() {
        let exact = MediaTime(seconds: 2.5, preferredTimescale: 600)
        #expect(exact.value == 1500 && exact.timescale == 600 && !exact.flags.contains(.hasBeenRounded))
        #expect(exact.seconds == 2.5)
        let third = MediaTime(seconds: 1.0 / 3.0, preferredTimescale: 1000)
        #expect(third.value == 333 && third.flags.contains(.hasBeenRounded))
        // As CMTimeMakeWithSeconds, "exact" means it converts back to the same Double: 200/600 does.
        #expect(!MediaTime(seconds: 1.0 / 3.0, preferredTimescale: 600).flags.contains(.hasBeenRounded))
        #expect(MediaTime(seconds: -0.5, preferredTimescale: 3).value == -2, "−1.5 ticks rounds away from zero")
        #expect(!MediaTime(seconds: .nan, preferredTimescale: 600).isValid)
        #expect(!MediaTime(seconds: 1, preferredTimescale: 0).isValid)
        #expect(MediaTime(seconds: .infinity, preferredTimescale: 600) == .positiveInfinity)
        #expect(MediaTime(seconds: -.infinity, preferredTimescale: 600) == .negativeInfinity)
        #expect(MediaTime(seconds: 1e300, preferredTimescale: 600) == .positiveInfinity)
        // 10¹⁵ s at 90 kHz is 9·10¹⁹ ticks, past Int64: the timescale is halved until it fits.
        let long = MediaTime(seconds: 1e15, preferredTimescale: 90000)
        #expect(long.timescale < 90000 && long.timescale > 0)
        #expect(long.seconds == 1e15)
        #expect(MediaTime.positiveInfinity.seconds == .infinity)
        #expect(MediaTime.indefinite.seconds.isNaN)
    }
}
