import TesseraCore

extension TaskKey {
    public init(_ ref: Tessera_V1_TaskRef) {
        self.init(job: ref.jobID, segment: Int(ref.segment), attempt: Int(ref.attempt))
    }

    public var ref: Tessera_V1_TaskRef {
        Tessera_V1_TaskRef(jobID: job, segment: UInt32(segment), attempt: UInt32(attempt))
    }
}
