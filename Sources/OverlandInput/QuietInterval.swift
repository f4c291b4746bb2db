/// How long a live input may stay silent before the reader completes the open reporting
/// cycle (``FixStreamDecoder/closeCycle(into:)``), learned from the fix rate.
///
/// A receiver sends each cycle as one burst of sentences, then is silent until the next
/// epoch: silence for half the fix period means the burst is over, so the last fix before
/// a receiver or gpsd goes quiet is emitted (and committed) instead of waiting in memory for
/// an epoch that may never come. The period is the shortest interval between the last
/// eight fixes (a missed epoch doubles one interval, never shortens it); until two fixes
/// have been seen, and never more than that, the interval is ``maximum``.
public struct QuietInterval: Sendable {
    /// The interval while the fix rate is unknown, and the longest ever used, in seconds.
    public static let maximum = 1.0
    /// The shortest interval used, in seconds (a 20 Hz receiver over a slow pipe).
    public static let minimum = 0.05

    private var lastTime: Double?
    private var intervals: [Double] = []

    public init() {}

    /// The fix period observed, in seconds, if known.
    public var period: Double? { intervals.min() }

    /// Seconds of silence after which the open cycle is complete.
    public var seconds: Double {
        guard let period else { return Self.maximum }
        return min(Self.maximum, max(Self.minimum, period / 2))
    }

    /// Notes a fix emitted from the stream.
    public mutating func observe(_ fix: Fix) {
        let time = Double(fix.time) + Double(fix.nanoseconds) / 1e9
        defer { lastTime = time }
        guard let lastTime, time > lastTime else { return }
        let interval = time - lastTime
        guard interval <= 60 else { return }
        if intervals.count == 8 { intervals.removeFirst() }
        intervals.append(interval)
    }
}
