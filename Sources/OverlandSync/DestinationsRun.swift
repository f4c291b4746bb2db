import OverlandJournal

/// One sync run of a journal to several destinations (receivers), each with its own
/// cursor, state file, batches, backoff and send interval:
///
/// 1. takes the journal's cursor lock once for the whole run (`SyncEngine.lockForRun`: a
///    run that finds it taken ends at once, every destination `.alreadyRunning`);
/// 2. runs every destination at the same time (a task group), each through `send`, which
///    runs that destination's engine (`SyncEngine.run(holding:)`) or, for a protocol
///    outside the engine, its own sender; a destination that fails or hangs never holds
///    the others back;
/// 3. when all have finished and any cursor moved, deletes the sealed segments every
///    reader has passed, once (`readers`: every configured destination, selected for this
///    run or not, so that a destination left out or failing keeps its backlog).
///
/// The reports come back in the order of `destinations`.
public struct DestinationsRun: Sendable {
    /// The journal sent.
    public let journal: Journal
    /// The destinations this run sends to.
    public let destinations: [CursorName]
    /// Every configured destination: retention keeps what any of them still needs.
    public let readers: [CursorName]
    /// How long delivered segments are kept, in seconds (nil: forever).
    public let keepSentSeconds: Int64?
    private let wallClock: @Sendable () -> Int64

    /// Creates a run. `wallClock` (Unix seconds) is retention's clock.
    public init(journal: Journal, destinations: [CursorName], readers: [CursorName], keepSentSeconds: Int64?,
                wallClock: @escaping @Sendable () -> Int64 = { Journal.currentTime() }) {
        self.journal = journal
        self.destinations = destinations
        self.readers = readers
        self.keepSentSeconds = keepSentSeconds
        self.wallClock = wallClock
    }

    /// What the run did: a report per destination, in order, and warnings about the run
    /// as a whole (retention).
    public struct Outcome: Sendable {
        public var reports: [(name: CursorName, report: SyncReport)]
        public var warnings: [String] = []
    }

    /// Runs (see the type's description). `send` runs one destination while the lock is held.
    public func run(send: @escaping @Sendable (CursorName, JournalLock) async -> SyncReport) async -> Outcome {
        let lock: JournalLock
        switch SyncEngine.lockForRun(journal) {
        case .refused(let report):
            return Outcome(reports: destinations.map { ($0, report) })
        case .locked(let acquired):
            lock = acquired
        }
        var reports = [SyncReport?](repeating: nil, count: destinations.count)
        await withTaskGroup(of: (Int, SyncReport).self) { group in
            for (index, name) in destinations.enumerated() {
                group.addTask { (index, await send(name, lock)) }
            }
            for await (index, report) in group { reports[index] = report }
        }
        var outcome = Outcome(reports: zip(destinations, reports).map { ($0, $1 ?? SyncReport(outcome: .interrupted)) })
        if let keep = keepSentSeconds, outcome.reports.contains(where: { $0.report.sentRecords > 0 || $0.report.skippedRecords > 0 || $0.report.notCarriedRecords > 0 }) {
            do {
                try journal.removeSentSegments(keepSeconds: keep, now: wallClock(), readers: readers,
                                               holdingFrom: StoredMarks.floor(journal, readers))
            } catch {
                outcome.warnings.append(error.description)
            }
        }
        withExtendedLifetime(lock) {}
        return outcome
    }
}
