import TesseraCore

/// Output settings for tests that compare two encodes byte for byte.
///
/// libx264's mb-tree lookahead (on from `veryfast` down) does not always reproduce its output from the
/// same input frames on this machine: frames dumped at the encoder's input were identical run to run
/// while the packets differed, and the ffmpeg CLI shows it too (`-preset veryfast -threads 2`, one run in
/// six differed). `superfast` has no mb-tree and no rate-control lookahead, and was identical in every
/// run, so a byte comparison at this speed tests Tessera, not x264's scheduling.
enum X264Reproducibility {
    static var settings: OutputSettings {
        var s = ExportPreset.preset640x480.settings
        s.video?.speed = "superfast"
        return s
    }
}
