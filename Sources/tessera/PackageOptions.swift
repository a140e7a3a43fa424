import ArgumentParser
import TesseraCore

/// `--package hls,dash --rendition 1280x720:3M … [--ladder auto] [--package-segment 6s]`: deliver an
/// adaptive-streaming package to the folder OUT instead of one file.
struct PackageOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Write an adaptive-streaming package to the folder OUT: hls, dash or hls,dash (CMAF segments, "
                + "master.m3u8 and/or manifest.mpd).", valueName: "FORMATS"))
    var package: String?
    @Option(
        help: ArgumentHelp(
            "A rendition of the package, WxH:RATE[:CODEC] (e.g. 1280x720:3M, 1920x1080:4M:hevc); repeat it. "
                + "Sizes are boxes the picture fits in, never enlarged.", valueName: "WxH:RATE[:CODEC]"))
    var rendition: [String] = []
    @Option(help: ArgumentHelp("auto: Apple's ladder, capped at the source's size.", valueName: "auto"))
    var ladder: String?
    @Option(help: ArgumentHelp("Seconds per media segment, 1 to 30 (default 6), e.g. 6 or 6s.", valueName: "SECONDS"))
    var packageSegment: String?

    /// The package asked for, or nil.
    /// - Throws: `ValidationError` naming the flag that cannot be read or breaks a rule.
    func request() throws -> PackageRequest? {
        guard let package else {
            if !rendition.isEmpty || ladder != nil || packageSegment != nil {
                throw ValidationError("--rendition, --ladder and --package-segment go with --package hls[,dash]")
            }
            return nil
        }
        if let ladder, ladder != "auto" { throw ValidationError("--ladder takes auto, not '\(ladder)'") }
        if ladder != nil && !rendition.isEmpty { throw ValidationError("give --ladder auto or --rendition, not both") }
        do throws(JobRequestError) {
            var seconds = 6.0
            if let text = packageSegment {
                let number = text.hasSuffix("s") ? String(text.dropLast()) : text
                guard let s = Double(number), s.isFinite else {
                    throw JobRequestError(field: "--package-segment", "\(JobRequestError.quoted(text)) is not seconds")
                }
                seconds = s
            }
            let request = PackageRequest(
                formats: try PackageFormat.list(package, field: "--package"),
                renditions: try rendition.map { (r) throws(JobRequestError) in
                    try Rendition(parsing: r, field: "--rendition")
                }, segmentDuration: seconds, ladder: ladder != nil)
            try request.check(field: "--package")
            return request
        } catch {
            throw ValidationError(error.description)
        }
    }
}
