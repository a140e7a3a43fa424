import TesseraCore
import Testing

@testable import TesseraCoordinator

/// The one rate book behind `/v1/farm`, `/v1/workers`, `/v1/jobs`, the dashboard and `tessera top`.
struct RateBookTests {
    @Test func ringKeepsTheLatestInOrder() {
        var ring = ThroughputRing<Int>(capacity: 3)
        for i in 1...5 { ring.append(i) }
        #expect(ring.elements == [3, 4, 5])
        #expect(ring.count == 3 && ring.first == 3 && ring.last == 5)
    }

    @Test func ratesAreTakenOverTheLastTenSeconds() {
        let book = RateBook()
        for (t, frames) in [(0.0, 0), (5.0, 100), (20.0, 100), (25.0, 400), (30.0, 700)] {
            book.record(
                produced: .init(frames: frames, mediaSeconds: Double(frames) / 30), workers: ["w1": frames / 2],
                jobs: ["j1": frames], now: t)
        }
        #expect(book.farm.framesPerSecond == 60)
        #expect(abs(book.farm.realTime - 2) < 1e-9)
        #expect(book.worker("w1") == 30 && book.job("j1") == 60)
        // One point per five seconds for the hour's chart: [time, frames/s, × real time].
        #expect(book.farm.points.map { $0[0] } == [0, 5, 20, 25, 30])
        #expect(book.farm.points.last == [30, 60, 2])
    }

    @Test func unknownAndGoneAreZeroOrNoneNotStale() {
        let book = RateBook()
        book.record(produced: .init(), workers: ["w1": 0], jobs: ["j1": 0], now: 0)
        #expect(book.job("j1") == nil, "one sample is no rate yet")
        // Samples closer than 0.1 s are skipped: a burst of reads cannot crowd the window out.
        book.record(produced: .init(frames: 5), workers: ["w1": 5], jobs: ["j1": 5], now: 0.05)
        #expect(book.job("j1") == nil)
        book.record(produced: .init(frames: 10), workers: ["w1": 10], jobs: ["j1": 10], now: 1)
        #expect(book.job("j1") == 10 && book.worker("w1") == 10)
        // A worker or job no longer listed is forgotten, so one coming back starts afresh.
        book.record(produced: .init(frames: 10), workers: [:], jobs: [:], now: 2)
        #expect(book.worker("w1") == 0 && book.job("j1") == nil && book.worker("nobody") == 0)
        // A count that goes backwards (a worker back as a new session) reads 0, never negative.
        let back = RateBook()
        back.record(produced: .init(frames: 100), workers: ["w1": 100], jobs: [:], now: 0)
        back.record(produced: .init(frames: 50), workers: ["w1": 50], jobs: [:], now: 1)
        #expect(back.farm.framesPerSecond == 0 && back.worker("w1") == 0)
    }
}
