import Foundation
import TesseraCore

/// Reads `--spec FILE`: a JSON job spec, or an OpenTimelineIO timeline (`.otio`) turned into one. Asset
/// paths in it are taken relative to the file's folder.
enum SpecFile {
    struct LoadError: Error, CustomStringConvertible {
        var status: ExitStatus
        var description: String
    }

    /// The most a spec file may hold.
    static let maxBytes = 16 << 20

    static func load(_ path: String) throws(LoadError) -> (CompositionSpec, [String]) {
        let url = URL(fileURLWithPath: path)
        let data: Data
        do {
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            guard size <= maxBytes else {
                throw LoadError(
                    status: .dataError, description: "\(path): \(size) bytes; a spec holds at most \(maxBytes)")
            }
            data = try Data(contentsOf: url)
        } catch let error as LoadError {
            throw error
        } catch {
            throw LoadError(
                status: .noInput, description: "\(path): cannot read the spec (\(error.localizedDescription))")
        }
        let spec: CompositionSpec
        if url.pathExtension.lowercased() == "otio" {
            do throws(JobRequestError) { spec = try CompositionSpec(otio: data) } catch {
                throw LoadError(status: .dataError, description: "\(path): \(error)")
            }
        } else {
            do { spec = try JSONDecoder().decode(CompositionSpec.self, from: data) } catch let error as DecodingError {
                throw LoadError(
                    status: .dataError, description: "\(path): does not match the spec's schema: \(describe(error))")
            } catch {
                throw LoadError(status: .dataError, description: "\(path): \(error)")
            }
        }
        let paths = spec.assets.map { asset in
            asset.path.hasPrefix("/") ? asset.path : resolve(asset.path, beside: path)
        }
        return (spec, paths)
    }

    /// A relative asset path read against the real folder of the spec file at `specPath`: made absolute
    /// before `..` is applied (a relative URL standardized on its own drops a leading `..`), and the folder's
    /// symbolic links resolved first, so `..` climbs out of the folder the file is really in, as the kernel
    /// would.
    static func resolve(_ relative: String, beside specPath: String) -> String {
        let absolute =
            specPath.hasPrefix("/") ? specPath : FileManager.default.currentDirectoryPath + "/" + specPath
        let folder = URL(fileURLWithPath: absolute).deletingLastPathComponent().resolvingSymlinksInPath()
        return URL(fileURLWithPath: folder.path + "/" + relative).standardizedFileURL.path
    }

    /// A decoding error as a field path and what was wrong there.
    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            let parts: [String] = keys.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
            let joined = parts.joined()
            return joined.hasPrefix(".") ? String(joined.dropFirst()) : joined
        }
        switch error {
        case .keyNotFound(let key, let c): return "\(path(c.codingPath + [key])) is missing"
        case .typeMismatch(_, let c), .valueNotFound(_, let c):
            return "\(path(c.codingPath)): \(c.debugDescription)"
        case .dataCorrupted(let c):
            return c.codingPath.isEmpty
                ? "not JSON (\(c.debugDescription))" : "\(path(c.codingPath)): \(c.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
