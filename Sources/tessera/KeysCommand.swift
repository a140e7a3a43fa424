import ArgumentParser
import Foundation
import TesseraWire

/// `tessera keys generate --out PREFIX`: a CURVE key pair for a coordinator or a worker.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Manage the farm's CURVE keys.", subcommands: [Generate.self])

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate a CURVE key pair.",
            discussion: """
                Writes PREFIX.key (public and secret key, mode 0600: keep it on the machine that uses it) and \
                PREFIX.pub (public key only: give the coordinator's to its workers, and each worker's to the \
                coordinator's --allowed-keys).
                """)

        @Option(help: "Path prefix of the two files, e.g. keys/worker-1.") var out: String
        @Flag(help: "Replace existing files.") var overwrite = false

        func run() throws {
            for path in [out + ".key", out + ".pub"] where FileManager.default.fileExists(atPath: path) && !overwrite {
                FileHandle.standardError.write(Data("tessera: \(path) exists (use --overwrite to replace it)\n".utf8))
                throw ExitCode(ExitStatus.cantCreate.rawValue)
            }
            let pair = try CurveKeyPair.generate()
            _ = try pair.save(prefix: out)
            print(pair.publicKey)
        }
    }
}
