import ArgumentParser
import Foundation
import TesseraAV
import TesseraCore
import TesseraMedia

/// `tessera verify OUT [--against SRC] [--json]`: proves an output frame-exact, or names where it is not.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check an output's timing frame by frame: packets, decoding, frame times, A/V sync.",
        discussion: """
            Reads and decodes the whole file. Checks that the first video packet is a keyframe, DTS strictly \
            increase, PTS ≥ DTS, everything decodes, frame times increase, the first frame is a keyframe at \
            the output start, and the audio starts and ends within one audio frame of the video. With \
            --against, the output must also have exactly the source's frames at the source's times \
            (relative to each file's first frame, to one tick of the output's time base).

            With --quality (and --against), also measures the output against its source: each source frame \
            converted to the output's size and format with Tessera's CPU scaler, then PSNR and SSIM as \
            FFmpeg's psnr and ssim filters compute them, per GOP and as a whole, for any file. (VMAF needs an \
            FFmpeg built with libvmaf, which Debian's is not.)

            Exits 0 when every check passes and 65 when one fails (the first offending frame or packet is \
            named); otherwise as below.

            \(ExitStatus.helpText)
            """)

    @Argument(help: "The output file to verify.") var output: String
    @Option(help: "The source it was made from: expect exactly its frames and presentation times.")
    var against: String?
    @Flag(help: "Also measure PSNR and SSIM against --against's pictures (per GOP and in all).") var quality = false
    @Flag(help: "Print the report as JSON on stdout.") var json = false

    func validate() throws {
        if quality && against == nil { throw ValidationError("--quality measures against a source: give --against") }
    }

    /// The verification, with the quality measured when asked.
    struct Report: Encodable {
        var verification: VerificationReport
        var quality: FileQuality.Result?

        func encode(to encoder: any Encoder) throws {
            try verification.encode(to: encoder)
            var c = encoder.container(keyedBy: Key.self)
            try c.encodeIfPresent(quality, forKey: .quality)
        }
        private enum Key: String, CodingKey { case quality }
    }

    func run() throws {
        let report: VerificationReport
        let measured: FileQuality.Result?
        do {
            let verifier =
                if let against { try OutputVerifier(path: output, against: against) } else {
                    OutputVerifier(path: output)
                }
            report = try verifier.verify()
            measured = try against.flatMap { (source) throws(MediaError) in
                quality ? try FileQuality.measure(output: output, against: source) : nil
            }
        } catch {
            FileHandle.standardError.write(Data("tessera: \(error)\n".utf8))
            throw ExitCode(ExitStatus(error).rawValue)
        }
        if json {
            print(try ReportJSON.encode(Report(verification: report, quality: measured)))
        } else {
            print(Self.summary(report))
            if let measured {
                print("quality: " + (measured.quality?.summary ?? "not measured"))
                if let note = measured.note { print("  note: \(note)") }
            }
        }
        if !report.passed { throw ExitCode(ExitStatus.dataError.rawValue) }
    }

    static func summary(_ r: VerificationReport) -> String {
        var head = "\(r.path): \(r.frameCount) frames"
        if let expected = r.expectedFrameCount { head += " (expected \(expected))" }
        if let v = r.videoDuration { head += ", video \(seconds(v))" }
        if let a = r.audioDuration { head += ", audio \(seconds(a))" }
        if let offset = r.avStartOffset { head += ", A/V start offset \(seconds(offset))" }
        if let source = r.against { head += ", against \(source)" }
        var lines = [head]
        let width = r.checks.map(\.name.rawValue.count).max() ?? 0
        for check in r.checks {
            let name = check.name.rawValue.padding(toLength: width, withPad: " ", startingAt: 0)
            lines.append("  \(check.passed ? "✓" : "✗") \(name)  \(check.detail)")
        }
        lines.append(r.firstFailure.map { "FAILED: \($0)" } ?? "passed")
        return lines.joined(separator: "\n")
    }

    static func seconds(_ time: MediaTime) -> String {
        time.isNumeric ? String(format: "%.3fs", time.seconds) : "unknown"
    }
}
