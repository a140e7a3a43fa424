import ArgumentParser
import Foundation
import TesseraCoordinator

/// The scheduling model on measured segment costs (README.md): a film on N unlike workers, driven through
/// the coordinator's own TaskBoard, lease rules, backup attempts and tail re-cut on a virtual clock.
@main
struct FarmModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera-farm-model",
        abstract: "How long a film takes on N workers, and where the rest of the time goes.")

    @Argument(help: "Measured costs (measure.py's JSON).") var input: String
    @Option(help: "Worker counts, comma-separated.") var workers = "1,16,32,64,128,256"
    @Option(help: "Seconds of content in the film.") var filmSeconds = 7200.0
    @Option(help: "unlike (half at 0.5×, 2 % at 0.1×, 1 % dying) or alike.") var mix = "unlike"
    @Option(help: "packets, source or both.") var transport = "both"
    @Option(help: "Backup attempts: on or off.") var backups = "on"
    @Option(help: "The last round re-cut for the workers (balance) or left whole (keep).") var tail = "balance"
    @Option(help: "Segment costs from wall or cpu seconds.") var times = "wall"
    @Option(help: "The coordinator's link, Gbit/s each way.") var linkGbps = 10.0
    @Option(help: "The coordinator's disk, MB/s: planning's read of the film, the producer's, the spool.")
    var diskMbps = 500.0
    @Option(help: "The coordinator's cores: its audio encode runs in chunks on them (1: whole).")
    var coordinatorCores = 16
    @Option(
        help: """
            The coordinator's CPU seconds to check a second of each result before it counts (0: left out). \
            0.12 was measured on the development machine for the sample's job (1080p30 → 720p, 4 s segments).
            """)
    var checkSeconds = 0.0
    @Option(help: "Random seed for the film's segments and the workers' speeds.") var seed: UInt64 = 1
    @Flag(help: "Print the reports as JSON.") var json = false

    func run() throws {
        guard let data = FileManager.default.contents(atPath: input) else {
            throw ValidationError("cannot read \(input): no such file, or not readable")
        }
        let measured: FarmModel.Input
        do { measured = try JSONDecoder().decode(FarmModel.Input.self, from: data) } catch {
            throw ValidationError("\(input) is not the model's input (measure.py's JSON): \(error)")
        }
        let counts = workers.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !counts.isEmpty, counts.allSatisfy({ $0 >= 1 }) else { throw ValidationError("--workers: e.g. 1,16,64") }
        let transports: [FarmModel.Transport] =
            transport == "both"
            ? FarmModel.Transport.allCases : [FarmModel.Transport(rawValue: transport)].compactMap { $0 }
        guard !transports.isEmpty else { throw ValidationError("--transport: packets, source or both") }
        guard ["unlike", "alike"].contains(mix), ["on", "off"].contains(backups), ["balance", "keep"].contains(tail),
            ["wall", "cpu"].contains(times), linkGbps > 0, diskMbps > 0, (1...1024).contains(coordinatorCores),
            checkSeconds >= 0, checkSeconds.isFinite
        else {
            throw ValidationError(
                "--mix unlike|alike, --backups on|off, --tail balance|keep, --times wall|cpu, --coordinator-cores 1…1024, "
                    + "--check-seconds ≥ 0"
            )
        }
        var reports: [FarmModel.Report] = []
        for t in transports {
            for n in counts {
                var options = FarmModel.Options(workers: n)
                options.filmSeconds = filmSeconds
                options.mix = mix == "unlike" ? .unlike : .alike
                options.transport = t
                options.backups = backups == "on" ? BackupPolicy() : nil
                options.recutTail = tail == "balance"
                options.cpuTimes = times == "cpu"
                options.linkBytesPerSecond = linkGbps * 1e9 / 8
                options.seed = seed
                options.coordinatorCores = coordinatorCores
                options.checkSecondsPerContentSecond = checkSeconds
                options.diskBytesPerSecond = diskMbps * 1e6
                do { reports.append(try FarmModel.run(measured, options)) } catch {
                    throw ValidationError(error.description)
                }
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(["runs": reports]), as: UTF8.self))
            return
        }
        let causes = ["plan", "feed", "link", "check", "tail", "wasted", "stitch", "audio"]
        func row(_ cells: [String]) -> String {
            zip(cells, [7, 10, 10, 7] + Array(repeating: 7, count: causes.count) + [14, 10, 10, 5]).map { cell, width in
                String(repeating: " ", count: max(0, width - cell.count)) + cell
            }.joined(separator: " ")
        }
        for t in transports {
            print("\n\(t.rawValue) transport, \(mix) workers, backups \(backups), tail \(tail), \(times) times:")
            print(
                row(
                    ["workers", "makespan", "ideal", "eff"] + causes + [
                        "backups s/w/x", "sent/seg", "recv/seg", "dead",
                    ]))
            for r in reports where r.transport == t {
                print(
                    row(
                        [
                            "\(r.workers)", String(format: "%.0f s", r.makespan), String(format: "%.0f s", r.ideal),
                            String(format: "%.1f%%", 100 * r.efficiency),
                        ] + causes.map { String(format: "%.1f%%", 100 * (r.lost[$0] ?? 0)) } + [
                            "\(r.backups.started)/\(r.backups.won)/\(r.backups.wasted)",
                            String(format: "%.0f kB", r.sentBytesPerSegment / 1e3),
                            String(format: "%.0f kB", r.receivedBytesPerSegment / 1e3), "\(r.deadWorkers)",
                        ]))
            }
        }
    }
}
