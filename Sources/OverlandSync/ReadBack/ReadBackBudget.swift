import OverlandProtocol

/// What one run's read-back (or one audit day) may spend at most, from the points it
/// checks: requests, answer bytes and time. A receiver answering page after page
/// (`X-Total-Pages: 10000` with one unrelated point each) is stopped here, with one line,
/// instead of holding the run for hours.
public struct ReadBackBudget: Sendable {
    /// Requests left: four, and one for every 25 points (four times the smallest page a
    /// reader asks for, Dawarich's 100: room for another device's points in the range).
    public private(set) var requests: Int
    /// Answer bytes left: 1 MiB, and 4 KiB a point (a Home Assistant state is about 500).
    public private(set) var bytes: Int
    /// When reading must stop: a minute, and two seconds a request allowed.
    public let deadline: ContinuousClock.Instant
    private let allowedRequests: Int
    private let points: Int

    /// The budget for checking `points` points, from `start`.
    public init(points: Int, start: ContinuousClock.Instant = .now) {
        self.points = max(0, points)
        allowedRequests = 4 + self.points / 25
        requests = allowedRequests
        bytes = (1 << 20) + min(self.points, 1 << 20) * 4096
        deadline = start + .seconds(60 + 2 * allowedRequests)
    }

    /// Takes one request from the budget, or throws the line that says reading stopped.
    mutating func spendRequest(now: ContinuousClock.Instant = .now) throws(ReadBackError) {
        guard requests > 0, now < deadline else { throw stopped }
        requests -= 1
    }

    /// Takes an answer's bytes from the budget, or throws.
    mutating func spend(bytes count: Int) throws(ReadBackError) {
        guard count <= bytes else { throw stopped }
        bytes -= count
    }

    private var stopped: ReadBackError {
        let seconds = 60 + 2 * allowedRequests
        return ReadBackError("stopped after \(allowedRequests - requests) requests: the most \(points) points to check can need is "
                             + "\(allowedRequests) requests, \(((1 << 20) + min(points, 1 << 20) * 4096) >> 10) KiB of answers and "
                             + "\(seconds) s, and the receiver asked for more")
    }
}
