import Foundation
import Testing

@testable import TesseraCore

/// `tessera worker --media-url`: the coordinator's HTTP API as a worker reads sources from it.
@Suite struct MediaURLTests {
    @Test func aHostAndPortOnlyAndEachPathComponentEncoded() throws {
        let url = try #require(MediaURL("http://farm.local:8080", token: "t0k"))
        #expect(url.base == "http://farm.local:8080")
        #expect(
            url.url(for: "/srv/media/a clip #1.mp4") == "http://farm.local:8080/v1/media/srv/media/a%20clip%20%231.mp4")
        #expect(url.url(for: "/srv/é/x%y.mov") == "http://farm.local:8080/v1/media/srv/%C3%A9/x%25y.mov")
        #expect(url.headers == "Authorization: Bearer t0k\r\n")
        #expect(MediaURL("https://farm.local/", token: nil)?.headers == "")
        // An IPv6 literal keeps its brackets.
        #expect(MediaURL("http://[::1]:8080", token: nil)?.base == "http://[::1]:8080")
    }

    @Test(arguments: [
        "ftp://farm:21", "http://farm:8080/v1", "http://farm:8080?x=1", "http://user@farm:8080", "farm:8080", "",
        "http://",
    ])
    func anythingElseIsRefused(text: String) {
        #expect(MediaURL(text, token: nil) == nil)
    }

    @Test func aTokenThatWouldBreakTheHeaderIsRefused() {
        for token in ["a b", "a\r\nX-Evil: 1", "", "tøken"] {
            #expect(MediaURL("http://farm:8080", token: token) == nil)
        }
    }
}
