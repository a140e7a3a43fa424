import CFFmpeg
import TesseraAV
import TesseraCore

extension HDRMetadata {
    /// What a stream's side data states (a container's mdcv/clli boxes, Matroska's colour elements, a
    /// Dolby Vision configuration record); nil when none.
    static func read(stream: UnsafeMutablePointer<AVStream>) -> HDRMetadata? {
        var hdr = HDRMetadata()
        var size = 0
        if let data = av_stream_get_side_data(stream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &size),
            size >= MemoryLayout<AVMasteringDisplayMetadata>.size
        {
            hdr.masteringDisplay = Self.masteringDisplay(
                UnsafeRawPointer(data).load(as: AVMasteringDisplayMetadata.self))
        }
        if let data = av_stream_get_side_data(stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, &size),
            size >= MemoryLayout<AVContentLightMetadata>.size
        {
            let light = UnsafeRawPointer(data).load(as: AVContentLightMetadata.self)
            (hdr.maxContentLightLevel, hdr.maxFrameAverageLightLevel) = (Int(light.MaxCLL), Int(light.MaxFALL))
        }
        if let data = av_stream_get_side_data(stream, AV_PKT_DATA_DOVI_CONF, &size),
            size >= MemoryLayout<AVDOVIDecoderConfigurationRecord>.size
        {
            hdr.dolbyVisionProfile = Int(
                UnsafeRawPointer(data).load(as: AVDOVIDecoderConfigurationRecord.self).dv_profile)
        }
        return hdr.isEmpty ? nil : hdr
    }

    /// A video track's HDR metadata: `known` (its stream's side data) completed from the track's first
    /// decoded frame, since HEVC and AV1 carry ST 2086 and CTA-861.3 in their frames, not the container.
    /// Nil when nothing is stated; a frame that cannot be decoded adds nothing.
    static func completing(_ known: HDRMetadata?, firstFrameOf path: String, track: Int) -> HDRMetadata? {
        FirstFrames.read(path: path, track: track, knownHDR: known, frames: 1).hdr
    }

    /// What a decoded frame's side data adds: `self` with the frame's values where it had none.
    func adding(frame: Frame) -> HDRMetadata {
        var hdr = self
        let f = frame.pointer
        if hdr.masteringDisplay == nil, let side = av_frame_get_side_data(f, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA),
            Int(side.pointee.size) >= MemoryLayout<AVMasteringDisplayMetadata>.size
        {
            hdr.masteringDisplay = Self.masteringDisplay(
                UnsafeRawPointer(side.pointee.data).load(as: AVMasteringDisplayMetadata.self))
        }
        if hdr.maxContentLightLevel == nil, let side = av_frame_get_side_data(f, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL),
            Int(side.pointee.size) >= MemoryLayout<AVContentLightMetadata>.size
        {
            let light = UnsafeRawPointer(side.pointee.data).load(as: AVContentLightMetadata.self)
            (hdr.maxContentLightLevel, hdr.maxFrameAverageLightLevel) = (Int(light.MaxCLL), Int(light.MaxFALL))
        }
        if av_frame_get_side_data(f, AV_FRAME_DATA_DYNAMIC_HDR_PLUS) != nil { hdr.hdr10Plus = true }
        if hdr.dolbyVisionProfile == nil, av_frame_get_side_data(f, AV_FRAME_DATA_DOVI_RPU_BUFFER) != nil {
            hdr.dolbyVisionProfile = 0
        }
        return hdr
    }

    private static func masteringDisplay(_ m: AVMasteringDisplayMetadata) -> MasteringDisplay? {
        guard m.has_primaries != 0 || m.has_luminance != 0 else { return nil }
        func value(_ r: AVRational) -> Double { r.den != 0 ? Double(r.num) / Double(r.den) : 0 }
        let p = m.display_primaries
        return MasteringDisplay(
            primaries: [[value(p.0.0), value(p.0.1)], [value(p.1.0), value(p.1.1)], [value(p.2.0), value(p.2.1)]],
            whitePoint: [value(m.white_point.0), value(m.white_point.1)], minLuminance: value(m.min_luminance),
            maxLuminance: value(m.max_luminance))
    }
}
