import CFFmpeg

/// An error from reading, processing or writing media, with a message a user can act on.
///
/// Every error names the file it is about when there is one, so `description` reads
/// `"clip.mp4: truncated: …"`.
public struct MediaError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, Codable {
        /// The input path does not exist or is not a regular file.
        case notFound
        /// The input file has no bytes.
        case emptyFile
        /// libavformat does not recognise the file as media.
        case notMedia
        /// The file is media but damaged (corrupt or truncated data).
        case corrupt
        /// A codec, pixel format or combination Tessera cannot handle.
        case unsupported
        /// The output exists and overwriting was not asked for.
        case outputExists
        /// The output cannot be created there (missing directory, no permission).
        case outputLocation
        /// A setting or argument is out of range (e.g. a time range outside the asset).
        case invalidArgument
        /// Stopped on request.
        case cancelled
        /// An FFmpeg call failed in a way none of the above explains.
        case ffmpeg
        /// The GPU device or its driver failed (Vulkan: no memory on the device, a lost device, a
        /// pipeline that would not build).
        case device
        /// Reading or writing a file failed below the media layer (disk full, I/O error, no permission
        /// mid-write).
        case io
        /// Out of memory, or a broken invariant: nothing about the input or the settings explains it.
        case `internal`
        /// The finished output failed its timing/decoding verification.
        case verificationFailed
    }

    public var kind: Kind
    public var path: String?
    public var message: String
    /// The libav* error code behind this error, if any.
    public var code: Int32?

    public init(_ kind: Kind, path: String? = nil, _ message: String, code: Int32? = nil) {
        self.kind = kind
        self.path = path
        self.message = message
        self.code = code
    }

    public var description: String {
        if let path { return "\(path): \(message)" }
        return message
    }

    /// The same error, naming `path` if it did not name a file yet.
    public func about(_ path: String) -> MediaError {
        var copy = self
        if copy.path == nil { copy.path = path }
        return copy
    }
}

/// FFmpeg's text for an error code (`av_err2str` is a macro over a compound literal).
public func ffErrorString(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    av_strerror(code, &buffer, buffer.count)
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Checks a libav* return code: negative codes become a `MediaError` naming the operation.
///
/// `AVERROR_INVALIDDATA` maps to `.corrupt`, decoder/demuxer-not-found to `.unsupported`,
/// `ENOENT` to `.notFound`, `ENOMEM` to `.internal`, `EIO`/`ENOSPC`/`EDQUOT` to `.io`; anything else
/// is `.ffmpeg`.
@discardableResult
public func ff(_ code: Int32, _ operation: @autoclosure () -> String) throws(MediaError) -> Int32 {
    guard code < 0 else { return code }
    let text = ffErrorString(code)
    let kind: MediaError.Kind
    switch code {
    case tessera_AVERROR_INVALIDDATA(): kind = .corrupt
    case tessera_AVERROR_DECODER_NOT_FOUND(): kind = .unsupported
    case tessera_AVERROR(ENOENT): kind = .notFound
    case tessera_AVERROR(ENOMEM): kind = .internal
    case tessera_AVERROR(EIO), tessera_AVERROR(ENOSPC), tessera_AVERROR(EDQUOT): kind = .io
    default: kind = .ffmpeg
    }
    throw MediaError(kind, "\(operation()) failed: \(text)", code: code)
}
