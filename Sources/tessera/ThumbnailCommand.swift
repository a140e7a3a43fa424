import ArgumentParser
import Foundation
import TesseraAV
import TesseraCore
import TesseraMedia

/// `tessera thumbnail FILE --at 2s -o a.png`: a still of the video at a time (`ImageGenerator`).
struct ThumbnailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail", abstract: "Write a PNG still of the frame on screen at a time.",
        discussion: "Prints the time of the frame it used (the latest at or before --at).\n" + ExitStatus.helpText)

    @Argument(help: "The source media file.") var source: String
    @Option(help: "The time, e.g. 2s, 00:00:01.5, 45f@30.") var at: String
    @Option(name: .shortAndLong, help: "The PNG file to write.") var output: String
    @Option(help: "Fit inside WxH, e.g. 320x180 (aspect kept, never enlarged).") var maxSize: String?
    @Flag(help: "Replace OUT if it exists.") var overwrite = false
    @Flag(help: "Print the result as JSON.") var json = false

    func validate() throws {
        guard let time = MediaTime(string: at), time.isNumeric, time >= .zero else {
            throw ValidationError("--at '\(at)' is not a time at or after 0, e.g. 2s")
        }
        if let maxSize, Self.size(maxSize) == nil { throw ValidationError("--max-size must be WxH, e.g. 320x180") }
    }

    static func size(_ text: String) -> (width: Int, height: Int)? {
        guard let (w, h) = MediaText.size(text), w <= ImageGenerator.maximumSide, h <= ImageGenerator.maximumSide
        else { return nil }
        return (w, h)
    }

    func run() throws {
        let url = URL(fileURLWithPath: output)
        if !overwrite, FileManager.default.fileExists(atPath: url.path) {
            throw failure("\(output) exists; add --overwrite to replace it", .cantCreate)
        }
        let generator = ImageGenerator(path: source)
        generator.maximumSize = maxSize.flatMap(Self.size)
        let image: ImageGenerator.Image
        do { image = try generator.image(at: MediaTime(string: at)!) } catch {
            FileHandle.standardError.write(Data("tessera: \(error)\n".utf8))
            throw ExitCode(ExitStatus(error).rawValue)
        }
        do { try image.png.write(to: url, options: .atomic) } catch {
            throw failure("cannot write \(output): \(error.localizedDescription)", .cantCreate)
        }
        let actual = image.actualTime.seconds
        if json {
            struct Report: Encodable {
                var output: String
                var width: Int
                var height: Int
                /// Exact, as value/timescale.
                var actualTime: String
                var actualSeconds: Double
            }
            print(
                try ReportJSON.encode(
                    Report(
                        output: url.path, width: image.width, height: image.height,
                        actualTime: "\(image.actualTime)", actualSeconds: actual)))
        } else {
            print(String(format: "wrote %@, %dx%d, the frame at %.3fs", url.path, image.width, image.height, actual))
        }
    }
}
