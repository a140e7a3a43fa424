import CFFmpeg
import Foundation
import TesseraAV
import TesseraCore
import Testing

@testable import TesseraCompute

/// Where a composition's layer lands: the processor's spec (size, turn) and the position, and the
/// drawing of the processed picture on the render, cut to its edges.
struct LayerPlacementTests {
    typealias Transform = CompositionSpec.Transform

    func place(
        _ w: Int, _ h: Int, sar: (Int, Int) = (1, 1), rotation: Rotation = .none, render: (Int, Int) = (640, 360),
        _ transform: Transform? = nil
    ) throws -> LayerPlacement {
        try LayerPlacement(
            sourceWidth: w, sourceHeight: h, sampleAspect: sar, rotation: rotation, renderWidth: render.0,
            renderHeight: render.1, transform: transform)
    }

    @Test func fittedPicturesKeepTheirAspectRatioAndAreCentred() throws {
        let wide = try place(1920, 1080, render: (640, 480))
        #expect([wide.spec.outputWidth, wide.spec.outputHeight, wide.x, wide.y] as [Int] == [640, 360, 0, 60])
        // Shot rotated: portrait once upright, 202 px wide (even), centred on an even column.
        let portrait = try place(1920, 1080, rotation: Rotation(degrees: 90))
        #expect(
            [portrait.spec.outputWidth, portrait.spec.outputHeight, portrait.x, portrait.y] as [Int] == [
                202, 360, 218, 0,
            ])
        #expect(portrait.spec.rotation == Rotation(degrees: 90))
        // A DVD's anamorphic pixels (720x480 at 32:27 is 853x480 square): as wide as the render.
        let dvd = try place(720, 480, sar: (32, 27))
        #expect([dvd.spec.outputWidth, dvd.spec.outputHeight, dvd.x, dvd.y] as [Int] == [640, 360, 0, 0])
        // A wild aspect ratio from a file is bounded, not trapped on.
        let wild = try place(720, 480, sar: (Int(Int32.max), 1))
        #expect(wild.spec.outputWidth == 640 && wild.spec.outputHeight >= 2)
        #expect(wide.spec.outputFormat == .yuv420p && wide.spec.outputRange == .limited)
    }

    @Test func rightAnglesTurnInTheProcessorOtherAnglesInTheDrawing() throws {
        let quarter = try place(320, 240, Transform(scale: 1, rotate: 90, x: 100, y: 100))
        #expect(
            [quarter.spec.outputWidth, quarter.spec.outputHeight, quarter.x, quarter.y] as [Int] == [
                240, 320, 100, 100,
            ])
        #expect(quarter.spec.rotation == Rotation(degrees: 90) && quarter.turn == 0)
        // The track's own rotation and the layer's turn add up.
        let both = try place(320, 240, rotation: Rotation(degrees: 90), Transform(scale: 0.5, rotate: -90, x: 0, y: 0))
        #expect(both.spec.rotation == .none && [both.spec.outputWidth, both.spec.outputHeight] as [Int] == [160, 120])
        let eighth = try place(320, 240, Transform(scale: 1, rotate: 45, x: 0, y: 0))
        #expect(eighth.turn == 45 && eighth.spec.rotation == .none)
        #expect(
            [eighth.spec.outputWidth, eighth.spec.outputHeight, eighth.boxWidth, eighth.boxHeight] as [Int] == [
                320, 240, 394, 394,
            ])
        // Odd offsets are made even for 4:2:0.
        let odd = try place(320, 240, Transform(scale: 1, x: -81, y: 33))
        #expect(odd.x == -82 && odd.y == 32 && odd.isVisible)
        #expect(try !place(320, 240, Transform(scale: 1, x: 641, y: 0)).isVisible)
        #expect(try place(320, 240, Transform(scale: 1, x: 638, y: 0)).isVisible)
        #expect(try !place(320, 240, Transform(scale: 1, x: -319, y: 0)).isVisible)
        #expect(throws: MediaError.self) { try place(1920, 1080, Transform(scale: 16, rotate: 45, x: 0, y: 0)) }
        // Values from a file or the wire that are no size at all are refused, not trapped on.
        #expect(throws: MediaError.self) { try place(0, 1080) }
        #expect(throws: MediaError.self) { try place(1920, 1080, Transform(scale: .nan, x: 0, y: 0)) }
        #expect(throws: MediaError.self) { try place(1920, 1080, Transform(scale: .infinity, x: 0, y: 0)) }
    }

    /// A picture of one value per plane (Y `y`, U and V `c`) at `w`×`h`, 8-bit 4:2:0.
    func solid(_ w: Int, _ h: Int, y: UInt8, c: UInt8) throws -> Frame {
        let frame = try Frame(width: w, height: h, format: AV_PIX_FMT_YUV420P)
        for p in 0..<3 {
            let rows = p == 0 ? h : (h + 1) / 2
            memset(frame.plane(p)!, Int32(p == 0 ? y : c), frame.linesize(p) * rows)
        }
        return frame
    }

    func value(_ frame: Frame, plane: Int, _ x: Int, _ y: Int) -> Int {
        Int(frame.plane(plane)![y * frame.linesize(plane) + x])
    }

    @Test func drawingCutsThePictureToTheRender() throws {
        let placement = try place(320, 240, render: (64, 48), Transform(scale: 0.1, x: -10, y: 40))
        #expect([placement.spec.outputWidth, placement.spec.outputHeight] as [Int] == [32, 24])
        let canvas = try solid(64, 48, y: 16, c: 128)
        try placement.draw(try solid(32, 24, y: 200, c: 90), on: canvas)
        // The picture covers x -10…22, y 40…64: on the render, x 0…21 and y 40…47.
        #expect(value(canvas, plane: 0, 0, 40) == 200 && value(canvas, plane: 0, 21, 47) == 200)
        #expect(value(canvas, plane: 0, 22, 40) == 16 && value(canvas, plane: 0, 0, 39) == 16)
        #expect(value(canvas, plane: 1, 10, 20) == 90 && value(canvas, plane: 1, 11, 20) == 128)
        // Other sizes than the placement's are refused, not drawn out of bounds.
        #expect(throws: MediaError.self) { try placement.draw(try solid(34, 24, y: 0, c: 0), on: canvas) }
        #expect(throws: MediaError.self) {
            try placement.draw(try solid(32, 24, y: 0, c: 0), on: try solid(66, 48, y: 0, c: 0))
        }
    }

    @Test func aTurnedPictureLeavesTheBackgroundInItsBoxCorners() throws {
        let placement = try place(40, 20, render: (64, 64), Transform(scale: 1, rotate: 45, x: 0, y: 0))
        #expect(placement.boxWidth == 42 && placement.boxHeight == 42)
        let canvas = try solid(64, 64, y: 16, c: 128)
        try placement.draw(try solid(40, 20, y: 235, c: 60), on: canvas)
        #expect(value(canvas, plane: 0, 21, 21) == 235 && value(canvas, plane: 1, 10, 10) == 60)
        #expect(value(canvas, plane: 0, 1, 1) == 16 && value(canvas, plane: 0, 40, 1) == 16)
        #expect(value(canvas, plane: 0, 50, 50) == 16)
        // The long axis runs from top-left to bottom-right (clockwise from horizontal).
        #expect(value(canvas, plane: 0, 8, 8) == 235 && value(canvas, plane: 0, 8, 34) == 16)
    }
}
