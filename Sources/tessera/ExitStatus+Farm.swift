import TesseraClient

/// Exit codes of the commands that talk to a coordinator (submit, status, watch, cancel, workers, fetch).
extension ExitStatus {
    static let farmHelpText = """
        Exit status: 0 success; 64 bad arguments or a request the coordinator calls invalid; 66 no such \
        job, or the file to upload is missing; 69 coordinator unreachable or unavailable; 70 the job failed \
        or another error; 73 the output cannot be written (exists without --overwrite); 76 unexpected answer \
        from the coordinator; 77 token refused or request forbidden; 130 the job was cancelled.
        """

    init(_ error: ClientError) {
        switch error.kind {
        case .unreachable: self = .unavailable
        case .unauthorized: self = .noPermission
        case .unexpectedAnswer: self = .protocolError
        case .cannotRead: self = .noInput
        case .cannotWrite: self = .cantCreate
        case .rejected(let status, _):
            switch status {
            case 400, 413: self = .usage
            case 403: self = .noPermission
            case 404: self = .noInput
            case 409: self = .cantCreate
            case 503: self = .unavailable
            default: self = .software
            }
        }
    }
}
