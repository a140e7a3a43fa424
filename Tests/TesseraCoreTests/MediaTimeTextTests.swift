import PropertyBased
import Testing

@testable import TesseraCore

@Suite struct MediaTimeTextTests {
    // MARK: Parsing, one example per form

    @Test(arguments: [
        // value/timescale
        ("1001/30000", Int64(1001), Int32(30000)), ("-3/2", -3, 2), ("+3/2", 3, 2), ("0/1", 0, 1),
        ("9223372036854775807/2147483647", .max, .max), ("-9223372036854775808/1", .min, 1),
        // decimal seconds, exact, on the smallest power-of-ten timescale
        ("2.5s", 25, 10), ("2.5", 25, 10), ("2.50", 25, 10), ("2s", 2, 1), ("2", 2, 1), ("-0.25s", -25, 100),
        ("0.000000001", 1, 1_000_000_000), ("10.000", 10, 1), ("+1.5s", 15, 10),
        // clocks
        ("00:01:02.500", 625, 10), ("1:02.5", 625, 10), ("1:00:00", 3600, 1), ("-00:00:01.5", -15, 10),
        ("100:00:00", 360_000, 1), ("90:00", 5400, 1), ("00:00:00.033", 33, 1000),
        // frames at a rate
        ("90f@30", 90, 30), ("90f@30000/1001", 90090, 30000), ("-2f@25", -2, 25), ("0f@24", 0, 24),
        // surrounding whitespace
        ("  7/1\n", 7, 1), ("\t2.5s ", 25, 10),
    ])
    func parsesEachForm(text: String, value: Int64, timescale: Int32) throws {
        let time = try #require(MediaTime(string: text))
        #expect(time.value == value && time.timescale == timescale, "\(text) → \(time)")
        #expect(time.isNumeric && time.epoch == 0 && !time.flags.contains(.hasBeenRounded))
    }

    @Test(arguments: [
        ("+inf", MediaTime.positiveInfinity), ("inf", .positiveInfinity), ("+infinity", .positiveInfinity),
        ("INF", .positiveInfinity), ("-inf", .negativeInfinity), ("-Infinity", .negativeInfinity),
        ("indefinite", .indefinite), ("invalid", .invalid),
    ])
    func parsesTheSpecialTimes(text: String, expected: MediaTime) throws {
        let time = try #require(MediaTime(string: text))
        #expect(time == expected)
        #expect(time.flags == expected.flags)
    }

    @Test(arguments: [
        "", "   ", "abc", "s", "1/0", "1/-5", "1/2147483648", "1/", "/2", "1/2/3", "1 /2",
        "9223372036854775808/1", "-9223372036854775809/1", "9223372036854775808", "922337203685477580.8",
        "2.5.5", ".5", "5.", "-", "--1", "1e3", "0x10", "2.5ss", "2.5 s", "1.0000000001", "nan", "infinite",
        "1:2", "00:60:00", "00:00:60", "1:02:03:04", "1::02", ":30", "1:02.", "00:1:02", "-:01:02",
        "90f@0", "90@30", "90f@30/0", "f@30", "90f@", "90f@-30", "90f@29.97", "90f@2147483648",
        "9223372036854775807f@30000/1001", "99999999999999999999:00:00",
    ])
    func rejectsAnythingElse(text: String) {
        #expect(MediaTime(string: text) == nil, "\"\(text)\" should not parse")
    }

    @Test func losslessStringConvertibleUsesTheSameParser() {
        #expect(MediaTime("2.5s") == MediaTime(value: 5, timescale: 2))
        #expect(MediaTime("garbage") == nil)
    }

    // MARK: Printing

    @Test(arguments: [
        (MediaTime(value: 1001, timescale: 30000), "1001/30000"), (MediaTime(value: -3, timescale: 2), "-3/2"),
        (MediaTime(value: 2, timescale: 4), "2/4"), (.positiveInfinity, "+inf"), (.negativeInfinity, "-inf"),
        (.indefinite, "indefinite"), (.invalid, "invalid"), (MediaTime(value: 5, timescale: 0), "invalid"),
    ])
    func describesAsValueOverTimescaleOrTheSpecialName(time: MediaTime, text: String) {
        #expect(time.description == text)
        #expect("\(time)" == text)
    }

    @Test(arguments: [
        (MediaTime(value: 625, timescale: 10), "00:01:02.500"),
        (MediaTime(value: 1001, timescale: 30000), "00:00:00.033"),
        (MediaTime(value: -1001, timescale: 30000), "-00:00:00.033"),
        (MediaTime(value: 360_000, timescale: 1), "100:00:00.000"),
        (MediaTime(value: 2999, timescale: 3000), "00:00:00.999"),
        (MediaTime(value: -1, timescale: 30000), "00:00:00.000"),
        (MediaTime(value: .max, timescale: 1), "2562047788015215:30:07.000"),
        (.positiveInfinity, "+inf"), (.invalid, "invalid"),
    ])
    func clockStringTruncatesToMilliseconds(time: MediaTime, text: String) {
        #expect(time.clockString == text)
    }

    // MARK: Properties

    @Test func parsingThePrintedFormGivesBackTheSameTime() async {
        await propertyCheck(count: 1000, input: TimeGen.any) { time in
            guard time.epoch == 0 || !time.isNumeric else { return }  // the epoch is not printed
            let parsed = MediaTime(string: time.description)
            #expect(parsed == time, "\(time.description)")
            if time.isNumeric {
                #expect(parsed?.value == time.value && parsed?.timescale == time.timescale)
            }
        }
    }

    @Test func clockStringParsesBackToWithinAMillisecondBelow() async {
        await propertyCheck(count: 1000, input: TimeGen.mediaNumeric) { time in
            let parsed = MediaTime(string: time.clockString)
            let millisecond = MediaTime(value: 1, timescale: 1000)
            #expect(parsed != nil, "\(time.clockString)")
            guard let parsed else { return }
            #expect(parsed.absolute <= time.absolute)
            #expect(time.absolute < parsed.absolute + millisecond)
        }
    }

    @Test func decimalSecondsParseToTheSameInstantAsTheirFraction() async {
        // "w.ffff" parses to exactly w + ffff/10⁴ seconds, whatever trailing zeros it carries.
        await propertyCheck(count: 500, input: Gen.int64(in: 0...1_000_000), Gen.int64(in: 0...9999)) { whole, frac in
            var fraction = String(frac)
            fraction = String(repeating: "0", count: 4 - fraction.count) + fraction
            let parsed = MediaTime(string: "\(whole).\(fraction)s")
            #expect(parsed == MediaTime(value: whole * 10000 + frac, timescale: 10000))
            #expect(parsed.map { 10000 % Int($0.timescale) == 0 } == true)
            #expect(parsed.map { $0.timescale == 1 || $0.value % 10 != 0 } == true, "smallest power of ten")
        }
    }
}
