import Foundation
import TesseraCore
import TesseraHTTP

/// Confines job paths: sources under the media roots (or in the upload store), outputs under the output
/// root. Paths are resolved (symbolic links and `..`) before they are compared, so a link out of a root
/// is refused too.
struct PathPolicy: Sendable {
    let mediaRoots: [URL]
    let outputRoot: URL?
    let uploads: URL
    let results: URL

    /// The resolved source path, or `.forbidden`/`.notFound`.
    func source(_ path: String) throws(FarmError) -> String {
        guard path.hasPrefix("/") else { throw FarmError(.invalidRequest, "source must be an absolute path: \(path)") }
        let resolved = Self.resolve(path)
        guard mediaRoots.contains(where: { Self.isInside(resolved, $0) }) || Self.isInside(resolved, uploads) else {
            throw FarmError(.forbidden, "\(path) is outside the coordinator's media roots")
        }
        guard FileManager.default.fileExists(atPath: resolved) else {
            throw FarmError(.notFound, "\(path): no such file")
        }
        return resolved
    }

    /// The absolute output path for a request's relative output (or `name` in the results folder).
    /// - Parameter fileExtension: nil for a folder (a streaming package), which may exist (it is replaced
    ///   only with overwrite) but not as a file.
    func output(_ relative: String?, name: String, fileExtension: String?) throws(FarmError) -> String {
        guard let relative, !relative.isEmpty else {
            return results.appendingPathComponent(name + (fileExtension.map { ".\($0)" } ?? "")).path
        }
        guard let root = outputRoot else {
            throw FarmError(
                .invalidRequest, "this coordinator has no output root; omit the output and use `tessera fetch`")
        }
        let joined = relative.hasPrefix("/") ? URL(fileURLWithPath: relative) : root.appendingPathComponent(relative)
        let parent = Self.resolve(joined.deletingLastPathComponent().path)
        guard Self.isInside(parent, root) else {
            throw FarmError(.forbidden, "\(relative) is outside the coordinator's output root")
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isFolder), isFolder.boolValue else {
            throw FarmError(.invalidRequest, "output: the folder of \(relative) does not exist under the output root")
        }
        let path = URL(fileURLWithPath: parent).appendingPathComponent(joined.lastPathComponent).path
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder),
            isFolder.boolValue != (fileExtension == nil)
        {
            throw FarmError(
                .invalidRequest,
                fileExtension == nil
                    ? "output: \(relative) is a file; a package is written to a folder"
                    : "output: \(relative) is a folder; give a file name")
        }
        return path
    }

    static func resolve(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Whether `path` (resolved) lies under `root`, whole components only: the one rule a worker's
    /// `--media-root` also follows.
    static func isInside(_ path: String, _ root: URL) -> Bool {
        MediaRootMapping(resolve(root.path))?.localPath(for: path) != nil
    }
}
