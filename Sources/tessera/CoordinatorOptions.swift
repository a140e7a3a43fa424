import ArgumentParser
import Foundation
import TesseraClient
import TesseraWire

/// Where the coordinator is and how to authenticate, shared by the commands that talk to one.
struct CoordinatorOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The coordinator's HTTP address (default: $TESSERA_COORDINATOR, else "
                + "http://127.0.0.1:8080).", valueName: "url"))
    var coordinator: String?
    @Option(help: "The API token (default: $TESSERA_TOKEN).") var token: String?
    @Option(help: ArgumentHelp("Read the API token from this file (its first line).", valueName: "file"))
    var tokenFile: String?

    func validate() throws {
        guard let url = URL(string: address), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            url.host != nil
        else {
            throw ValidationError("--coordinator '\(address)' is not an http:// or https:// address")
        }
        if token != nil && tokenFile != nil { throw ValidationError("give --token or --token-file, not both") }
        _ = try resolvedToken()
    }

    var address: String {
        coordinator ?? ProcessInfo.processInfo.environment["TESSERA_COORDINATOR"] ?? "http://127.0.0.1:8080"
    }

    func resolvedToken() throws -> String? {
        if let tokenFile {
            do throws(WireError) {
                guard FileManager.default.fileExists(atPath: tokenFile) else {
                    throw WireError(.keys, "cannot read --token-file \(tokenFile): no such file")
                }
                if let warning = try SecretFilePermissions.check(tokenFile, what: "token file") {
                    FileHandle.standardError.write(Data("tessera: warning: \(warning)\n".utf8))
                }
            } catch {
                throw ValidationError(error.message)
            }
            guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
                throw ValidationError("cannot read --token-file \(tokenFile)")
            }
            let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            guard !line.isEmpty else { throw ValidationError("--token-file \(tokenFile) is empty") }
            return line.trimmingCharacters(in: .whitespaces)
        }
        return token ?? ProcessInfo.processInfo.environment["TESSERA_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    func client(timeout: TimeInterval = 60) throws -> CoordinatorClient {
        guard let url = URL(string: address) else { throw ValidationError("--coordinator '\(address)' is not a URL") }
        return CoordinatorClient(baseURL: url, token: try resolvedToken(), timeout: timeout)
    }

    /// Runs client calls. A `ClientError` is printed as `tessera: …` and becomes its exit status
    /// (ExitStatus+Farm).
    func perform<T: Sendable>(_ work: @Sendable (CoordinatorClient) async throws -> T) async throws -> T {
        let client = try client()
        do {
            return try await work(client)
        } catch let error as ClientError {
            throw failure(error.description, ExitStatus(error))
        }
    }
}

/// Prints `tessera: message` on stderr and answers the exit code to throw.
func failure(_ message: String, _ status: ExitStatus) -> ExitCode {
    FileHandle.standardError.write(Data("tessera: \(message)\n".utf8))
    return ExitCode(status.rawValue)
}
