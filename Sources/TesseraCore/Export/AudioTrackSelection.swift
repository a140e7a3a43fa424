/// Which of a source's audio tracks an export transcodes. Without a selection every audio track is
/// transcoded, as AVAssetExportSession keeps every track; with one, a track is kept when its number
/// (the stream index `tessera probe` shows) or its language is listed.
public struct AudioTrackSelection: Sendable, Hashable, Codable {
    /// Track numbers as `tessera probe` shows them (the container's stream index).
    public var tracks: [Int]
    /// ISO 639 language codes as the container tags them (`eng`, `fra`), compared without case.
    public var languages: [String]

    public init(tracks: [Int] = [], languages: [String] = []) {
        self.tracks = tracks
        self.languages = languages
    }

    /// True when nothing is listed: every audio track.
    public var isEmpty: Bool { tracks.isEmpty && languages.isEmpty }

    /// Whether a track with this number and language tag is chosen.
    public func includes(track: Int, language: String?) -> Bool {
        if isEmpty || tracks.contains(track) { return true }
        guard let language = language?.lowercased() else { return false }
        return languages.contains { $0.lowercased() == language }
    }

    /// `--audio-track 1 --audio-language fra` as a person would read it.
    public var description: String {
        (tracks.map { "track \($0)" } + languages.map { "language \($0)" }).joined(separator: ", ")
    }

    private enum CodingKeys: String, CodingKey { case tracks, languages }

    /// Both lists are optional in JSON.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            tracks: try c.decodeIfPresent([Int].self, forKey: .tracks) ?? [],
            languages: try c.decodeIfPresent([String].self, forKey: .languages) ?? [])
    }
}

extension AudioTrackSelection {
    /// One of a source's audio tracks, as the selection sees it.
    public struct Candidate: Sendable {
        public var id: Int
        public var language: String?
        /// How a refusal names it ("track 1 (eng, aac 48000 Hz)").
        public var description: String
        public init(id: Int, language: String?, description: String) {
            self.id = id
            self.language = language
            self.description = description
        }
    }

    /// Why the selection would write none of a source's audio tracks; nil when it takes one (or the source
    /// has none). The one wording, whether an export or a farm's submission asks.
    public func refusal(_ tracks: [Candidate]) -> String? {
        guard !tracks.isEmpty, !tracks.contains(where: { includes(track: $0.id, language: $0.language) }) else {
            return nil
        }
        return "no audio track matches \(description); the source's audio tracks are: "
            + tracks.map(\.description).joined(separator: "; ")
    }
}
