import Foundation
import ServiceLifecycle
import TesseraCoordinator
import TesseraCore
import TesseraFarm
import TesseraHTTP
import TesseraTestSupport
import TesseraWire
import Testing

/// `LocalFarm`: a coordinator and real workers in this process, over loopback ZeroMQ.
@Suite("Local farm", .serialized)
struct LocalFarmTests {
    struct Folder {
        let root: URL
        var media: URL { root.appendingPathComponent("media") }
        var out: URL { root.appendingPathComponent("out") }
        var data: URL { root.appendingPathComponent("data") }

        init() throws {
            root = try TestMedia.makeDirectory("localfarm")
            for dir in [media, out] {
                try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            }
        }

        func farm(workers: Int = 2) throws -> LocalFarm {
            var config = LocalFarm.Configuration(
                workers: workers,
                coordinator: CoordinatorConfiguration(
                    listen: "", dataDirectory: data, mediaRoots: [media], outputRoot: out))
            config.threadsPerWorker = 1
            config.backend = .cpu
            return try LocalFarm(configuration: config)
        }

        func source(seconds: Double) throws -> URL {
            let src = media.appendingPathComponent("src.mp4")
            try TestMedia.make(
                src, seconds: seconds, width: 640, height: 360,
                video: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p"])
            return src
        }

        func request(_ src: URL, speed: String = "ultrafast") -> JobRequest {
            var settings = OutputSettings.standard
            settings.video?.speed = speed
            return JobRequest(source: src.path, output: "out.mp4", settings: settings, segmentDuration: 1)
        }
    }

    static func frames(_ url: URL) throws -> Int {
        Int(TestMedia.stream(try TestMedia.probe(url, countFrames: true), "video")?["nb_read_frames"] as? String ?? "")
            ?? -1
    }

    @Test("a job runs on the local workers; its status streams until it completes")
    func runsAJobAndStreamsItsStatus() async throws {
        let folder = try Folder()
        defer { TestMedia.cleanup(folder.root) }
        let src = try folder.source(seconds: 4)
        let farm = try folder.farm()
        try await DedicatedThread.run { _ = try farm.start() }
        let job = try await farm.submit(folder.request(src))
        var seen: [JobStatus] = []
        for try await status in farm.statusUpdates(of: job.id, interval: 0.05) { seen.append(status) }
        try await DedicatedThread.run { farm.stop() }

        let last = try #require(seen.last)
        #expect(last.state == .completed, "\(last)")
        #expect(seen.dropLast().allSatisfy { !$0.state.isTerminal }, "one terminal status, at the end")
        let done = seen.map(\.framesDone)
        #expect(done == done.sorted(), "progress never goes back: \(done)")
        #expect(last.framesTotal == 120 && last.framesDone == 120)
        #expect(last.segmentsTotal == 4)
        #expect(try Self.frames(folder.out.appendingPathComponent("out.mp4")) == 120)
    }

    /// Its coordinator does not check its workers' results, so it takes no worker but its own: a peer
    /// saying Hello as `local-9` is refused, and the farm's own workers still do the job.
    @Test("a local farm takes only its own workers")
    func onlyItsOwnWorkersJoin() async throws {
        let folder = try Folder()
        defer { TestMedia.cleanup(folder.root) }
        let farm = try folder.farm()
        let endpoint = try await DedicatedThread.run { try farm.start() }
        let answers = try await DedicatedThread.run { () throws -> [Tessera_V1_Envelope] in
            let context = ZMQContext()
            let stranger = try ZMQSocket(context, .dealer)
            defer { stranger.close() }
            try stranger.connect(endpoint)
            var caps = Tessera_V1_Capabilities()
            caps.slots = 1
            caps.backends = ["cpu"]
            try FarmHostilePeerTests.send(stranger, .hello(workerID: "local-9", capabilities: caps))
            return try FarmHostilePeerTests.drain(stranger, timeout: 2000)
        }
        let reject = answers.compactMap { e -> Tessera_V1_Reject? in
            if case .reject(let r)? = e.body { return r }
            return nil
        }
        #expect(reject.first?.code == .unauthorized, "\(answers)")
        #expect(!answers.contains { if case .welcome? = $0.body { return true } else { return false } })
        let src = try folder.source(seconds: 2)
        let job = try await farm.submit(folder.request(src))
        var last: JobStatus?
        for try await status in farm.statusUpdates(of: job.id) { last = status }
        #expect(last?.state == .completed)
        try await DedicatedThread.run { farm.stop() }
    }

    @Test("an unknown job's status stream ends with notFound")
    func unknownJob() async throws {
        let folder = try Folder()
        defer { TestMedia.cleanup(folder.root) }
        let farm = try folder.farm(workers: 1)
        try await DedicatedThread.run { _ = try farm.start() }
        await #expect {
            for try await _ in farm.statusUpdates(of: "j-nope") {}
        } throws: { ($0 as? FarmError)?.kind == .notFound }
        try await DedicatedThread.run { farm.stop() }
        #expect(throws: FarmError.self) { _ = try folder.farm(workers: 0) }
    }

    /// As `tessera run` and the coordinator process run it: a service in a ServiceGroup. A graceful
    /// shutdown mid-job stops the farm and leaves the job to resume, and a farm started again on the
    /// same data folder finishes it without redoing the segments already spooled.
    @Test("graceful shutdown of its group pauses the job; a new farm on the same folder finishes it")
    func gracefulShutdownAndResume() async throws {
        let folder = try Folder()
        defer { TestMedia.cleanup(folder.root) }
        let src = try folder.source(seconds: 8)
        let farm = try folder.farm()
        let group = ServiceGroup(services: [farm], logger: .init(label: "test"))
        let running = Task { try await group.run() }
        let job = try await farm.submit(folder.request(src, speed: "slower"))
        var progressed: JobStatus?
        for try await status in farm.statusUpdates(of: job.id, interval: 0.05) where status.segmentsDone >= 2 {
            progressed = status
            break
        }
        #expect(progressed?.state.isTerminal == false, "stopped mid-job: \(String(describing: progressed))")
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(!FileManager.default.fileExists(atPath: folder.out.appendingPathComponent("out.mp4").path))

        let again = try folder.farm()
        try await DedicatedThread.run { _ = try again.start() }
        var last: JobStatus?
        for try await status in again.statusUpdates(of: job.id) { last = status }
        try await DedicatedThread.run { again.stop() }
        #expect(last?.state == .completed, "\(String(describing: last))")
        #expect(try Self.frames(folder.out.appendingPathComponent("out.mp4")) == 240)
    }
}
