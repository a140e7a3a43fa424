import ArgumentParser
import TesseraAV

/// Process exit codes (sysexits.h values, so scripts can tell the cause apart).
enum ExitStatus: Int32 {
    case success = 0
    /// Bad arguments (ArgumentParser's own validation also exits 64).
    case usage = 64
    /// The input is not usable media: empty, garbage, corrupt, truncated, or unsupported.
    case dataError = 65
    /// The input file does not exist.
    case noInput = 66
    /// The output cannot be created: it exists without --overwrite, or its directory is missing.
    case cantCreate = 73
    /// EX_IOERR: reading or writing failed below the media layer (disk full, I/O error).
    case ioError = 74
    /// Anything else (an FFmpeg failure with no better explanation, a failed verification).
    case software = 70
    /// The coordinator cannot be reached, or answered that it cannot serve now.
    case unavailable = 69
    /// The coordinator answered something the API does not promise.
    case protocolError = 76
    /// The coordinator refused the token, or forbade the request (e.g. a source outside its media roots).
    case noPermission = 77
    /// Interrupted by the user (or, for farm commands, the job was cancelled).
    case interrupted = 130

    static let helpText = """
        Exit status: 0 success; 64 bad arguments; 65 unusable input (empty, not media, corrupt, truncated, \
        unsupported codec); 66 input not found; 70 internal, FFmpeg or GPU failure; 73 output cannot be written \
        (exists without --overwrite, missing directory); 74 I/O error (disk full); 130 interrupted.
        """

    init(_ error: MediaError) {
        switch error.kind {
        case .notFound: self = .noInput
        case .emptyFile, .notMedia, .corrupt, .unsupported: self = .dataError
        case .outputExists, .outputLocation: self = .cantCreate
        case .invalidArgument: self = .usage
        case .cancelled: self = .interrupted
        case .ffmpeg, .verificationFailed, .device, .internal: self = .software
        case .io: self = .ioError
        }
    }

    /// A `MediaError`'s status; any other error is internal.
    init(_ error: any Error) {
        self = (error as? MediaError).map(ExitStatus.init) ?? .software
    }
}
