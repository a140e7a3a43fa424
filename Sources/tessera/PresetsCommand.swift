import ArgumentParser
import Foundation
import TesseraCore

/// `tessera presets`: the export presets and what each one encodes.
struct PresetsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "presets", abstract: "List the export presets.")

    func run() throws {
        for preset in ExportPreset.allCases {
            print(preset.rawValue.padding(toLength: 20, withPad: " ", startingAt: 0) + Self.summary(preset.settings))
        }
    }

    static func summary(_ s: OutputSettings) -> String {
        if s.passthrough { return "copy every stream unchanged" }
        var parts: [String] = []
        if let v = s.video {
            let box = v.maxWidth.map { "fit \($0)x\(v.maxHeight ?? $0)" } ?? "source size"
            parts.append("\(v.codec.rawValue) \(box) \(v.rateControl)")
        } else {
            parts.append("no video")
        }
        if let a = s.audio { parts.append("\(a.codec.rawValue) \(a.bitRate / 1000) kb/s") }
        if let t = s.fileType { parts.append(".\(t.rawValue)") }
        return parts.joined(separator: ", ")
    }
}
