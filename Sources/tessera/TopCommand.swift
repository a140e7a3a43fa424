import ArgumentParser
import Foundation
import TesseraClient

#if canImport(Glibc)
import Glibc
#endif

/// `tessera top`: a live view of the farm in the terminal.
struct TopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "top",
        abstract: "A live view of the farm: frames/s, × real time, queue, and a row per worker.",
        discussion: """
            Redraws about once a second; q quits. Rows are sorted by frames per second, with "+N more" when \
            they do not fit. On a pipe, or with NO_COLOR set, it prints plain text (a snapshot a second, no \
            escape codes). When the coordinator cannot be reached it says so and keeps trying.

            \(ExitStatus.farmHelpText)
            """)

    @OptionGroup var coordinator: CoordinatorOptions
    @Flag(help: "Print one snapshot and exit.") var once = false
    @Flag(help: "With --once: the snapshot as JSON.") var json = false
    @Option(help: "Seconds between redraws (rates are the coordinator's, over its last ten seconds).")
    var interval = 1.0

    func validate() throws {
        guard interval >= 0.1, interval <= 60 else { throw ValidationError("--interval must be 0.1 to 60 seconds") }
        if json && !once { throw ValidationError("--json goes with --once") }
    }

    func run() async throws {
        // A live view waits a few seconds for an answer, not a minute: then it says the coordinator is away.
        let client = try coordinator.client(timeout: max(2, min(10, 3 * interval)))
        if once {
            do {
                let view = try await Self.sample(client)
                print(json ? try ReportJSON.encode(view) : view.lines(width: 200, height: 1000).joined(separator: "\n"))
            } catch let error as ClientError {
                throw failure(error.description, ExitStatus(error))
            }
            return
        }
        let fancy = isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
        let keys = fancy && isatty(STDIN_FILENO) == 1 ? RawKeys() : nil
        defer { keys?.restore() }
        let out = FileHandle.standardOutput
        if fancy { out.write(Data("\u{1B}[?1049h\u{1B}[?25l".utf8)) }
        defer { if fancy { out.write(Data("\u{1B}[?25h\u{1B}[?1049l".utf8)) } }
        if fancy { out.write(Data("\u{1B}[H\u{1B}[2Jconnecting to \(client.baseURL.absoluteString)…".utf8)) }
        var unreachableSince: Date?
        while !(keys?.quitRequested ?? false) {
            var screen: [String]
            let (width, height) = Self.terminalSize()
            do {
                screen = try await Self.sample(client).lines(width: width, height: height - 1)
                unreachableSince = nil
            } catch {
                let since = unreachableSince ?? Date()
                unreachableSince = since
                screen = [
                    String(
                        "coordinator \(client.baseURL.absoluteString) unreachable, retrying "
                            + "(for \(Int(Date().timeIntervalSince(since))) s)".prefix(width))
                ]
            }
            let text =
                fancy
                ? "\u{1B}[H\u{1B}[2J" + screen.joined(separator: "\n") + "\n(q quits)"
                : screen.joined(separator: "\n") + "\n\n"
            out.write(Data(text.utf8))
            // Sleep in small steps so q is answered at once.
            let until = Date().addingTimeInterval(interval)
            while Date() < until, !(keys?.quitRequested ?? false) { try await Task.sleep(for: .milliseconds(50)) }
        }
    }

    /// One after the other, not as two `async let`s: when one request failed, leaving the scope cancelled
    /// the other, and a cancelled URLSession request on Linux can wait for ever (CI saw the dead-port view
    /// stay on "connecting…" for 20 s).
    static func sample(_ client: CoordinatorClient) async throws -> TopView {
        let summary = try await client.summary()
        let workers = try await client.workers()
        return TopView(summary: summary, workers: workers)
    }

    static func terminalSize() -> (Int, Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(size.ws_col), Int(size.ws_row))
    }
}

/// The terminal's input in raw mode (no echo, a key at a time), read on a thread of its own; `q`
/// (or Ctrl-C) asks to quit. `restore()` puts the terminal back.
final class RawKeys: @unchecked Sendable {
    private var saved = termios()
    private let quit = NSLock()
    private var quitting = false

    init?() {
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return nil }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return nil }
        let thread = Thread { [self] in
            var byte: UInt8 = 0
            while read(STDIN_FILENO, &byte, 1) == 1 {
                if byte == UInt8(ascii: "q") || byte == UInt8(ascii: "Q") || byte == 3 {
                    quit.withLock { quitting = true }
                    return
                }
            }
            quit.withLock { quitting = true }
        }
        thread.name = "tessera.top.keys"
        thread.start()
    }

    var quitRequested: Bool { quit.withLock { quitting } }

    func restore() { _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
}
