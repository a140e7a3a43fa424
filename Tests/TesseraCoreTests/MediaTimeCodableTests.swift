import Foundation
import PropertyBased
import Testing

@testable import TesseraCore

@Suite struct MediaTimeCodableTests {
    @Test func encodesAsAKeyedObjectWithEveryField() throws {
        let time = MediaTime(value: 1001, timescale: 30000, flags: [.valid, .hasBeenRounded], epoch: 3)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(time)) as? [String: Any]
        #expect(json?["value"] as? Int == 1001)
        #expect(json?["timescale"] as? Int == 30000)
        #expect(json?["flags"] as? Int == 3)
        #expect(json?["epoch"] as? Int == 3)
    }

    @Test func keyedFormRoundTripsEveryField() async throws {
        await propertyCheck(count: 300, input: TimeGen.any, Gen.bool) { time, rounded in
            var time = time
            if rounded { time.flags.insert(.hasBeenRounded) }
            let decoded = try JSONDecoder().decode(MediaTime.self, from: JSONEncoder().encode(time))
            #expect(decoded.value == time.value && decoded.timescale == time.timescale)
            #expect(decoded.flags == time.flags && decoded.epoch == time.epoch)
        }
    }

    @Test(arguments: [
        (#""2.5s""#, MediaTime(value: 5, timescale: 2)),
        (#""90f@30000/1001""#, MediaTime(value: 3003, timescale: 1000)),
        (#""+inf""#, .positiveInfinity), (#"{"value": 1, "timescale": 30}"#, MediaTime(value: 1, timescale: 30)),
        (#"{"value": 1, "timescale": 0}"#, .invalid),
        (#"{"value": 0, "timescale": 1, "flags": 5}"#, .positiveInfinity),
    ])
    func decodesStringsAndShortKeyedObjects(json: String, expected: MediaTime) throws {
        let decoded = try JSONDecoder().decode(MediaTime.self, from: Data(json.utf8))
        #expect(decoded == expected)
    }

    @Test func decodingRejectsBadTimes() {
        for json in [#""2.5 seconds""#, #"{"timescale": 30}"#, #"{"value": "1", "timescale": 30}"#, "12"] {
            #expect(throws: DecodingError.self, "\(json)") {
                try JSONDecoder().decode(MediaTime.self, from: Data(json.utf8))
            }
        }
    }

    @Test func decodesInsideAJobSpec() throws {
        struct Spec: Decodable {
            var start: MediaTime
            var frameDuration: MediaTime
        }
        let json = #"{"start": "00:00:01.5", "frameDuration": "1001/30000"}"#
        let spec = try JSONDecoder().decode(Spec.self, from: Data(json.utf8))
        #expect(spec.start == MediaTime(value: 3, timescale: 2))
        #expect(spec.frameDuration.timescale == 30000)
    }
}
