import Foundation
import TesseraCore
import Testing

/// The HTTP API showed Swift's synthesized enum coding to people (`{"crf": {"_0": 23}}`): rate control
/// is written as a person writes it, and what earlier releases stored still reads.
@Suite struct RateControlCodingTests {
    static func encoded(_ r: RateControl) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(r), as: UTF8.self)
    }

    static func decoded(_ text: String) throws -> RateControl {
        try JSONDecoder().decode(RateControl.self, from: Data(text.utf8))
    }

    @Test func writtenAsAPersonWritesIt() throws {
        #expect(try Self.encoded(.crf(23)) == #"{"crf":23}"#)
        #expect(try Self.encoded(.bitRate(4_000_000)) == #"{"bitRate":4000000}"#)
        #expect(try Self.decoded(#"{"crf":20}"#) == .crf(20))
        #expect(try Self.decoded(#"{"bitRate":2500000}"#) == .bitRate(2_500_000))
    }

    @Test func theFormEarlierReleasesStoredStillReads() throws {
        #expect(try Self.decoded(#"{"crf":{"_0":23}}"#) == .crf(23))
        #expect(try Self.decoded(#"{"bitRate":{"_0":4000000}}"#) == .bitRate(4_000_000))
    }

    @Test(arguments: [#"{}"#, #"{"crf":20,"bitRate":1000000}"#, #"{"crf":"high"}"#, #"{"cbr":1}"#, #"{"crf":1e400}"#])
    func anythingElseIsRefused(text: String) {
        #expect(throws: (any Error).self) { try Self.decoded(text) }
    }
}
