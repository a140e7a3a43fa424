import Foundation
import Logging

/// Log lines on stderr for the farm's long-running processes; TESSERA_LOG_LEVEL picks the level.
enum LoggingSetup {
    private static let once: Void = {
        let level =
            ProcessInfo.processInfo.environment["TESSERA_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }()

    static func bootstrap() { _ = once }
}
