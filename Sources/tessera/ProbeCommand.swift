import ArgumentParser
import Foundation
import TesseraAV
import TesseraCore
import TesseraMedia

/// `tessera probe FILE [--json]`: what a media file holds — container, timing, tracks, keyframes.
struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Show a media file's container, tracks, formats and keyframes.",
        discussion: "Reads every packet (without decoding) to index keyframes and measure frame steps.\n\n"
            + ExitStatus.helpText)

    @Argument(help: "The media file to probe.")
    var file: String

    @Flag(help: "Print the whole asset as one JSON object with sorted keys.")
    var json = false

    /// How many keyframe times the human summary lists per track.
    static let keyframesShown = 8

    func run() throws {
        let asset: Asset
        do {
            asset = try Asset.load(file)
        } catch {
            FileHandle.standardError.write(Data("tessera: \(error)\n".utf8))
            throw ExitCode(ExitStatus(error).rawValue)
        }
        print(json ? try Self.json(asset) : Self.summary(asset))
    }

    static func json(_ asset: Asset) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(asset), as: UTF8.self)
    }

    static func summary(_ asset: Asset) -> String {
        var lines = [asset.path]
        lines.append("  container   \(asset.container) (\(asset.containerLongName))")
        lines.append("  duration    \(seconds(asset.duration))")
        lines.append("  start       \(seconds(asset.startTime))")
        if let rate = asset.bitRate { lines.append("  bit rate    \(rate / 1000) kb/s") }
        for (n, (key, value)) in asset.metadata.sorted(by: { $0.key < $1.key }).enumerated() {
            lines.append((n == 0 ? "  metadata    " : "              ") + "\(key)=\(value)")
        }
        if let timecode = asset.timecode { lines.append("  timecode    \(timecode)") }
        for (n, chapter) in asset.chapters.enumerated() {
            lines.append(
                (n == 0 ? "  chapters    " : "              ")
                    + "\(seconds(chapter.start)) – \(seconds(chapter.end))" + (chapter.title.map { "  \($0)" } ?? ""))
        }
        for track in asset.tracks {
            lines.append(contentsOf: describe(track, index: asset.keyframeIndexes[track.trackID]))
        }
        return lines.joined(separator: "\n")
    }

    static func describe(_ track: AssetTrack, index: KeyframeIndex?) -> [String] {
        var head = "track \(track.trackID): \(track.mediaType.rawValue) \(track.codec)"
        var lines: [String] = []
        if let v = track.video {
            if let profile = v.profile { head += " (\(profile))" }
            head += ", \(v.width)x\(v.height), \(v.pixelFormat), \(String(format: "%.3f", v.nominalFrameRate)) fps"
            if v.isVariableFrameRate { head += " variable" }
            let c = v.color
            var detail = "    colour \(c.matrix)/\(c.primaries)/\(c.transfer) \(c.range.rawValue) range"
            detail += ", chroma \(c.chromaLocation.rawValue), SAR \(v.sampleAspectRatio), "
            if v.rotation == .none {
                detail += "no rotation"
            } else {
                let size = v.displaySize
                detail +=
                    "rotation \(v.rotation.degrees)° clockwise" + (v.rotation.mirrored ? ", mirrored" : "")
                    + " (displayed \(size.width)x\(size.height))"
            }
            if v.hasBFrames { detail += ", B-frames" }
            if let order = v.fieldOrder {
                detail += order == .progressive ? ", progressive" : ", interlaced (field order \(order.rawValue))"
            }
            if let scan = v.fieldScan, let found = scan.detected, found.isInterlaced {
                detail +=
                    "; the pictures look interlaced (\(found.rawValue): idet finds \(scan.topFieldFirst + scan.bottomFieldFirst) "
                    + "of \(scan.frames) frames interlaced) though the stream \(v.fieldOrder == nil ? "does not say" : "says progressive"): "
                    + "give --deinterlace bwdif"
            }
            lines.append(detail)
            if let hdr = v.hdr { lines.append("    HDR " + Self.describe(hdr)) }
            if v.closedCaptions { lines.append("    closed captions: CEA-608/708 (A/53) in the video") }
            lines.append(
                "    frame duration nominal \(fraction(v.nominalFrameDuration)), average "
                    + "\(fraction(v.averageFrameDuration)), min \(fraction(v.minFrameDuration))"
                    + (v.level.map { ", level \($0)" } ?? ""))
        }
        if let a = track.audio {
            if let profile = a.profile { head += " (\(profile))" }
            head += ", \(a.sampleRate) Hz, \(a.channelCount) ch \(a.channelLayout), \(a.sampleFormat)"
            if a.frameSize > 0 { head += ", \(a.frameSize) samples/frame" }
        }
        if let rate = track.bitRate { head += ", \(rate / 1000) kb/s" }
        var timing =
            "    time base \(track.timeBase.numerator)/\(track.timeBase.denominator), start "
            + "\(seconds(track.timeRange.start)), duration \(seconds(track.timeRange.duration))"
        if let frames = track.frameCount { timing += ", \(frames) \(track.mediaType == .video ? "frames" : "packets")" }
        if track.isDefault { timing += ", default" }
        if let language = track.language { timing += ", language \(language)" }
        lines.insert(contentsOf: [head, timing], at: 0)
        if let index {
            let times = index.keyframes.prefix(keyframesShown).map { String(format: "%.3f", $0.time.seconds) }
            var line = "    keyframes \(index.keyframes.count)"
            if index.unindexedKeyframeCount > 0 {
                line += " (+\(index.unindexedKeyframeCount) with no presentation time)"
            }
            if !times.isEmpty { line += ": " + times.joined(separator: ", ") }
            if index.keyframes.count > keyframesShown { line += ", …" }
            lines.append(line)
        }
        return lines
    }

    /// A video's HDR metadata on one line: mastering display, light levels, dynamic metadata.
    static func describe(_ hdr: HDRMetadata) -> String {
        var parts: [String] = []
        if let m = hdr.masteringDisplay {
            let xy = (m.primaries + [m.whitePoint]).map { $0.map { String(format: "%.4f", $0) }.joined(separator: ",") }
            parts.append(
                "mastering display R(\(xy[0])) G(\(xy[1])) B(\(xy[2])) WP(\(xy[3])) "
                    + String(format: "L(%g–%g cd/m²)", m.minLuminance, m.maxLuminance))
        }
        if let cll = hdr.maxContentLightLevel {
            parts.append("MaxCLL \(cll), MaxFALL \(hdr.maxFrameAverageLightLevel ?? 0) cd/m²")
        }
        if let profile = hdr.dolbyVisionProfile {
            parts.append(profile > 0 ? "Dolby Vision profile \(profile)" : "Dolby Vision")
        }
        if hdr.hdr10Plus { parts.append("HDR10+ dynamic metadata") }
        return parts.joined(separator: "; ")
    }

    /// A time for people: seconds with milliseconds, or what kind of non-number it is.
    static func seconds(_ time: MediaTime) -> String {
        time.isNumeric ? String(format: "%.3f s", time.seconds) : "unknown"
    }

    static func fraction(_ time: MediaTime) -> String {
        time.isNumeric ? "\(time.value)/\(time.timescale) s" : "unknown"
    }
}
