import TesseraCore
import Testing

/// `tessera worker --media-root`: which of the coordinator's paths a worker reads itself, and where.
@Suite struct MediaRootMappingTests {
    @Test func mapsWholeComponentsOnly() throws {
        let same = try #require(MediaRootMapping("/srv/media"))
        #expect(same.localPath(for: "/srv/media/a/b.mov") == "/srv/media/a/b.mov")
        #expect(same.localPath(for: "/srv/media2/b.mov") == nil, "a prefix of a name is not a folder")
        #expect(same.localPath(for: "/srv/media/../etc/passwd") == nil)
        let mapped = try #require(MediaRootMapping("/mnt/nas=/srv/media/"))
        #expect(mapped.local == "/mnt/nas" && mapped.coordinator == "/srv/media")
        #expect(mapped.localPath(for: "/srv/media//show/ep1.mxf") == "/mnt/nas/show/ep1.mxf")
        #expect([same, mapped].localPath(for: "/srv/media/x.mp4") == "/srv/media/x.mp4")
        for bad in ["relative", "/a/../b", "=/srv", "/mnt=", "/mnt=relative", ""] {
            #expect(MediaRootMapping(bad) == nil, "\(bad)")
        }
    }
}
