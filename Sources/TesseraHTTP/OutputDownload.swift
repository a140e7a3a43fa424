import Foundation
import Hummingbird

/// `GET /v1/jobs/{id}/output`: the finished file streamed from disk in chunks, with its length and a
/// content type from its extension; `GET /v1/jobs/{id}/package/{path}` likewise, for a player (inline).
enum OutputDownload {
    static func response(for file: URL, context: some RequestContext, inline: Bool = false) async throws -> Response {
        let body: ResponseBody
        do {
            body = try await FileIO().loadFile(path: file.path, context: context)
        } catch {
            throw FarmError(.notFound, "the output file \(file.lastPathComponent) is no longer on the coordinator")
        }
        // Response adds Content-Length from the body, which FileIO sizes from the file.
        let name = file.lastPathComponent.replacingOccurrences(of: "\"", with: "_")
        var headers: HTTPFields = [.contentType: contentType(forExtension: file.pathExtension)]
        if !inline { headers[.contentDisposition] = "attachment; filename=\"\(name)\"" }
        return Response(status: .ok, headers: headers, body: body)
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
