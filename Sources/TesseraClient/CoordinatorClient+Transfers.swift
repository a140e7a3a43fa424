import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Files to and from the coordinator, streamed: neither direction holds a whole file in memory.
extension CoordinatorClient {
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

    /// Saves a completed job's output at `destination`, renamed into place only once the whole
    /// file has arrived; on any failure nothing is left beside it.
    ///
    /// URLSession streams the body into a file in the system's temporary folder (`$TMPDIR`; memory
    /// stays flat, unlike a data delegate, which it feeds without back-pressure). That file moves to
    /// a hidden temporary name beside `destination` — a rename on the same file system, a copy
    /// otherwise — and is then renamed over it.
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
        let request = try request("GET", "v1/jobs/\(Self.segment(jobID))/output")
        let (staged, response): (URL, URLResponse)
        do {
            (staged, response) = try await session.download(for: request)
        } catch {
            throw ClientError.unreachable(baseURL, error)
        }
        defer { try? manager.removeItem(at: staged) }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            let body = (try? FileHandle(forReadingFrom: staged).read(upToCount: 64 * 1024)) ?? nil
            throw errorAnswer(status: status, body: body ?? Data())
        }
        let size = ((try? manager.attributesOfItem(atPath: staged.path))?[.size] as? NSNumber)?.int64Value ?? -1
        if response.expectedContentLength >= 0, size != response.expectedContentLength {
            throw ClientError(
                .unreachable,
                "the download of \(jobID) from \(baseURL.absoluteString) ended after "
                    + "\(size) of \(response.expectedContentLength) bytes")
        }
        let temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString.prefix(8)).partial")
        do {
            try manager.moveItem(at: staged, to: temporary)
            if !overwrite, manager.fileExists(atPath: destination.path) {
                throw ClientError(.cannotWrite, "\(destination.path) appeared during the download; left alone")
            }
            guard rename(temporary.path, destination.path) == 0 else {
                throw ClientError(
                    .cannotWrite,
                    "cannot move the download to \(destination.path): "
                        + String(cString: strerror(errno)))
            }
            return size
        } catch {
            try? manager.removeItem(at: temporary)
            if let error = error as? ClientError { throw error }
            throw ClientError(.cannotWrite, "cannot write \(temporary.path): \(error.localizedDescription)")
        }
    }

    /// A query value with everything but unreserved characters percent-encoded ("&", "+", "=" included).
    static func queryValue(_ text: String) -> String {
        let unreserved = CharacterSet(
            charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
