import Foundation
import Hummingbird

/// Files from disk, streamed in chunks with their length and a content type from their extension:
/// `GET /v1/jobs/{id}/output` (an attachment), `GET /v1/jobs/{id}/package/{path}` (inline, for a player)
/// and `GET /v1/media/{path}` (a source, for workers that read it themselves). Each honours one byte
/// range (`Range: bytes=a-b`, `a-` or `-n`) with 206 and `Content-Range`, as players and libavformat's
/// HTTP reader ask; a range past the end is 416.
enum OutputDownload {
    static func response(
        for file: URL, request: Request, context: some RequestContext, inline: Bool = false
    ) async throws -> Response {
        let size = ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber)?.int64Value
        guard let size else {
            throw FarmError(.notFound, "the file \(file.lastPathComponent) is no longer on the coordinator")
        }
        // Response adds Content-Length from the body, which FileIO sizes from the file or the range.
        let name = file.lastPathComponent.replacingOccurrences(of: "\"", with: "_")
        var headers: HTTPFields = [.contentType: contentType(forExtension: file.pathExtension), .acceptRanges: "bytes"]
        if !inline { headers[.contentDisposition] = "attachment; filename=\"\(name)\"" }
        let range: ClosedRange<Int64>?
        switch ByteRange.parse(request.headers[.range], size: size) {
        case .whole: range = nil
        case .part(let r): range = r
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
        let body: ResponseBody
        do {
            if let range {
                body = try await FileIO().loadFile(
                    path: file.path, range: Int(range.lowerBound)...Int(range.upperBound), context: context)
                headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
            } else {
                body = try await FileIO().loadFile(path: file.path, context: context)
            }
        } catch {
            throw FarmError(.notFound, "the file \(file.lastPathComponent) is no longer on the coordinator")
        }
        return Response(status: range == nil ? .ok : .partialContent, headers: headers, body: body)
    }

    static func contentType(forExtension ext: String) -> String {
        switch ext.lowercased() {
        case "mp4", "m4v": "video/mp4"
        case "mov", "qt": "video/quicktime"
        case "mkv": "video/x-matroska"
        case "webm": "video/webm"
        case "m4a": "audio/mp4"
        case "json": "application/json"
        case "m3u8": "application/vnd.apple.mpegurl"
        case "mpd": "application/dash+xml"
        case "m4s": "video/iso.segment"
        default: "application/octet-stream"
        }
    }
}
