/// When a live input that is not there (gpsd not running, or closing every connection it
/// accepts; a serial port unplugged) is tried again, and what is said about it. Issue 21: a
/// gpsd that accepts and closes was connected to 1,000 times a second, with two lines each.
///
/// Tries wait `first` (0.5 s), then twice as long each time, at most `longestWait` (30 s
/// for gpsd; a serial port, whose open fails at no cost while it is unplugged, is looked
/// for twice a second, so that a receiver plugged back in is read at once). An
/// input is *lost* when it ends (said once, by `ended`); it is *back* (said once, by
/// `observe`) when a reopened input proves itself: it delivers a fix, or stays open
/// `settle` seconds. Until then, reopening and ending again is silent and the waits go on
/// growing. Times are seconds of a monotonic clock, passed in; `reopen` takes the clock and
/// the sleep as functions: the rule is tested without sleeping.
public struct ReconnectBackoff: Sendable {
    public static let first = 0.5
    public static let longest = 30.0
    public static let settle = 30.0

    public enum Event: Equatable, Sendable { case lost, back }

    /// The longest wait between tries.
    public let longestWait: Double
    /// Whether the input is lost (ended, and not yet back).
    public private(set) var isLost = false
    /// Tries since the input was last up.
    public private(set) var failures = 0
    /// When the open descriptor was opened.
    private var openedAt: Double

    /// An input opened at `now` (up).
    public init(openedAt now: Double, longestWait: Double = Self.longest) {
        openedAt = now
        self.longestWait = longestWait
    }

    /// An input not opened yet (`--gpsd` before gpsd is up): lost, without a word.
    public static func waiting(longestWait: Double = Self.longest) -> ReconnectBackoff {
        var backoff = ReconnectBackoff(openedAt: 0, longestWait: longestWait)
        backoff.isLost = true
        return backoff
    }

    /// The wait before the next try, growing.
    public mutating func nextDelay() -> Double {
        let delay = min(longestWait, Self.first * Double(1 << min(failures, 16)))
        failures += 1
        return delay
    }

    /// The input ended (end of file, an error): `.lost` when it was up.
    public mutating func ended() -> Event? {
        guard !isLost else { return nil }
        isLost = true
        failures = 0
        return .lost
    }

    /// The input was opened again at `now`.
    public mutating func opened(at now: Double) { openedAt = now }

    /// The open input read (`fix`: a fix among what it read; false for a wake-up without
    /// one) at `now`: `.back` when a lost input has proved itself.
    public mutating func observe(fix: Bool, at now: Double) -> Event? {
        guard isLost, fix || now - openedAt >= Self.settle else { return nil }
        isLost = false
        failures = 0
        return .back
    }

    /// Waits and tries `open` until it gives an input, or `shouldStop` (looked at
    /// before each wait and each try) says stop: nil then.
    public mutating func reopen<Opened>(now: () -> Double, sleep: (Double) -> Void, shouldStop: () -> Bool,
                                        open: () -> Opened?) -> Opened? {
        while true {
            if shouldStop() { return nil }
            sleep(nextDelay())
            if shouldStop() { return nil }
            if let input = open() {
                opened(at: now())
                return input
            }
        }
    }
}
