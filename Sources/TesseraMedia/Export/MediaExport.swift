import TesseraAV
import TesseraCompute
import TesseraCore

/// What an export is to the one who runs it (the CLI, a farm's job runner), whatever it makes the file
/// from: a source (`ExportSession`) or a composition (`CompositionExport`). Both run their segments
/// through the one `SegmentedEngine`, locally or on a farm's executor.
public protocol MediaExport: AnyObject, Sendable {
    var outputPath: String { get }
    /// Replace an existing output instead of refusing.
    var overwrite: Bool { get set }
    /// Which colour/scale backend converts the frames.
    var backend: ProcessingBackend { get set }
    /// Cut into segments about this many seconds of output long; nil makes the file in one pass.
    var segmentDuration: Double? { get set }
    /// Segments made at once by local threads.
    var parallel: Int { get set }
    /// How a segmented export proves its video.
    var verificationLevel: VerificationLevel { get set }
    /// A quality every segment reaches with the fewest bits (a rate-factor search per segment); an export
    /// in one pass is then cut into segments of `TargetQuality.defaultSegmentSeconds`.
    var targetQuality: TargetQuality? { get set }
    /// Whether interlaced video is deinterlaced before it is processed (`.auto`: when the source says
    /// it is interlaced).
    var deinterlace: Deinterlace { get set }
    /// What becomes of an HDR source's range: kept where the output can carry it, tone-mapped to SDR
    /// where it cannot (`.auto`).
    var hdr: HDRHandling { get set }
    /// Deliver a streaming package to the folder `outputPath` instead of one file (always segmented).
    var package: PackageRequest? { get set }
    /// Who makes the segments: nil runs them on `parallel` local threads; a farm passes its dispatcher.
    var makeSegmentExecutor: (@Sendable (_ plan: [SegmentSpec]) throws(MediaError) -> any SegmentExecutor)? {
        get set
    }
    /// Called from the exporting thread as the job moves through its phases.
    var phaseHandler: (@Sendable (ExportPhase) -> Void)? { get set }
    /// Called from the exporting thread as frames are made (or stitched).
    var progressHandler: (@Sendable (ExportProgress) -> Void)? { get set }
    /// Makes the file; blocks until it is written and verified. Nothing is left at `outputPath` on any error.
    func export() throws(MediaError) -> ExportReport
    /// Stops a running export; it throws `.cancelled` and leaves no output.
    func cancel()
}

extension ExportSession: MediaExport {}
extension CompositionExport: MediaExport {}
