import OverlandJournal

/// One sync run of a journal to several destinations (`DestinationSender`s), each with
/// its own cursor, state file, batches, backoff and send interval:
///
/// 1. takes the journal's cursor lock once for the whole run (`SyncEngine.lockForRun`: a
///    run that finds it taken ends at once, every destination `.alreadyRunning`);
/// 2. runs every destination at the same time (a task group); a destination that fails or
///    hangs never holds the others back, and one with a `refusal` (a configuration error)
///    reports it without sending;
/// 3. after each destination's run, still under the lock, hands its acknowledged range to
///    `afterDrain` (the slot for reading back what a receiver stored);
/// 4. when all have finished and any cursor moved, deletes the sealed segments every
///    reader has passed, once (`readers`: every configured destination, selected for this
///    run or not, so that a destination left out or failing keeps its backlog; a cursor
///    file of a destination no longer configured holds nothing back).
///
/// The reports come back in the order of `destinations`.
public struct DestinationsRun: Sendable {
    /// The journal sent.
    public let journal: Journal
    /// The destinations this run sends to.
    public let destinations: [any DestinationSender]
    /// Every configured destination: retention keeps what any of them still needs.
    public let readers: [CursorName]
    /// How long delivered segments are kept, in seconds (nil: forever).
    public let keepSentSeconds: Int64?
    /// How each destination names its receiver (`CarriedPlace.receiver`): before it sends,
    /// a destination passes the records a move brought here that its receiver had
    /// acknowledged (`Journal.carriedPlace`), so that they are not sent again.
    public var receivers: [CursorName: String] = [:]
    /// Run after each destination's drain (see `Drained`); nil: nothing.
    public var afterDrain: (@Sendable (Drained) async -> SyncReport)?
    private let wallClock: @Sendable () -> Int64

    /// Creates a run. `wallClock` (Unix seconds) is retention's clock.
    public init(journal: Journal, destinations: [any DestinationSender], readers: [CursorName], keepSentSeconds: Int64?,
                wallClock: @escaping @Sendable () -> Int64 = { Journal.currentTime() }) {
        self.journal = journal
        self.destinations = destinations
        self.readers = readers
        self.keepSentSeconds = keepSentSeconds
        self.wallClock = wallClock
    }

    /// One destination's run, done, for `afterDrain`: the journal's cursor lock is still
    /// held, and `acknowledged` is what the receiver acknowledged in this run (the cursor
    /// before it to the cursor after; empty when it did not move).
    public struct Drained: Sendable {
        public let destination: any DestinationSender
        public let journal: Journal
        public let lock: JournalLock
        public let acknowledged: Range<UInt64>
        /// The run's report, for the hook to return, amended or not.
        public let report: SyncReport
    }

    /// What the run did: a report per destination, in order, and warnings about the run
    /// as a whole (retention).
    public struct Outcome: Sendable {
        public var reports: [(name: CursorName, report: SyncReport)]
        public var warnings: [String] = []
    }

    /// Runs (see the type's description).
    public func run(sendNow: Bool, onIssue: JournalIssueHandler? = nil) async -> Outcome {
        let lock: JournalLock
        switch SyncEngine.lockForRun(journal) {
        case .refused(let report):
            return Outcome(reports: destinations.map { ($0.name, report) })
        case .locked(let acquired):
            lock = acquired
        }
        var reports = [SyncReport?](repeating: nil, count: destinations.count)
        await withTaskGroup(of: (Int, SyncReport).self) { group in
            for (index, destination) in destinations.enumerated() {
                group.addTask { (index, await run(destination, holding: lock, sendNow: sendNow, onIssue: onIssue)) }
            }
            for await (index, report) in group { reports[index] = report }
        }
        var outcome = Outcome(reports: zip(destinations, reports).map { ($0.name, $1 ?? SyncReport(outcome: .interrupted)) })
        if let keep = keepSentSeconds, outcome.reports.contains(where: { $0.report.sentRecords > 0 || $0.report.skippedRecords > 0 || $0.report.notCarriedRecords > 0
                                                         || $0.report.alreadyAcknowledged > 0 }) {
            do {
                try journal.removeSentSegments(keepSeconds: keep, now: wallClock(), readers: readers, onlyReaders: true,
                                               holdingFrom: StoredMarks.floor(journal, readers))
            } catch {
                outcome.warnings.append(error.description)
            }
        }
        withExtendedLifetime(lock) {}
        return outcome
    }

    /// One destination, under the run's lock: refused, or sent, then `afterDrain`.
    private func run(_ destination: any DestinationSender, holding lock: JournalLock, sendNow: Bool,
                     onIssue: JournalIssueHandler?) async -> SyncReport {
        if let refusal = destination.refusal { return SyncReport(outcome: .configurationError, message: refusal) }
        var passed: UInt64 = 0
        var warnings: [String] = []
        do { passed = try passCarried(destination.name) } catch { warnings.append(error.description) }
        let before = try? journal.cursor(for: destination.name)
        var report = await destination.run(journal: journal, holding: lock, sendNow: sendNow, onIssue: onIssue)
        report.alreadyAcknowledged += passed
        report.warnings += warnings
        guard let afterDrain, let before else { return report }
        let after = (try? journal.cursor(for: destination.name)) ?? before
        return await afterDrain(Drained(destination: destination, journal: journal, lock: lock,
                                        acknowledged: before..<max(before, after), report: report))
    }

    /// Moves a destination's cursor past the records its receiver acknowledged before a
    /// move brought them here; how many it passed.
    private func passCarried(_ name: CursorName) throws(JournalError) -> UInt64 {
        guard let receiver = receivers[name], case .valid(let place) = try journal.readCursor(for: name) else { return 0 }
        let carried = journal.carriedPlace(receiver: receiver, from: place)
        guard carried > place else { return 0 }
        try journal.advanceCursor(for: name, to: carried)
        return carried - place
    }
}
