import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Receives one download's body into a file as it arrives (URLSession's data-task delegate), so the
/// file never sits whole in memory. An error answer's (small JSON) body is kept in memory instead.
///
/// `@unchecked Sendable`: URLSession calls the delegate methods one at a time on the session's serial
/// delegate queue, and `run` only reads the state after the completion callback; the lock makes those
/// hand-offs explicit.
final class DownloadSink: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    struct Result: Sendable {
        var status = 0
        var expectedLength: Int64?
        var written: Int64 = 0
        var errorBody = Data()
        var transportError: (any Error)?
    }

    private let file: FileHandle
    private let lock = NSLock()
    private var result = Result()
    private var writeError: (any Error)?
    private var continuation: CheckedContinuation<Result, any Error>?

    init(file: FileHandle) { self.file = file }

    /// Runs the request to its end; throws only when writing the file failed.
    func run(_ request: URLRequest, configuration: URLSessionConfiguration) async throws -> Result {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                lock.withLock { self.continuation = continuation }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        lock.withLock {
            result.status = (response as? HTTPURLResponse)?.statusCode ?? 0
            result.expectedLength = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock {
            guard writeError == nil else { return }
            guard (200..<300).contains(result.status) else {
                if result.errorBody.count < 64 * 1024 { result.errorBody.append(data) }
                return
            }
            do {
                try file.write(contentsOf: data)
                result.written += Int64(data.count)
            } catch {
                writeError = error
                dataTask.cancel()
            }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, outcome): (CheckedContinuation<Result, any Error>?, Swift.Result<Result, any Error>) =
            lock.withLock {
                defer { self.continuation = nil }
                if let writeError { return (self.continuation, .failure(writeError)) }
                result.transportError = error
                return (self.continuation, .success(result))
            }
        continuation?.resume(with: outcome)
    }
}
