/// Decides what the event stream sends on each poll: the sections that changed since they were last
/// sent, at most one message per `minimumGap` seconds (changes arriving sooner wait and go together), and
/// a heartbeat after `heartbeat` seconds without a message, so a page can tell a quiet farm from a dead
/// coordinator.
struct FeedCoalescer: Sendable {
    enum Message: Sendable, Equatable {
        /// The sections, by name, as JSON, in the order given.
        case update([(name: String, json: String)])
        case heartbeat

        static func == (a: Message, b: Message) -> Bool {
            switch (a, b) {
            case (.heartbeat, .heartbeat): true
            case (.update(let x), .update(let y)): x.map(\.name) == y.map(\.name) && x.map(\.json) == y.map(\.json)
            default: false
            }
        }
    }

    let minimumGap: Double
    let heartbeat: Double
    private var sent: [String: String] = [:]
    private var lastSentAt = -Double.infinity

    init(minimumGap: Double = 1, heartbeat: Double = 2) {
        self.minimumGap = minimumGap
        self.heartbeat = heartbeat
    }

    /// Whether a message may go now (the gap since the last one has passed).
    func mayPost(at now: Double) -> Bool { now - lastSentAt >= minimumGap }

    /// What to send now, given the sections as they are now (those left out are taken as unchanged);
    /// nil for nothing.
    mutating func next(_ sections: [(name: String, json: String)], at now: Double) -> Message? {
        guard mayPost(at: now) else { return nil }
        let changed = sections.filter { sent[$0.name] != $0.json }
        if !changed.isEmpty {
            for s in changed { sent[s.name] = s.json }
            lastSentAt = now
            return .update(changed)
        }
        if now - lastSentAt >= heartbeat {
            lastSentAt = now
            return .heartbeat
        }
        return nil
    }
}
