import Foundation
import Testing

@testable import TesseraCore

@Suite struct TimeRangeTests {
    private func t(_ text: String) -> MediaTime { MediaTime(string: text)! }
    private func r(_ text: String) -> TimeRange { TimeRange(string: text)! }

    @Test func startEndAndDuration() {
        let range = TimeRange(start: t("1s"), end: t("4.5s"))
        #expect(range.duration == t("3.5s"))
        #expect(range.end == t("4.5s"))
        #expect(TimeRange(start: t("1001/30000"), duration: t("1001/30000")).end == t("2002/30000"))
        #expect(TimeRange(start: t("1s"), end: t("1s")).isEmpty)
        #expect(!range.isEmpty)
        #expect(TimeRange.zero.isEmpty && TimeRange.zero.isValid && TimeRange.zero.start == .zero)
        #expect(!TimeRange.invalid.isValid && !TimeRange.invalid.isEmpty)
    }

    @Test func validityNeedsValidTimesAndANonNegativeDuration() {
        #expect(TimeRange(start: t("1s"), duration: t("0s")).isValid)
        #expect(TimeRange(start: t("-1s"), duration: .positiveInfinity).isValid)
        #expect(TimeRange(start: t("1s"), duration: .indefinite).isValid)
        #expect(!TimeRange(start: t("4s"), end: t("1s")).isValid, "end before start is a negative duration")
        #expect(!TimeRange(start: .invalid, duration: t("1s")).isValid)
        #expect(!TimeRange(start: t("1s"), duration: .invalid).isValid)
        #expect(!TimeRange(start: t("1s"), duration: .negativeInfinity).isValid)
        #expect(!TimeRange(start: t("1s"), duration: MediaTime(value: 1, timescale: 1, epoch: 1)).isValid)
        // A start in another epoch is fine; its end stays in that epoch.
        let epoch = TimeRange(start: MediaTime(value: 1, timescale: 1, epoch: 2), duration: t("1s"))
        #expect(epoch.isValid && epoch.end.epoch == 2)
    }

    @Test func containsTimeIsHalfOpen() {
        let range = r("1s-4s")
        #expect(range.contains(t("1s")))
        #expect(range.contains(t("3.999999999s")))
        #expect(!range.contains(t("4s")))
        #expect(!range.contains(t("0.999s")))
        // Both `contains` overloads take a type with `.invalid`, so the time must be spelled out.
        #expect(!range.contains(MediaTime.invalid))
        #expect(!range.contains(MediaTime.positiveInfinity) && !range.contains(MediaTime.indefinite))
        #expect(!r("1s-1s").contains(t("1s")), "an empty range contains no instant")
        #expect(!TimeRange.invalid.contains(MediaTime.zero))
        #expect(TimeRange(start: .zero, duration: .positiveInfinity).contains(t("1000000000/1")))
    }

    @Test func containsRangeComparesEnds() {
        let range = r("1s-4s")
        #expect(range.contains(range))
        #expect(range.contains(r("2s-3s")))
        #expect(range.contains(r("4s-4s")), "an empty range at the end is inside, as in CMTimeRange")
        #expect(!range.contains(r("5s-5s")))
        #expect(!range.contains(r("0s-2s")))
        #expect(!range.contains(r("3s-5s")))
        #expect(!range.contains(TimeRange.invalid))
        #expect(!TimeRange.invalid.contains(range))
    }

    @Test func intersectionOfOverlappingDisjointAndTouchingRanges() {
        #expect(r("1s-4s").intersection(r("3s-6s")) == r("3s-4s"))
        #expect(r("1s-4s").intersection(r("2s-3s")) == r("2s-3s"))
        let disjoint = r("1s-2s").intersection(r("5s-6s"))
        #expect(disjoint.isEmpty && disjoint.isValid && disjoint.start == t("5s"), "empty, at the later start")
        let touching = r("0s-1s").intersection(r("1s-2s"))
        #expect(touching.isEmpty && touching.start == t("1s"))
        #expect(!r("1s-4s").intersection(.invalid).isValid)
        #expect(r("0s-+inf").intersection(r("1s-3s")) == r("1s-3s"))
        #expect(r("0s-+inf").intersection(r("1s-+inf")) == r("1s-+inf"))
    }

    @Test func unionCoversTheGapBetweenRanges() {
        #expect(r("1s-2s").union(r("5s-6s")) == r("1s-6s"))
        #expect(r("1s-4s").union(r("2s-3s")) == r("1s-4s"))
        #expect(r("1001/30000-2002/30000").union(r("0/1-1/48000")).start == .zero)
        #expect(!r("1s-4s").union(.invalid).isValid)
    }

    // MARK: Text

    @Test(arguments: [
        ("1s-4s", "1/1", "4/1"), ("00:00:01-00:00:04.5", "1/1", "45/10"),
        ("1001/30000-2002/30000", "1001/30000", "2002/30000"), ("1s\u{2013}4s", "1/1", "4/1"),
        ("-2s--1s", "-2/1", "-1/1"), ("-1s-4s", "-1/1", "4/1"), ("0-+inf", "0/1", "+inf"),
        ("0f@30-90f@30", "0/30", "90/30"), ("1s - 4s", "1/1", "4/1"),
    ])
    func parsesStartDashEnd(text: String, start: String, end: String) throws {
        let range = try #require(TimeRange(string: text))
        #expect(range.start == t(start))
        #expect(range.end == t(end))
        #expect(range.start.timescale == t(start).timescale || !range.start.isNumeric)
    }

    @Test(arguments: [
        "", "1s", "1s-", "-4s", "a-b", "1s-4s-5s", "1s~4s", "-", "1s--", "1s\u{2014}4s",
        "-inf-3s",
    ])
    func rejectsTextThatIsNotTwoTimesOrCannotBeHeld(text: String) {
        #expect(TimeRange(string: text) == nil, "\"\(text)\" should not parse")
    }

    @Test func describesAsStartEnDashEnd() {
        #expect(r("1001/30000-2002/30000").description == "1001/30000\u{2013}2002/30000")
        #expect(TimeRange(start: t("-1s"), duration: t("2s")).description == "-1/1\u{2013}1/1")
        #expect(TimeRange.invalid.description == "invalid\u{2013}invalid")
        #expect(TimeRange("1s-4s") == r("1s-4s"))
    }

    // MARK: Codable

    @Test func codableRoundTripsAndAcceptsStringsAndEnds() throws {
        let range = TimeRange(start: t("1001/30000"), duration: t("2002/30000"))
        let data = try JSONEncoder().encode(range)
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(Set(json?.keys.map { $0 } ?? []) == ["start", "duration"])
        let decoded = try JSONDecoder().decode(TimeRange.self, from: data)
        #expect(decoded.start.value == 1001 && decoded.duration.value == 2002 && decoded.duration.timescale == 30000)

        let decode = { (json: String) in try JSONDecoder().decode(TimeRange.self, from: Data(json.utf8)) }
        #expect(try decode(#""1s-4s""#) == r("1s-4s"))
        #expect(try decode(#"{"start": "1s", "end": "4s"}"#) == r("1s-4s"))
        #expect(try decode(#"{"start": "1s", "duration": "3s"}"#) == r("1s-4s"))
        #expect(throws: DecodingError.self) { try decode(#""1s to 4s""#) }
        #expect(throws: DecodingError.self) { try decode(#"{"start": "1s"}"#) }
    }
}
