/// When a run's cursor writes are made durable. Every acknowledgement is recorded at once
/// in the reader's progress record, overwritten in place without an fsync (a killed process
/// resends at most the batch in flight: the page cache outlives it); the cursor file is
/// written durably (file fsync, rename, directory fsync) at most once per `interval` and at
/// the end of the run. A drain on an SD card (5-50 ms per fsync) then waits on a few fsyncs
/// a second instead of one or two per batch; after a power cut the reader is at most the
/// batches of the last `interval` behind, and those are sent again (journal-format.md
/// section 9).
public struct DurabilityPacer: Sendable {
    /// The longest a written cursor waits for its fsync during a run.
    public static let defaultInterval = Duration.seconds(1)

    public let interval: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private var lastDurable: ContinuousClock.Instant
    /// Whether a write since the last durable point still waits for its fsync.
    public private(set) var pending = false

    /// A pacer whose interval starts now. `now` is the monotonic clock (injected in tests).
    public init(interval: Duration = DurabilityPacer.defaultInterval,
                now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.interval = interval
        self.now = now
        lastDurable = now()
    }

    /// Records a write that was not made durable; true when the writes must be made
    /// durable now (the interval since the last durable point has passed).
    public mutating func wrote() -> Bool {
        pending = true
        return now() - lastDurable >= interval
    }

    /// Records that every write so far was made durable.
    public mutating func madeDurable() {
        pending = false
        lastDurable = now()
    }
}
