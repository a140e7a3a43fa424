import CFFmpeg
import TesseraAV
import TesseraCore

extension ExportSession {
    /// What the source holds that this export will not write, one line each, for the report and a
    /// warning: every stream other than the chosen video and audio tracks (a second audio track, subtitles,
    /// attachments, data), and chapters. A track the settings leave out on purpose (no audio asked for) is
    /// not listed; everything else the output loses is named, never dropped silently.
    static func notCarried(_ reader: AssetReader, settings: OutputSettings) -> [String] {
        let chosen: Set<Int> = [reader.videoTrackID, reader.audioTrackID].compactMap { $0 }.reduce(into: []) { $0.insert($1) }
        var lines: [String] = []
        for stream in reader.input.streams {
            let st = stream.pointee, index = Int(st.index)
            let type = st.codecpar.pointee.codec_type
            if chosen.contains(index) { continue }
            if type == AVMEDIA_TYPE_AUDIO && settings.audio == nil { continue }
            if type == AVMEDIA_TYPE_VIDEO && settings.video == nil { continue }
            let kind: String
            switch type {
            case AVMEDIA_TYPE_VIDEO: kind = st.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 ? "cover picture" : "video"
            case AVMEDIA_TYPE_AUDIO: kind = "audio"
            case AVMEDIA_TYPE_SUBTITLE: kind = "subtitle"
            case AVMEDIA_TYPE_ATTACHMENT: kind = "attachment"
            case AVMEDIA_TYPE_DATA: kind = "data"
            default: kind = "stream"
            }
            let tags = Asset.dictionary(st.metadata)
            var details = [String(cString: avcodec_get_name(st.codecpar.pointee.codec_id))]
            if let language = tags["language"], language != "und" { details.append(language.logSafe(limit: 16)) }
            if let title = tags["title"] ?? tags["filename"] { details.append("\"\(title.logSafe(limit: 48))\"") }
            lines.append("track \(index): \(kind) (\(details.joined(separator: ", "))) is not carried: "
                         + "this export writes one video and one audio track")
        }
        let chapters = Int(reader.input.context.pointee.nb_chapters)
        if chapters > 0 { lines.append("\(chapters) chapter\(chapters == 1 ? "" : "s") not carried") }
        return lines
    }
}
