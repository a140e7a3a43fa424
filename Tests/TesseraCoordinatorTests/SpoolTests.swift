import Foundation
import Synchronization
import TesseraCoordinator
import TesseraTestSupport
import Testing

@Suite("SegmentSpool")
struct SpoolTests {
    private func withSpool(_ body: (SegmentSpool, URL) throws -> Void) throws {
        let folder = try TestMedia.makeDirectory("tessera-spool")
        defer { TestMedia.cleanup(folder) }
        let root = folder.appendingPathComponent("spool/nested")
        try body(try SegmentSpool(root: root), root)
    }

    private func names(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test("a write lands at JOB/SEGMENT.seg with its bytes and leaves no .part behind")
    func roundTrip() throws {
        try withSpool { spool, root in
            let data = TestMedia.garbage(count: 3 << 20, seed: 7)
            let url = try spool.write(jobID: "j-1", segment: 3, attempt: 2, data: data)
            #expect(url.path == root.appendingPathComponent("j-1/3.seg").path)
            #expect(try spool.read(url) == data)
            #expect(try Data(contentsOf: url) == data)
            #expect(try names(in: url.deletingLastPathComponent()) == ["3.seg"])
            let empty = try spool.write(jobID: "j-1", segment: 4, attempt: 1, data: Data())
            #expect(try spool.read(empty).isEmpty)
        }
    }

    @Test("a second write for the same segment does not replace the first")
    func firstWriterWins() throws {
        try withSpool { spool, _ in
            let first = TestMedia.garbage(count: 1000, seed: 1)
            let url = try spool.write(jobID: "j-1", segment: 0, attempt: 2, data: first)
            for attempt in [1, 2, 3] {
                let again = try spool.write(
                    jobID: "j-1", segment: 0, attempt: attempt,
                    data: TestMedia.garbage(count: 500, seed: UInt64(attempt + 10)))
                #expect(again == url)
            }
            #expect(try spool.read(url) == first)
            #expect(try names(in: url.deletingLastPathComponent()) == ["0.seg"])
        }
    }

    @Test("writers racing on one segment all get the same file, holding one of their results whole")
    func racingWriters() throws {
        try withSpool { spool, _ in
            let payloads = (1...8).map { TestMedia.garbage(count: 200_000, seed: UInt64($0)) }
            let results = Mutex<[Result<URL, SpoolError>]>([])
            DispatchQueue.concurrentPerform(iterations: payloads.count) { index in
                let result = Result { () throws(SpoolError) in
                    try spool.write(jobID: "j-2", segment: 5, attempt: index + 1, data: payloads[index])
                }
                results.withLock { $0.append(result) }
            }
            let written = Set(try results.withLock { $0 }.map { try $0.get() })
            #expect(written.count == 1)
            let url = try #require(written.first)
            #expect(payloads.contains(try spool.read(url)))
            #expect(try names(in: url.deletingLastPathComponent()) == ["5.seg"])
        }
    }

    @Test("a half-written .part left by a crash is ignored, then cleaned by the next write")
    func crashLeftovers() throws {
        try withSpool { spool, root in
            let folder = root.appendingPathComponent("j-3")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let torn = TestMedia.garbage(count: 100, seed: 3)
            try torn.write(to: folder.appendingPathComponent("1-a1.part"))
            try torn.write(to: folder.appendingPathComponent("1-a2.part"))
            try torn.write(to: folder.appendingPathComponent("2-a1.part"))
            #expect(throws: SpoolError.self) { try spool.read(folder.appendingPathComponent("1.seg")) }

            let data = TestMedia.garbage(count: 5000, seed: 4)
            let url = try spool.write(jobID: "j-3", segment: 1, attempt: 2, data: data)
            #expect(try spool.read(url) == data)
            // Segment 2's leftover waits for segment 2's own write.
            #expect(try names(in: folder) == ["1.seg", "2-a1.part"])
            _ = try spool.write(jobID: "j-3", segment: 2, attempt: 2, data: data)
            #expect(try names(in: folder) == ["1.seg", "2.seg"])
        }
    }

    @Test(
        "bad names are refused with a clear error",
        arguments: [
            ("", 0, 1), ("..", 0, 1), (".", 0, 1), ("a/b", 0, 1), ("j-1", -1, 1), ("j-1", 0, 0),
        ])
    func badNames(jobID: String, segment: Int, attempt: Int) throws {
        try withSpool { spool, root in
            let error = #expect(throws: SpoolError.self) {
                try spool.write(jobID: jobID, segment: segment, attempt: attempt, data: Data([1]))
            }
            #expect(error?.message.hasPrefix("spool: ") == true)
            let left = try names(in: root)
            #expect(left.isEmpty)
        }
    }

    @Test("removing a job deletes its folder; removing it again is fine")
    func remove() throws {
        try withSpool { spool, root in
            let url = try spool.write(jobID: "j-4", segment: 0, attempt: 1, data: Data([1, 2, 3]))
            let other = try spool.write(jobID: "j-5", segment: 0, attempt: 1, data: Data([4]))
            try spool.remove(jobID: "j-4")
            #expect(!FileManager.default.fileExists(atPath: url.path))
            try spool.remove(jobID: "j-4")
            #expect(try names(in: root) == ["j-5"] && spool.read(other) == Data([4]))
            #expect(throws: SpoolError.self) { try spool.remove(jobID: "../x") }
        }
    }

    @Test("a spool root that cannot be created is an error naming it")
    func badRoot() throws {
        let folder = try TestMedia.makeDirectory("tessera-spool")
        defer { TestMedia.cleanup(folder) }
        let file = folder.appendingPathComponent("file")
        try Data([0]).write(to: file)
        let error = #expect(throws: SpoolError.self) { try SegmentSpool(root: file.appendingPathComponent("root")) }
        #expect(error?.message.contains(file.path) == true)
    }
}
