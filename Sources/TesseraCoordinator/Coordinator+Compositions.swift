import Foundation
import TesseraAV
import TesseraCore
import TesseraHTTP
import TesseraMedia

/// Compositions on the farm: a request carrying a spec (`JobRequest.spec`) instead of a source.
extension Coordinator {
    /// Checks a composition's request as a source's is checked: every asset under the media roots and
    /// probed, the spec against its assets (edits inside them, render size, frame rate, transforms), the
    /// settings against the container and the encoders; then queues it.
    func submit(_ request: JobRequest, composition spec: CompositionSpec) async throws(FarmError) -> JobStatus {
        var spec = spec
        for i in spec.assets.indices {
            do throws(FarmError) { spec.assets[i].path = try policy.source(spec.assets[i].path) } catch {
                throw FarmError(error.kind, "spec.assets[\(i)].path: \(error.message)")
            }
        }
        // The request's settings or preset stand in for a spec that names neither.
        if spec.settings == nil && spec.preset == nil {
            spec.settings = request.settings
            spec.preset = request.preset
        }
        let settings = spec.settings ?? spec.preset.flatMap(ExportPreset.init(name:))?.settings ?? .standard
        var withType = settings
        if let type = request.fileType { withType.fileType = type }
        let type = withType.fileType ?? request.output.flatMap(FileType.inferred(fromPath:)) ?? .mp4
        guard type != .m4a else { throw FarmError(.invalidRequest, "fileType: a composition is video; not m4a") }
        try await checkEncoding(withType, fileType: type)
        let output = try outputPath(request, fileType: type)
        let made = try await preflight(
            .composition(spec, output: output, hdr: request.hdr ?? .auto), segmentDuration: request.segmentDuration)
        do throws(JobRequestError) {
            let (width, height, perSegment) = (made.renderWidth ?? 0, made.renderHeight ?? 0, made.framesPerSegment)
            // And fits the memory of some worker taking work, as it announced it (none connected: not known).
            let need = SegmentLayer.memoryEstimate(width: width, height: height, frames: perSegment)
            let largest = workerStatuses.filter { $0.state.takesWork }.map(\.memoryBytes).max()
            if let largest, largest > 0, UInt64(clamping: need) > largest {
                throw JobRequestError(
                    field: "spec.videoComposition.renderSize",
                    "\(width)x\(height) in segments of \(perSegment) frames needs about \(need >> 20) MiB; "
                        + "the largest worker connected announced \(largest >> 20) MiB")
            }
        } catch {
            throw FarmError(.invalidRequest, error.description)
        }
        var stored = request
        stored.spec = spec
        stored.fileType = type
        return try await enqueue(
            stored, source: spec.assets.map(\.path).joined(separator: ", "), output: output,
            what: "a composition of \(spec.assets.count) assets")
    }
}
