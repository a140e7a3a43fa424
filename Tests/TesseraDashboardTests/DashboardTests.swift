import Foundation
import Hummingbird
import TesseraCore
import Testing

@testable import TesseraCoordinator
@testable import TesseraDashboard
@testable import TesseraHTTP
@testable import TesseraHTTPTestSupport

#if canImport(FoundationXML)
import FoundationXML
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The dashboard's parts that need no browser: coalescing, the bounded rings, the signed session cookie,
/// dropping a client that stops reading, escaping, and the routes' answers on a real server.
@Suite struct DashboardTests {
    typealias Sections = [(name: String, json: String)]

    @Test func coalescerSendsChangedSectionsAtMostOncePerGapAndHeartbeatsWhenQuiet() {
        var c = FeedCoalescer(minimumGap: 1, heartbeat: 2)
        let a: Sections = [("workers", "[1]"), ("jobs", "[]")]
        #expect(c.next(a, at: 10) == .update(a))
        let b: Sections = [("workers", "[2]"), ("jobs", "[]")]
        #expect(c.next(b, at: 10.4) == nil, "a change within a second waits")
        let b2: Sections = [("workers", "[3]"), ("jobs", "[]")]
        #expect(c.next(b2, at: 11.0) == .update([("workers", "[3]")]), "only what changed, the latest")
        #expect(c.next(b2, at: 12.5) == nil)
        #expect(c.next(b2, at: 13.0) == .heartbeat)
        #expect(c.next(b2, at: 13.5) == nil)
    }

    /// A job's row: its rate is the coordinator's; the time left runs from that rate to its average.
    @Test func aJobsTimeLeftRunsBetweenItsRecentAndAverageRates() {
        let now = 1000.0
        var job = JobStatus(
            id: "j", state: .running, priority: 0, source: "/media/a.mov", output: "o.mp4", segmentsTotal: 4,
            segmentsDone: 1, framesTotal: 1000, framesDone: 400, framesPerSecond: 20, elapsedSeconds: 10,
            etaSeconds: nil, error: nil, createdAt: now, updatedAt: now)
        let row = DashboardSnapshot.Job(job)
        #expect(row.source == "a.mov" && row.framesPerSecond == 20)
        #expect(row.etaLow == 15 && row.etaHigh == 30, "600 frames at 40 (average) to 20 (now) frames/s")
        job.state = .completed
        #expect(DashboardSnapshot.Job(job).etaLow == nil)
        // Why a job waits is in its row, escaped.
        job.state = .running
        job.waiting = "no connected worker can run it (w<1>: no Vulkan device)"
        let html = DashboardPage.jobRows([DashboardSnapshot.Job(job)])
        #expect(html.contains("waiting: no connected worker can run it (w&lt;1&gt;: no Vulkan device)"))
    }

    @Test func sessionCookieIsSignedExpiresAndNamesItsAttributes() throws {
        let auth = HTTPAuth(token: "secret", sessionSeconds: 60)
        let header = auth.openSession(now: 1000)
        #expect(header.contains("HttpOnly") && header.contains("SameSite=Strict") && header.contains("Path=/"))
        #expect(!header.contains("secret"), "the token itself is never in the cookie")
        let value = try #require(HTTPAuth.cookie(HTTPAuth.cookieName, in: header.components(separatedBy: ";")[0]))
        #expect(auth.isLive(session: value, now: 1030))
        #expect(!auth.isLive(session: value, now: 1061), "expired")
        #expect(!HTTPAuth(token: "other").isLive(session: value, now: 1030), "another token's")
        let forged = value.replacingOccurrences(of: "\(1060)", with: "\(99999)")
        #expect(!auth.isLive(session: forged, now: 1030), "a longer expiry without the signature")
        #expect(HTTPAuth.cookie("b", in: "a=1; b=2 ;c=3") == "2")
    }

    @Test func aClientThatStopsReadingIsDroppedAndOthersKeepTheirUpdates() async throws {
        let farm = try MemoryFarm()
        defer { farm.remove() }
        let feed = DashboardFeed(service: farm, clientBuffer: 3)
        let (_, stalled) = await feed.subscribe()
        let (_, reader) = await feed.subscribe()
        var received = 0
        let reading = Task {
            var n = 0
            for await message in reader where String(buffer: message).contains("event: update") { n += 1 }
            return n
        }
        for i in 0..<10 {
            await farm.setWorkers([Self.worker("w\(i)")])
            await feed.tick(now: 100 + Double(i) * 1.1)
            try await Task.sleep(for: .milliseconds(20))
        }
        let counts = feed.clientCounts
        #expect(counts.dropped == 1 && counts.connected == 1, "\(counts)")
        var stalledMessages = 0
        for await _ in stalled { stalledMessages += 1 }
        #expect(stalledMessages <= 4, "a dropped client's buffer stays bounded")
        await feed.tick(now: 200)
        feed.unsubscribe(1)
        received = await reading.value
        #expect(received >= 10)
    }

    @Test func theFirstMessageCarriesTheLivenessWindowThePageApplies() async throws {
        let farm = try MemoryFarm()
        defer { farm.remove() }
        await farm.setWorkers([Self.worker("w1")])
        let told = DashboardFeed(service: farm, livenessSeconds: 2.5)
        let (_, messages) = await told.subscribe()
        var first: String?
        for await message in messages {
            first = String(buffer: message)
            break
        }
        #expect(first?.contains("event: snapshot") == true)
        #expect(first?.contains("\"livenessSeconds\":2.5") == true, "\(first ?? "")")
        let untold = await DashboardFeed(service: farm).current()
        #expect(untold.livenessSeconds == nil, "without a window the page waits for the coordinator's word")
    }

    @Test func theStreamSendsTheSectionsThePageRenders() async throws {
        let farm = try MemoryFarm()
        defer { farm.remove() }
        await farm.setWorkers([Self.worker("w1"), Self.worker("w<2>")])
        let feed = DashboardFeed(service: farm, livenessSeconds: 2)
        let (_, messages) = await feed.subscribe()
        var first = ""
        for await message in messages {
            first = String(buffer: message)
            break
        }
        let data = try #require(first.split(separator: "\n").first { $0.hasPrefix("data: ") }?.dropFirst(6))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any])
        let sections = try #require(object["sections"] as? [String: String])
        #expect(Set(sections.keys) == ["throughput", "workers", "jobs", "maps", "errors"])
        let snapshot = await feed.current()
        let page = DashboardPage.render(snapshot, page: 1, olderJobs: nil, nonce: "n")
        for (name, html) in sections {
            #expect(html.isEmpty || page.contains(html), "section \(name) is not the page's own rendering")
        }
        #expect(sections["workers"]?.contains("w&lt;2&gt;") == true)
        #expect(sections["workers"]?.contains("data-last-seen=") == true, "the rows carry what the liveness rule reads")
        #expect(object["livenessSeconds"] as? Double == 2)
    }

    @Test func pageEscapesEverythingFromOutside() {
        let hostile = "<script>alert(1)</script>"
        var worker = Self.worker("w1")
        worker.hostname = hostile
        let snapshot = DashboardSnapshot(
            at: 0, workers: [DashboardSnapshot.Worker(worker)], jobs: [],
            throughput: .init(framesPerSecond: 0, realtime: 0, points: []),
            maps: [], errors: [.init(job: "j\"1", segment: 2, message: hostile)])
        let html = DashboardPage.render(snapshot, page: 1, olderJobs: nil, nonce: "n")
        #expect(!html.contains(hostile))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("j&quot;1"))
    }

    @Test func backupAttemptsAreCountedAndMarkedOnTheMap() {
        let segments = [SegmentStatus.State.done, .racing, .backup, .queued].enumerated().map { i, state in
            SegmentStatus(
                index: i, state: state, frames: 30, attempts: state == .queued ? 0 : 2, worker: "w\(i)",
                encodeSeconds: nil, errors: [])
        }
        let snapshot = DashboardSnapshot(
            at: 0, workers: [], jobs: [],
            throughput: .init(
                framesPerSecond: 0, realtime: 0, points: [], backups: .init(started: 3, won: 2, wasted: 1)),
            maps: [.init(job: "j1", segments: segments)], errors: [])
        let html = DashboardPage.render(snapshot, page: 1, olderJobs: nil, nonce: "n")
        #expect(html.contains("backup attempts: 3 started, 2 won, 1 wasted"))
        #expect(snapshot.maps[0].cells == "dabq")
        #expect(html.contains("1 racing") && html.contains("1 backup"), "the map's summary names them")
        #expect(html.contains("Racing: 1 on w1") && html.contains("Backup: 2 on w2"))
        // No backups yet: no figure.
        let quiet = DashboardPage.throughput(.init(framesPerSecond: 0, realtime: 0, points: []))
        #expect(!quiet.contains("backup"))
    }

    /// The job page's quality chart: well-formed SVG, a bar and a point per segment, the target dashed, a
    /// short segment marked, every figure in a title; the SSIM map's cells in their bands.
    @Test func qualityChartDrawsEverySegmentAndTheTarget() throws {
        func segment(_ i: Int, ssim: Double, bytes: Int) -> SegmentQuality {
            var stats = QualityStats(peak: 255)
            stats.add(mse: 10, planeMSE: [10, 10, 10], ssim: ssim)
            return SegmentQuality(
                index: i, stats: stats, frames: 1, span: Double(i)...Double(i + 1), bytes: bytes, encodeSeconds: 1,
                rateControl: .crf(23), crf: 20.5 + Double(i), target: TargetQuality(metric: .ssim, value: 0.97))!
        }
        let segments = [segment(0, ssim: 0.995, bytes: 90_000), segment(1, ssim: 0.96, bytes: 400_000)]
        let report = try #require(QualityReport(segments: segments, target: TargetQuality(metric: .ssim, value: 0.97)))
        let svg = QualityChart.svg(report)
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "well-formed: \(parser.parserError.map { "\($0)" } ?? "")")
        #expect(svg.components(separatedBy: "class=\"rate\"").count - 1 == 2)
        #expect(svg.components(separatedBy: "<circle").count - 1 == 2)
        #expect(svg.contains("class=\"target\"") && svg.contains("Target 0.9700"))
        #expect(svg.contains("class=\"metric short\""), "the segment under the target is marked")
        #expect(svg.contains("Segment 1: 3200 kb/s, SSIM 0.9600, CRF 21.5, short of the target by 0.01"), "\(svg)")
        let statuses = segments.map {
            SegmentStatus(
                index: $0.index, state: .done, frames: 1, attempts: 1, worker: "w", encodeSeconds: 1, errors: [],
                quality: $0)
        }
        let map = QualityChart.map(
            statuses + [
                SegmentStatus(
                    index: 2, state: .running, frames: 1, attempts: 1, worker: nil, encodeSeconds: nil, errors: [])
            ])
        #expect(map.contains("<li class=\"qa\"") && map.contains("<li class=\"qc\""))
        #expect(map.contains("Segment 2: not measured"))
        let page = DashboardPage.jobPage(
            DashboardSnapshot.Job(
                JobStatus(
                    id: "j<1>", state: .completed, priority: 0, source: "/m/a.mp4", output: "/o/a.mp4",
                    segmentsTotal: 2,
                    segmentsDone: 2, framesTotal: 2, framesDone: 2, framesPerSecond: 1, elapsedSeconds: 1,
                    etaSeconds: nil, error: nil, createdAt: 0, updatedAt: 0)),
            segments: statuses, quality: report, nonce: "n")
        #expect(page.contains("<h2>Quality</h2>") && page.contains("svg class=\"quality\""))
        #expect(!page.contains("j<1>"))
    }

    @Test func routesSignInWithACookieAndGuardTheStream() async throws {
        let farm = try MemoryFarm()
        await farm.setWorkers([Self.worker("w1")])
        let dashboard = Dashboard(feed: DashboardFeed(service: farm))
        let server = try await TestServer.start(token: "tok", farm: farm, additions: [dashboard])
        defer { Task { await server.stop() } }
        let session = URLSession(configuration: Self.noCookies)

        func send(
            _ method: String, _ path: String, body: String? = nil, headers: [String: String] = [:]
        )
            async throws -> (status: Int, headers: [AnyHashable: Any], body: String)
        {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
            request.httpMethod = method
            request.httpBody = body.map { Data($0.utf8) }
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            let (data, response) = try await session.data(for: request)
            let http = response as! HTTPURLResponse
            return (http.statusCode, http.allHeaderFields, String(decoding: data, as: UTF8.self))
        }

        #expect(try await send("GET", "/v1/events").status == 401)
        let form = try await send("GET", "/")
        #expect(form.status == 200 && form.body.contains("name=\"token\"") && !form.body.contains("data-worker"))
        // (Foundation on Linux sends a POST body as a form unless told otherwise.)
        let json = ["Content-Type": "application/json"]
        #expect(try await send("POST", "/v1/session", body: "{\"token\": \"wrong\"}", headers: json).status == 401)
        let wrongForm = try await send("POST", "/v1/session", body: "token=wrong")
        #expect(wrongForm.body.contains("not valid"), "a form is sent back to the page, which says why")
        let signIn = try await send("POST", "/v1/session", body: "{\"token\": \"tok\"}", headers: json)
        #expect(signIn.status == 200)
        let setCookie = try #require(signIn.headers["Set-Cookie"] as? String)
        let cookie = setCookie.components(separatedBy: ";")[0]
        let page = try await send("GET", "/", headers: ["Cookie": cookie])
        #expect(page.body.contains("data-worker=\"w1\""))
        #expect(page.body.contains("<script nonce="))
        for bad in ["0", "-1", "x", "9223372036854775807"] {
            #expect(try await send("GET", "/?page=\(bad)", headers: ["Cookie": cookie]).status == 400, "page=\(bad)")
        }
        #expect(try await send("GET", "/?page=3", headers: ["Cookie": cookie]).status == 200)
        #expect(
            try await send(
                "POST", "/v1/workers/w1/pause", headers: ["Cookie": cookie, "Origin": "http://evil.example"]
            )
            .status == 403, "a cookie from another origin changes nothing")
        let paused = try await send(
            "POST", "/v1/workers/w1/pause", headers: ["Cookie": cookie, "Origin": "http://127.0.0.1:\(server.port)"])
        #expect(paused.status == 200 && paused.body.contains("\"paused\""))
        #expect(
            try await send("POST", "/v1/workers/nobody/drain", headers: ["Authorization": "Bearer tok"]).status == 404)
        #expect(try await send("GET", "/v1/jobs/none/segments", headers: ["Authorization": "Bearer tok"]).status == 404)
    }

    static var noCookies: URLSessionConfiguration {
        let c = URLSessionConfiguration.ephemeral
        c.httpShouldSetCookies = false
        c.httpCookieAcceptPolicy = .never
        return c
    }

    static func worker(_ id: String) -> WorkerStatus {
        WorkerStatus(
            id: id, hostname: "host-\(id)", cores: 2, memoryBytes: 1 << 30, backends: [.cpu], encoders: ["libx264"],
            state: .idle, tasks: [], segmentsDone: 0, lastSeenSeconds: 0.1)
    }
}
