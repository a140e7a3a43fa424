import CFFmpeg
import TesseraAV
import TesseraCore

/// Plane access for the processors: `AVFrame.data` and `linesize` import as tuples.
extension Frame {
    func plane(_ index: Int) -> UnsafeMutablePointer<UInt8>? {
        withUnsafeBytes(of: pointer.pointee.data) { $0.bindMemory(to: UnsafeMutablePointer<UInt8>?.self)[index] }
    }

    func linesize(_ index: Int) -> Int {
        withUnsafeBytes(of: pointer.pointee.linesize) { Int($0.bindMemory(to: Int32.self)[index]) }
    }

    func setPlane(_ index: Int, _ data: UnsafeMutablePointer<UInt8>?, linesize: Int) {
        withUnsafeMutableBytes(of: &pointer.pointee.data) {
            $0.bindMemory(to: UnsafeMutablePointer<UInt8>?.self)[index] = data
        }
        withUnsafeMutableBytes(of: &pointer.pointee.linesize) { $0.bindMemory(to: Int32.self)[index] = Int32(linesize) }
    }

    /// The frame's YCbCr matrix, or the usual guess for untagged video (BT.709 from 720 lines up).
    public var colorMatrix: ColorMatrix {
        let space = pointer.pointee.colorspace
        if space == AVCOL_SPC_UNSPECIFIED || space == AVCOL_SPC_RGB {
            return height >= 720 ? .bt709 : .bt601
        }
        return av_color_space_name(space).map { ColorMatrix(rawValue: String(cString: $0)) } ?? .bt709
    }

    /// The frame's colour primaries (unspecified when untagged).
    var colorPrimaries: ColorPrimaries {
        av_color_primaries_name(pointer.pointee.color_primaries).map { ColorPrimaries(rawValue: String(cString: $0)) }
            ?? .unspecified
    }

    /// Marks a tone map's output: BT.709 primaries and transfer, the source's HDR metadata removed.
    func markToneMapped() {
        for side in [AV_FRAME_DATA_MASTERING_DISPLAY_METADATA, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL] {
            av_frame_remove_side_data(pointer, side)
        }
        pointer.pointee.color_primaries = AVCOL_PRI_BT709
        pointer.pointee.color_trc = AVCOL_TRC_BT709
    }

    /// The frame's range; untagged YCbCr is limited.
    public var colorRange: ColorRange { pointer.pointee.color_range == AVCOL_RANGE_JPEG ? .full : .limited }

    var chromaLocation: ChromaLocation {
        switch pointer.pointee.chroma_location {
        case AVCHROMA_LOC_LEFT: .left
        case AVCHROMA_LOC_CENTER: .center
        case AVCHROMA_LOC_TOPLEFT: .topleft
        case AVCHROMA_LOC_TOP: .top
        case AVCHROMA_LOC_BOTTOMLEFT: .bottomleft
        case AVCHROMA_LOC_BOTTOM: .bottom
        default: .unspecified
        }
    }
}
