import GRDB

/// The job store's tables, as migrations (never edit a shipped migration; add the next one).
///
/// ```
/// jobs ──< segments      (jobID, idx) primary key; segments go with their job
///      └──< attempts      (jobID, idx, attempt) → the worker it was leased to
/// ```
enum StoreSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: jobs and segments") { db in
            try db.create(table: "jobs") { t in
                t.primaryKey("id", .text)
                t.column("state", .text).notNull().indexed()
                t.column("priority", .integer).notNull()
                t.column("request", .text).notNull()
                t.column("source", .text).notNull()
                t.column("output", .text).notNull()
                t.column("segmentsTotal", .integer).notNull().defaults(to: 0)
                t.column("framesTotal", .integer).notNull().defaults(to: 0)
                t.column("error", .text)
                t.column("report", .text)
                t.column("createdAt", .double).notNull()
                t.column("updatedAt", .double).notNull()
                t.column("startedAt", .double)
                t.column("finishedAt", .double)
            }
            try db.create(table: "segments") { t in
                t.column("jobID", .text).notNull().references("jobs", onDelete: .cascade)
                t.column("idx", .integer).notNull()
                t.primaryKey(["jobID", "idx"])
                t.column("state", .text).notNull()
                t.column("frames", .integer).notNull()
                t.column("attempt", .integer).notNull().defaults(to: 0)
                t.column("failures", .integer).notNull().defaults(to: 0)
                t.column("worker", .text)
                t.column("leaseDeadline", .double)
                t.column("spoolFile", .text)
                t.column("encodeSeconds", .double)
                t.column("processor", .text)
                t.column("lastError", .text)
                // JSON array of every counted failure, for the message that fails the job.
                t.column("errors", .text).notNull().defaults(to: "[]")
                t.column("doneAttempt", .integer)
            }
            // Segments by state (migration v1's index; kept so existing data folders match the schema).
            try db.create(indexOn: "segments", columns: ["state", "jobID"])
        }
        migrator.registerMigration("v2: who each attempt was leased to") { db in
            // A result or failure is taken only from the worker its attempt was leased to, also after a
            // restart, when an earlier attempt's holder re-sends what it finished during the outage.
            try db.create(table: "attempts") { t in
                t.column("jobID", .text).notNull().references("jobs", onDelete: .cascade)
                t.column("idx", .integer).notNull()
                t.column("attempt", .integer).notNull()
                t.column("worker", .text).notNull()
                t.primaryKey(["jobID", "idx", "attempt"])
            }
        }
        migrator.registerMigration("v3: finished jobs by when they finished") { db in
            // A page of history (the dashboard's, every second) reads its rows by this index, however
            // many jobs the store holds.
            try db.create(indexOn: "jobs", columns: ["state", "updatedAt"])
        }
        migrator.registerMigration("v4: each finished segment's measured quality") { db in
            // JSON of `SegmentQuality`; NULL for a segment not measured (timing verification, an older
            // worker, a segment finished before this migration).
            try db.alter(table: "segments") { t in t.add(column: "quality", .text) }
        }
        migrator.registerMigration("v5: backup attempts") { db in
            // 1 for an attempt leased while another attempt of the segment ran (`leaseBackup`): the job's
            // segment map marks a segment finished by one.
            try db.alter(table: "attempts") { t in t.add(column: "backup", .integer).notNull().defaults(to: 0) }
        }
        migrator.registerMigration("v6: attempts that ended while another raced them") { db in
            // 1 for an attempt that failed, stalled or was lost while another attempt of its segment ran on
            // (`endRacingAttempt`): the other is then the one a worker may claim back after a restart.
            try db.alter(table: "attempts") { t in t.add(column: "ended", .integer).notNull().defaults(to: 0) }
        }
        return migrator
    }
}
