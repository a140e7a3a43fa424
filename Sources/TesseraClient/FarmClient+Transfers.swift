import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Files to and from the coordinator, streamed: neither direction holds a whole file in memory.
extension FarmClient {
    /// Sends a local file to the coordinator's upload store and answers its id, for
    /// `JobRequest.uploadID`. The file is read in chunks as it is sent.
    public func upload(file: URL) async throws -> String {
        struct Answer: Decodable { var uploadID: String }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue,
              FileManager.default.isReadableFile(atPath: file.path)
        else {
            throw ClientError(.cannotRead, "cannot read \(file.path): no such file, or not a readable file")
        }
        var request = try request("POST", "v1/uploads")
        var components = URLComponents(url: request.url!, resolvingAgainstBaseURL: false)
        components?.percentEncodedQuery = "filename=" + Self.queryValue(file.lastPathComponent)
        request.url = components?.url
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await session.upload(for: request, fromFile: file)
        } catch {
            throw ClientError.unreachable(baseURL, error)
        }
        let answer: Answer = try decodeAnswer(data, response)
        return answer.uploadID
    }

    /// Saves a completed job's output at `destination`. The bytes go to a hidden temporary file beside
    /// it, renamed into place only when the whole file has arrived; on any failure nothing is left.
    ///
    /// - Parameter overwrite: replace an existing file at `destination`; without it an existing file
    ///   is an error and is left alone.
    /// - Returns: the number of bytes written.
    @discardableResult
    public func download(jobID: String, to destination: URL, overwrite: Bool = false) async throws -> Int64 {
        let manager = FileManager.default
        if !overwrite, manager.fileExists(atPath: destination.path) {
            throw ClientError(.cannotWrite, "\(destination.path) already exists; allow overwriting to replace it")
        }
        let temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString.prefix(8)).partial")
        guard manager.createFile(atPath: temporary.path, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporary.path)
        else {
            throw ClientError(.cannotWrite, "cannot write in \(destination.deletingLastPathComponent().path)")
        }
        do {
            let request = try request("GET", "v1/jobs/\(Self.segment(jobID))/output")
            let result = try await DownloadSink(file: handle).run(request, configuration: session.configuration)
            try handle.close()
            if let error = result.transportError { throw ClientError.unreachable(baseURL, error) }
            guard (200..<300).contains(result.status) else {
                throw errorAnswer(status: result.status, body: result.errorBody)
            }
            if let expected = result.expectedLength, expected >= 0, expected != result.written {
                throw ClientError(.unreachable, "the download of \(jobID) from \(baseURL.absoluteString) ended "
                    + "after \(result.written) of \(expected) bytes")
            }
            if !overwrite, manager.fileExists(atPath: destination.path) {
                throw ClientError(.cannotWrite, "\(destination.path) appeared during the download; left alone")
            }
            guard rename(temporary.path, destination.path) == 0 else {
                throw ClientError(.cannotWrite, "cannot move the download to \(destination.path): "
                    + String(cString: strerror(errno)))
            }
            return result.written
        } catch {
            try? handle.close()
            try? manager.removeItem(at: temporary)
            if let error = error as? ClientError { throw error }
            throw ClientError(.cannotWrite, "cannot write \(temporary.path): \(error)")
        }
    }

    /// A query value with everything but unreserved characters percent-encoded ("&", "+", "=" included).
    static func queryValue(_ text: String) -> String {
        let unreserved = CharacterSet(
            charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
