/// The methods each route answers, as `HTTPAPI+Routes.swift` registers them and Protocols/openapi.yaml
/// declares them: a known path asked with another method gets 405 with `Allow`, not 404.
enum RouteMethods {
    /// Path templates (`{}` matches one segment) and their methods.
    static let table: [(template: [String], methods: [String])] = [
        (["healthz"], ["GET"]),
        (["metrics"], ["GET"]),
        (["v1", "jobs"], ["GET", "POST"]),
        (["v1", "jobs", "{}"], ["GET"]),
        (["v1", "jobs", "{}", "cancel"], ["POST"]),
        (["v1", "jobs", "{}", "output"], ["GET"]),
        (["v1", "jobs", "{}", "segments"], ["GET"]),
        (["v1", "jobs", "{}", "segments", "{}", "thumbnail.png"], ["GET"]),
        (["v1", "workers"], ["GET"]),
        (["v1", "farm"], ["GET"]),
        (["v1", "workers", "{}", "drain"], ["POST"]),
        (["v1", "workers", "{}", "pause"], ["POST"]),
        (["v1", "workers", "{}", "resume"], ["POST"]),
        (["v1", "session"], ["POST"]),
        (["v1", "events"], ["GET"]),
        ([], ["GET"]),
        (["v1", "uploads"], ["POST"]),
    ]

    /// The methods `path` answers; nil when no route has that path.
    static func allowed(path: String) -> [String]? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        return table.first { entry in
            entry.template.count == parts.count
                && zip(entry.template, parts).allSatisfy { $0 == "{}" || $0 == $1 }
        }?.methods
    }
}
