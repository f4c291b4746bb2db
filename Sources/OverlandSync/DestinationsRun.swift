import OverlandJournal

/// One sync run of a journal to several destinations (`DestinationSender`s), each with
/// its own cursor, state file, batches, backoff and send interval:
///
/// 1. takes the journal's cursor lock once for the whole run (`SyncEngine.lockForRun`: a
///    run that finds it taken ends at once, every destination `.alreadyRunning`);
/// 2. runs every destination at the same time (a task group), each under a lock of its own
///    (`destinationLockName`); a destination that fails or hangs never holds the others
///    back, one with a `refusal` (a configuration error) reports it without sending, and
///    one whose lock another run holds (reading it back) is left to that run;
/// 3. when all have finished and any cursor moved, deletes the sealed segments every
///    reader has passed, once (`readers`: every configured destination, selected for this
///    run or not, so that a destination left out or failing keeps its backlog; a cursor
///    file of a destination no longer configured holds nothing back);
/// 4. lets the journal's lock go, and hands each destination's acknowledged range to
///    `afterDrain` (reading back what a receiver stored) under that destination's lock
///    alone: a slow read-back never keeps another run from sending to other destinations.
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

    /// One destination's run, done, for `afterDrain`: the destination's own lock is held
    /// (`lock`; the journal's is not), and `acknowledged` is what the receiver acknowledged
    /// in this run (the cursor before it to the cursor after; empty when it did not move).
    public struct Drained: Sendable {
        public let destination: any DestinationSender
        public let journal: Journal
        /// The destination's own lock; nil when it was not sent to (refused, or held by
        /// another run): no `afterDrain` then.
        public let lock: JournalLock?
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
        var drained = [Drained?](repeating: nil, count: destinations.count)
        await withTaskGroup(of: (Int, Drained).self) { group in
            for (index, destination) in destinations.enumerated() {
                group.addTask { (index, await run(destination, holding: lock, sendNow: sendNow, onIssue: onIssue)) }
            }
            for await (index, done) in group { drained[index] = done }
        }
        var outcome = Outcome(reports: zip(destinations, drained).map { ($0.name, $1?.report ?? SyncReport(outcome: .interrupted)) })
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
        guard let afterDrain else { return outcome }
        // The journal's lock is let go here: another run may send to other destinations
        // while these are read back, each under its own lock.
        _ = consume lock
        await withTaskGroup(of: (Int, SyncReport).self) { group in
            for (index, done) in drained.enumerated() {
                guard let done, done.lock != nil else { continue }
                group.addTask { (index, await afterDrain(done)) }
            }
            for await (index, report) in group { outcome.reports[index].report = report }
        }
        return outcome
    }

    /// The lock, in the journal's `state/`, that one run holds for a destination while it
    /// sends to it and reads it back.
    public static func destinationLockName(_ name: CursorName) -> String { "destination-\(name.text).lock" }

    /// The report of a destination another run holds (reading it back).
    public static let heldByAnotherRun = "another overland-sync is reading back this destination"

    /// One destination, under the run's lock: refused, left to the run that holds its own
    /// lock, or sent (its lock kept for `afterDrain`).
    private func run(_ destination: any DestinationSender, holding lock: JournalLock, sendNow: Bool,
                     onIssue: JournalIssueHandler?) async -> Drained {
        func done(_ report: SyncReport, _ own: JournalLock? = nil, _ acknowledged: Range<UInt64> = 0..<0) -> Drained {
            Drained(destination: destination, journal: journal, lock: own, acknowledged: acknowledged, report: report)
        }
        if let refusal = destination.refusal { return done(SyncReport(outcome: .configurationError, message: refusal)) }
        let own: JournalLock
        do {
            guard let acquired = try journal.tryLock(Self.destinationLockName(destination.name)) else {
                return done(SyncReport(outcome: .alreadyRunning, message: Self.heldByAnotherRun))
            }
            own = acquired
        } catch {
            return done(SyncReport(outcome: .stateError, message: "\(error)"))
        }
        var passed: UInt64 = 0
        var warnings: [String] = []
        do { passed = try passCarried(destination.name) } catch { warnings.append(error.description) }
        let before = try? journal.cursor(for: destination.name)
        var report = await destination.run(journal: journal, holding: lock, sendNow: sendNow, onIssue: onIssue)
        report.alreadyAcknowledged += passed
        report.warnings += warnings
        guard let before else { return done(report) }
        let after = (try? journal.cursor(for: destination.name)) ?? before
        return done(report, own, before..<max(before, after))
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
