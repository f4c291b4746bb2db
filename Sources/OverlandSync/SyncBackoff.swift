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

    /// The default schedule.
    public init() {}

    /// The delay before the next attempt after `failures` consecutive failures (at least 1);
    /// `random` is a number in 0..<1 that places the delay within the jitter.
    public func delay(afterFailures failures: Int, random: Double) -> Double {
        let exponent = min(max(failures, 1) - 1, 30)
        let nominal = min(base * Double(1 << exponent), cap)
        return nominal + nominal * jitter * (2 * min(max(random, 0), 1) - 1)
    }
}
