import ArgumentParser

/// The `tessera` command: one binary for transcoding, probing and (later) the farm's processes.
@main
struct Tessera: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "Frame-exact transcoding on FFmpeg's libraries.",
        discussion: ExitStatus.helpText,
        subcommands: [PresetsCommand.self, ProbeCommand.self])
}
