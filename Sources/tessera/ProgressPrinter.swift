import Foundation
import TesseraMedia

/// Progress on stderr: a redrawn bar with frames/s and ETA on a terminal, a plain line every second
/// otherwise (logs, CI).
final class ProgressPrinter: @unchecked Sendable {
    private let enabled: Bool
    private let terminal = isatty(STDERR_FILENO) != 0
    private var lastLine = Date.distantPast
    private var drewBar = false
    private let lock = NSLock()

    init(enabled: Bool) { self.enabled = enabled }

    func show(_ p: ExportProgress) {
        let eta = p.remainingSeconds.map { Self.clock($0) } ?? "--:--"
        draw(
            fraction: p.fraction,
            detail: String(format: "%6d frames  %6.1f fps  ETA %@ ", p.frames, p.framesPerSecond, eta),
            line: String(
                format: "progress %.1f%% frames=%d fps=%.1f time=%.3fs eta=%@",
                p.fraction * 100, p.frames, p.framesPerSecond, p.seconds, eta))
    }

    /// On a terminal, redraws the bar at `fraction` followed by `detail`; otherwise prints `line`
    /// at most once a second.
    func draw(fraction: Double, detail: String, line: String) {
        guard enabled else { return }
        lock.withLock {
            if terminal {
                let width = 30, filled = Int(min(1, max(0, fraction)) * Double(width))
                let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
                let text = String(format: "\r%@ %3.0f%%  ", bar, fraction * 100) + detail
                FileHandle.standardError.write(Data(text.utf8))
                drewBar = true
            } else if Date().timeIntervalSince(lastLine) >= 1 {
                lastLine = Date()
                FileHandle.standardError.write(Data((line + "\n").utf8))
            }
        }
    }

    func finish() {
        lock.withLock {
            if drewBar { FileHandle.standardError.write(Data("\n".utf8)) }
            drewBar = false
        }
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600
            ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
            : String(format: "%d:%02d", s / 60, s % 60)
    }
}
