#if canImport(Glibc)
import Glibc
#endif

/// The process's open-file limit, and the share of it HTTP connections may take. A descriptor flood
/// (a thousand slow connections) took every descriptor the coordinator had: spool writes failed, were
/// blamed on the workers, and a source opened then was called "not a media file". The soft limit is
/// raised to the hard one at start (as Go's runtime and nginx do), and HTTP gets half of it, so the
/// spool, SQLite, ZeroMQ and sources keep the other half.
public enum DescriptorLimit {
    /// Raises the soft limit to the hard one where it is lower; returns the soft limit now in force.
    @discardableResult
    public static func raise() -> Int {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur == rlim_t.max ? Int(Int32.max) : Int(clamping: limit.rlim_cur)
    }

    /// How many HTTP connections to keep open at once under a soft limit of `soft` descriptors: half of
    /// it, from 16 to 4,096.
    public static func httpConnections(soft: Int) -> Int { min(4096, max(16, soft / 2)) }
}
