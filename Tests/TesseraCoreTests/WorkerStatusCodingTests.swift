import Foundation
import Testing

@testable import TesseraCore

@Suite("WorkerStatus in JSON")
struct WorkerStatusCodingTests {
    @Test func typedFieldsTravelAsTheStringsTheAPIDocuments() throws {
        let status = WorkerStatus(
            id: "w1", hostname: "node", cores: 8, memoryBytes: 1 << 34, backends: [.cpu, .vulkan],
            encoders: ["libx264"], state: .busy, tasks: [TaskKey(job: "job-1", segment: 4, attempt: 2)],
            segmentsDone: 3, lastSeenSeconds: 0.5,
            backendChoices: [.init(requested: .auto, chosen: .cpu, reason: "vulkan 12 frames/s vs cpu 600: fast")])
        let data = try JSONEncoder().encode(status)
        let object = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["backends"] as? [String] == ["cpu", "vulkan"])
        #expect(object["tasks"] as? [String] == ["job-1/4#2"])
        #expect(object["backendChoices"] as? [String] == ["auto → cpu: vulkan 12 frames/s vs cpu 600: fast"])
        #expect(try JSONDecoder().decode(WorkerStatus.self, from: data) == status)
    }

    @Test(arguments: ["job-1/4", "job-1#2", "/4#2x", "job/x#1", ""])
    func aMalformedTaskIsRefused(_ text: String) {
        #expect(TaskKey(text) == nil)
    }

    @Test func aJobIDMayHoldSlashesBeforeTheSegment() {
        #expect(TaskKey("a/b/7#1") == TaskKey(job: "a/b", segment: 7, attempt: 1))
    }

    @Test(arguments: ["auto → gpu: x", "auto cpu: x", "auto → cpu x"])
    func aMalformedChoiceIsRefused(_ text: String) throws {
        let json = Data("[\"\(text)\"]".utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([WorkerStatus.Resolution].self, from: json) }
    }
}
