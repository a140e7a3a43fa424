import Foundation

/// A folder a worker reads sources from itself (`tessera worker --media-root LOCAL[=COORDINATOR]`): the
/// coordinator's path for it, and where it is mounted here. Tasks for sources under `coordinator` may
/// come by reference (PROTOCOL.md §7).
public struct MediaRootMapping: Sendable, Equatable {
    public var local: String
    public var coordinator: String

    /// Parses `LOCAL` (the same path on both sides) or `LOCAL=COORDINATOR`; both absolute.
    public init?(_ text: String) {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let first = parts.first, let local = Self.normalized(first),
            let coordinator = Self.normalized(parts.count == 2 ? parts[1] : first)
        else { return nil }
        self.local = local
        self.coordinator = coordinator
    }

    /// An absolute path without `.` or `..` components or a trailing slash; nil when it is not one.
    static func normalized(_ path: String) -> String? {
        guard path.hasPrefix("/") else { return nil }
        let parts = path.split(separator: "/")
        guard !parts.contains(where: { $0 == "." || $0 == ".." }) else { return nil }
        return "/" + parts.joined(separator: "/")
    }

    /// Where the coordinator's `path` is here, when it lies under this root (whole components only).
    public func localPath(for path: String) -> String? {
        guard let path = Self.normalized(path) else { return nil }
        if path == coordinator { return local }
        let prefix = coordinator == "/" ? "/" : coordinator + "/"
        guard path.hasPrefix(prefix) else { return nil }
        return (local == "/" ? "/" : local + "/") + path.dropFirst(prefix.count)
    }
}

extension Array where Element == MediaRootMapping {
    /// The first root `path` lies under, mapped here.
    public func localPath(for path: String) -> String? { lazy.compactMap { $0.localPath(for: path) }.first }
}
