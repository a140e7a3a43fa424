import Foundation

/// The language a streaming manifest names a track in: RFC 5646 (BCP 47), as HLS's `LANGUAGE` and DASH's
/// `lang` ask, from the ISO 639-2 code a media file states (`eng`, `fra`, or MKV's bibliographic `ger`).
/// The shortest form wins (`en`, `fr`, `de`); a code with no two-letter form (`und`, `yue`) stays as it is.
public enum LanguageTag {
    public static func bcp47(_ code: String) -> String {
        let lower = code.lowercased()
        let terminology = bibliographic[lower] ?? lower
        return Locale.LanguageCode(terminology).identifier(.alpha2) ?? lower
    }

    /// ISO 639-2's bibliographic codes that differ from the terminology ones.
    static let bibliographic = [
        "alb": "sqi", "arm": "hye", "baq": "eus", "bur": "mya", "chi": "zho", "cze": "ces", "dut": "nld",
        "fre": "fra", "geo": "kat", "ger": "deu", "gre": "ell", "ice": "isl", "mac": "mkd", "mao": "mri",
        "may": "msa", "per": "fas", "rum": "ron", "slo": "slk", "tib": "bod", "wel": "cym",
    ]
}
