import Foundation
import Testing

@testable import TesseraCore

/// How reports write times: seconds beside the exact rational, which reads back to the same time.
struct SecondsAndExactTests {
    struct Sample: Codable, Equatable {
        @SecondsAndExact var duration: MediaTime
        @OptionalSecondsAndExact var offset: MediaTime?
    }

    @Test func secondsBesideTheExactRationalRoundTrip() throws {
        let sample = Sample(
            duration: MediaTime(value: 1001, timescale: 30000), offset: MediaTime(value: -1, timescale: 48000))
        let data = try JSONEncoder().encode(sample)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
        #expect(json["duration"]?["exact"] as? String == "1001/30000")
        #expect(abs((json["duration"]?["seconds"] as? Double ?? 0) - 1001.0 / 30000) < 1e-12)
        #expect(json["offset"]?["exact"] as? String == "-1/48000")
        #expect(try JSONDecoder().decode(Sample.self, from: data) == sample, "the exact form reads back")
    }

    @Test func anAbsentTimeIsLeftOutAndSecondsAloneAreRead() throws {
        let none = Sample(duration: MediaTime(value: 3, timescale: 1), offset: nil)
        let json = String(decoding: try JSONEncoder().encode(none), as: UTF8.self)
        #expect(!json.contains("offset"), "\(json)")
        #expect(try JSONDecoder().decode(Sample.self, from: Data(json.utf8)) == none)
        let loose = try JSONDecoder().decode(Sample.self, from: Data(#"{"duration": {"seconds": 2.5}}"#.utf8))
        #expect(loose.duration.seconds == 2.5 && loose.offset == nil)
    }
}
