import Foundation
import TesseraAV
import TesseraCore

/// Where a job is, as `ExportSession.phaseHandler` reports it (a farm job's states follow these).
public enum ExportPhase: String, Sendable {
    /// Indexing packets and cutting segments.
    case planning
    /// Segments are being transcoded (and stitched as they arrive, in order).
    case running
    /// Every segment is in; the file is being finished (audio tail, index).
    case stitching
    /// The finished temporary file is being checked before it is put in place.
    case verifying
}
