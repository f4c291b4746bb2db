/// How long to wait after failures: 60 s after the first, doubling with each further
/// failure, at most one hour, each delay spread by ±20% so that many devices that failed
/// together do not retry together. It never gives up: after an hour it keeps trying hourly.
public struct SyncBackoff: Sendable, Equatable {
    /// The delay after the first failure, in seconds.
    public var base: Double = 60
    /// The longest delay, in seconds.
    public var cap: Double = 3600
    /// The spread, as a fraction of the delay either way.
    public var jitter: Double = 0.2
    /// The longest wait a server's `Retry-After` (on a 429 or 503) is honoured for: 6 hours.
    /// Longer asks wait this long, so that a broken or hostile server cannot stop uploads
    /// for days; `--now` sends anyway.
    public var retryAfterCap: Double = 6 * 3600

    /// How far ahead a stored next attempt may be before it is taken for a clock that
    /// went back and ignored.
    public var longestWait: Double { max(cap, retryAfterCap) * 2 }

    /// The default schedule.
    public init() {}

    /// The delay before the next attempt after `failures` consecutive failures (at least 1);
    /// `random` is a number in 0..<1 that places the delay within the jitter.
    public func delay(afterFailures failures: Int, random: Double) -> Double {
        let exponent = min(max(failures, 1) - 1, 30)
        let nominal = min(base * Double(1 << exponent), cap)
        return nominal + nominal * jitter * (2 * min(max(random, 0), 1) - 1)
    }

    /// The delay after `failures` failures when the server asked for `retryAfter` seconds:
    /// the longer of the two, the server's ask capped at `retryAfterCap`.
    public func delay(afterFailures failures: Int, random: Double, retryAfter: Int64?) -> Double {
        let own = delay(afterFailures: failures, random: random)
        guard let retryAfter, retryAfter > 0 else { return own }
        return max(own, min(Double(retryAfter), retryAfterCap))
    }
}
