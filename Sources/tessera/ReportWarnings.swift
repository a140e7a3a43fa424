import Foundation
import TesseraMedia

/// What a finished export says on stderr, whichever command made it: what the output does not carry, and
/// the segments that fell short of the quality asked for.
enum ReportWarnings {
    static func write(_ report: ExportReport) {
        var lines = report.notCarried
        if let q = report.quality, let target = q.target, !q.short.isEmpty {
            lines.append("\(q.short.count) segment(s) fell short of \(target): \(q.summary)")
        }
        for line in lines { FileHandle.standardError.write(Data("tessera: warning: \(line)\n".utf8)) }
    }
}
