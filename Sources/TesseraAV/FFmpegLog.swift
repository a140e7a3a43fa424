import CFFmpeg

/// How much libav* itself prints to stderr. Tessera reports errors in its own words, so the CLI
/// keeps the libraries quiet unless asked (`TESSERA_FFMPEG_LOG=warning|info|debug`).
public enum FFmpegLog {
    public static func configure(fromEnvironment value: String?) {
        let level: Int32
        switch value?.lowercased() {
        case "debug": level = AV_LOG_DEBUG
        case "info": level = AV_LOG_INFO
        case "warning": level = AV_LOG_WARNING
        case "error": level = AV_LOG_ERROR
        default: level = AV_LOG_QUIET
        }
        av_log_set_level(level)
    }
}
