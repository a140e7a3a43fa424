import TesseraCore

/// How output axes map onto source axes after the rotation, mirror and flips of a spec, reduced to
/// three booleans. u and v are the source's normalised x and y; dx, dy the display's:
///
/// ```
///   swap == false:  u = dx, v = dy          swap == true:  u = dy, v = dx
///   then u = 1 - u when flipU, v = 1 - v when flipV
/// ```
struct Orientation: Sendable, Hashable {
    var swap = false
    var flipU = false
    var flipV = false

    init(swap: Bool = false, flipU: Bool = false, flipV: Bool = false) {
        self.swap = swap
        self.flipU = flipU
        self.flipV = flipV
    }

    /// - Parameters:
    ///   - rotation: clockwise; its mirror is applied to the source before rotating.
    ///   - flipHorizontal/flipVertical: applied in display space after rotating.
    init(rotation: Rotation, flipHorizontal: Bool, flipVertical: Bool) {
        switch rotation.degrees {
        case 90: self.init(swap: true, flipV: true)  // source top edge → display right edge
        case 180: self.init(flipU: true, flipV: true)
        case 270: self.init(swap: true, flipU: true)
        default: self.init()
        }
        if rotation.mirrored { flipU.toggle() }
        // A display-space flip reverses whichever source axis that display axis reads.
        if flipHorizontal { if swap { flipV.toggle() } else { flipU.toggle() } }
        if flipVertical { if swap { flipU.toggle() } else { flipV.toggle() } }
    }

    var isIdentity: Bool { !swap && !flipU && !flipV }
}
