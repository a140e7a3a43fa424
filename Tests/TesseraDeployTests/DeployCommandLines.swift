import Foundation
import TesseraTestSupport

/// The `tessera coordinator|worker|keys …` command lines written in Deploy/: in the Dockerfile, systemd
/// units and README as text (continuation lines joined), in compose.yaml and the Kubernetes manifests
/// as each container's entrypoint/command/args (and the scripts of `sh -c` entrypoints).
struct DeployCommandLine {
    /// Deploy-relative path of the file it is written in.
    let file: String
    /// `["coordinator"]`, `["worker"]`, `["keys", "generate"]`.
    let subcommand: [String]
    /// Everything after the subcommand.
    let arguments: [String]

    static let subcommands: Set<String> = ["coordinator", "worker", "keys"]

    /// Names of the `--flags` (without `=value`).
    var flags: [String] {
        arguments.filter { $0.hasPrefix("--") }.map { String($0.split(separator: "=", maxSplits: 1)[0]) }
    }

    /// The value given to `flag` (`--flag value` or `--flag=value`), if any.
    func value(of flag: String) -> String? {
        for (i, argument) in arguments.enumerated() {
            if argument.hasPrefix(flag + "=") { return String(argument.dropFirst(flag.count + 1)) }
            if argument == flag, i + 1 < arguments.count { return arguments[i + 1] }
        }
        return nil
    }

    /// Every command line in the Deploy folder.
    static func all(in deploy: URL) throws -> [DeployCommandLine] {
        var found: [DeployCommandLine] = []
        for file in try DeployFiles.list(deploy) {
            let relative = DeployFiles.relative(file, to: deploy)
            if file.pathExtension == "yaml" {
                for argv in try DeployFiles.containerCommands(in: file) {
                    found += fromArgv(argv, file: relative)
                }
            } else {
                found += fromScript(try String(contentsOf: file, encoding: .utf8), file: relative)
            }
        }
        return found
    }

    /// A container's argv: tessera itself, or a shell whose `-c` script runs it.
    static func fromArgv(_ argv: [String], file: String) -> [DeployCommandLine] {
        guard let program = argv.first else { return [] }
        if ["sh", "bash"].contains(basename(program)), let c = argv.firstIndex(of: "-c"), c + 1 < argv.count {
            return fromScript(argv[(c + 1)...].joined(separator: "\n"), file: file)
        }
        return commandLine(in: argv, file: file).map { [$0] } ?? []
    }

    /// Command lines in shell-like text; comment markers are dropped so documented examples count too.
    static func fromScript(_ text: String, file: String) -> [DeployCommandLine] {
        let joined = text.replacingOccurrences(of: "\\\n", with: " ")
        var found: [DeployCommandLine] = []
        for line in joined.split(separator: "\n") {
            let uncommented = line.drop { $0 == " " || $0 == "#" }
            var command: [String] = []
            for token in tokens(String(uncommented)) + [";"] {
                if [";", "&&", "||", "|"].contains(token) {
                    if let hit = commandLine(in: command, file: file) { found.append(hit) }
                    command = []
                } else {
                    command.append(token)
                }
            }
        }
        return found
    }

    /// The command line starting at the first `tessera` (or a `…/tessera:tag` image) followed by a
    /// farm subcommand.
    private static func commandLine(in tokens: [String], file: String) -> DeployCommandLine? {
        for i in tokens.indices.dropLast() where isTessera(tokens[i]) && subcommands.contains(tokens[i + 1]) {
            var path = [tokens[i + 1]]
            var rest = Array(tokens[(i + 2)...])
            if path == ["keys"], let action = rest.first, !action.hasPrefix("-") {
                path.append(action)
                rest.removeFirst()
            }
            return DeployCommandLine(file: file, subcommand: path, arguments: rest)
        }
        return nil
    }

    private static func isTessera(_ token: String) -> Bool {
        let name = basename(token)
        return name == "tessera" || name.hasPrefix("tessera:")
    }

    private static func basename(_ path: String) -> String {
        String(path.split(separator: "/").last ?? Substring(path))
    }

    /// Splits like a shell: whitespace outside quotes, quotes removed, `;` at a word's end its own token.
    static func tokens(_ line: String) -> [String] {
        var result: [String] = [], word = "", quote: Character? = nil, inWord = false
        for ch in line {
            if let q = quote {
                if ch == q { quote = nil } else { word.append(ch) }
            } else if ch == "\"" || ch == "'" {
                quote = ch
                inWord = true
            } else if ch == " " || ch == "\t" {
                if inWord { result.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(ch)
                inWord = true
            }
        }
        if inWord { result.append(word) }
        return result.flatMap { $0.count > 1 && $0.hasSuffix(";") ? [String($0.dropLast()), ";"] : [$0] }
    }
}
