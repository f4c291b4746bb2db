import OverlandJSON
import OverlandJournal
import OverlandProtocol

/// Drains one journal to the configured server: reads from the cursor, sends batches
/// through a `Transport`, and moves the cursor only after the server acknowledged a batch.
///
/// A run, in order:
/// 1. takes the journal's cursor lock (`tryLockCursors`, also taken by `overland journal move`); a run that finds it taken ends
///    at once with `.alreadyRunning`;
/// 2. unless told to send now, does nothing while the schedule every destination shares
///    holds it (`SyncDestination`: sending off, the backoff after failures, the send
///    interval since the last delivery; a changed url or token is tried at once);
/// 3. sends batch after batch until nothing waits, an attempt fails, or `maxTime` runs
///    out; after each acknowledged batch the cursor moves (replaced atomically), so a
///    kill at any point resends at most the one batch in flight, byte for byte the same
///    `locations` (a resend's `current` and URL placeholders may show a newer point); the
///    cursor is made durable (fsync) at most once a second and at the end of the run
///    (`DurabilityPacer`), so a power cut resends at most the batches of the last second;
/// 4. records the outcome in `state/sync.json` as every destination does
///    (`recordDelivery`, `recordFailure`), and deletes delivered segments past their
///    retention.
///
/// The engine never prints: it reports through its return value and callbacks.
public final class SyncEngine: Sendable, SyncDestination {
    /// The journal drained.
    public let journal: Journal
    /// What and where to send.
    public let configuration: SyncConfiguration
    /// The destination: the journal cursor this engine reads from and moves.
    public let cursorName: CursorName
    private let transport: any Transport
    /// The backoff and the clocks.
    public let timing: SyncTiming

    /// Creates an engine. `wallClock` (Unix seconds), `random` (0..<1, for the backoff's
    /// jitter) and `monotonicClock` (the cursor's durability pacing, `maxTime`) are there
    /// for tests.
    public convenience init(
        journal: Journal,
        configuration: SyncConfiguration,
        transport: any Transport,
        cursor: CursorName = .default,
        backoff: SyncBackoff = SyncBackoff(),
        wallClock: @escaping @Sendable () -> Int64 = { Journal.currentTime() },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        monotonicClock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.init(journal: journal, configuration: configuration, transport: transport, cursor: cursor,
                  timing: SyncTiming(backoff: backoff, wallClock: wallClock, random: random, monotonicClock: monotonicClock))
    }

    /// Creates an engine with `timing`'s backoff and clocks.
    public init(journal: Journal, configuration: SyncConfiguration, transport: any Transport, cursor: CursorName, timing: SyncTiming) {
        self.journal = journal
        self.configuration = configuration
        self.transport = transport
        self.cursorName = cursor
        self.timing = timing
    }

    /// The receiver as `failures_against` records it.
    public var receiverFingerprint: String { configuration.receiverFingerprint }

    /// The least time between two runs that send; nil when sending is off.
    public var sendIntervalSeconds: Int? { configuration.sendIntervalSeconds }

    /// Runs once (see the type's description). `sendNow` ignores the send interval, the
    /// backoff and a send interval that is off. `onProgress` hears after each delivered
    /// request; `onSet` receives a delivered reply's `set` object, unvalidated, for the
    /// caller to apply to the settings; `onIssue` hears of damaged journal records skipped.
    public func run(
        sendNow: Bool = false,
        onProgress: ((SyncProgress) -> Void)? = nil,
        onSet: ((JSONValue) -> Void)? = nil,
        onIssue: JournalIssueHandler? = nil
    ) async -> SyncReport {
        if let refused = configurationRefusal { return refused }
        let lock: JournalLock
        switch Self.lockForRun(journal) {
        case .refused(let report): return report
        case .locked(let acquired): lock = acquired
        }
        return await runValidated(holding: lock, sendNow: sendNow, onProgress: onProgress, onSet: onSet, onIssue: onIssue)
    }

    /// The journal's cursor lock for a run, or the report of a run that cannot start.
    public enum RunLock: Sendable {
        case locked(JournalLock)
        case refused(SyncReport)
    }

    /// Takes the journal's cursor lock for a run (one run at a time), after checking that
    /// the journal can record what is sent: writable, and no interrupted move pending. A
    /// run over several destinations takes it once for them all (`run(holding:)`).
    public static func lockForRun(_ journal: Journal) -> RunLock {
        do {
            // One run at a time: the kernel lets go of the lock however the process ends.
            guard let acquired = try journal.tryLockCursors() else {
                return .refused(SyncReport(outcome: .alreadyRunning, message: "another sync of this journal is running"))
            }
            // On read-only media the cursor cannot record what the server acknowledges: a
            // batch sent from here would be sent again by every later run.
            do {
                try journal.requireWritable(journal.path)
            } catch {
                return .refused(SyncReport(outcome: .journalError(error), message: error.description))
            }
            // An interrupted `overland journal move` owns the segments it names until it is
            // finished or aborted: sending them from here too would upload them twice.
            if let intent = try journal.pendingMove() {
                return .refused(SyncReport(outcome: .configurationError, message: Self.pendingMoveMessage(intent)))
            }
            return .locked(acquired)
        } catch {
            return .refused(SyncReport(outcome: .stateError, message: "\(error)"))
        }
    }

    /// The report of a configuration that cannot work (`SyncConfiguration.validate`), or nil.
    private var configurationRefusal: SyncReport? {
        do { try configuration.validate() } catch { return SyncReport(outcome: .configurationError, message: error.description) }
        return nil
    }

    /// Runs once, like `run`, for a caller that holds the journal's cursor lock
    /// (`lockForRun`) for the whole run: a run over several destinations.
    public func run(
        holding lock: JournalLock,
        sendNow: Bool = false,
        onProgress: ((SyncProgress) -> Void)? = nil,
        onSet: ((JSONValue) -> Void)? = nil,
        onIssue: JournalIssueHandler? = nil
    ) async -> SyncReport {
        if let refused = configurationRefusal { return refused }
        return await runValidated(holding: lock, sendNow: sendNow, onProgress: onProgress, onSet: onSet, onIssue: onIssue)
    }

    /// The run itself, once the configuration is known to be valid and the lock is held:
    /// the schedule every destination shares, then the drain.
    private func runValidated(
        holding lock: JournalLock,
        sendNow: Bool,
        onProgress: ((SyncProgress) -> Void)?,
        onSet: ((JSONValue) -> Void)?,
        onIssue: JournalIssueHandler?
    ) async -> SyncReport {
        // Held until the end: the lock covers the whole run, state file included.
        defer { withExtendedLifetime(lock) {} }
        switch begin(sendNow: sendNow) {
        case .failed(let report):
            return report
        case .held(let report, let opened):
            return finish(report, opened)
        case .due(let opened):
            let listeners = Listeners(onProgress: onProgress, onSet: onSet, onIssue: onIssue)
            return finish(await drain(state: opened.state, listeners: listeners), opened)
        }
    }

    static func pendingMoveMessage(_ intent: JournalMoveIntent) -> String {
        "\(intent); finish it with 'overland journal move' (or --abort) first"
    }

    /// The first request a run would send now, with the token redacted, or nil when
    /// nothing waits. Takes no lock and changes nothing: for `--dry-run`.
    public func dryRun(onIssue: JournalIssueHandler? = nil) throws -> SyncRequest? {
        try configuration.validate()
        let builder = BatchBuilder(journal: journal, receiver: try receiver(), cursor: try readCursor(), onIssue: onIssue)
        return try builder.next()?.request?.redacted(secret: configuration.effectiveToken)
    }

    // MARK: - The cursor: the one place it is read, the one place it moves

    /// Where this run starts: the first record this destination has not had acknowledged.
    private func readCursor() throws(JournalError) -> UInt64 {
        try journal.cursor(for: cursorName)
    }

    /// Records that the server acknowledged every record before `next`: in the progress
    /// record at once, in the cursor file at the next `syncCursor` (`moveCursor` paces them).
    private func advanceCursor(to next: UInt64) throws(JournalError) {
        try CursorWrites.advance(journal, cursorName, to: next, durably: false)
    }

    /// Makes the cursor's writes so far durable.
    private func syncCursor() throws(JournalError) {
        try CursorWrites.makeDurable(journal, cursorName)
    }

    /// The configured protocol's receiver (validation has made sure there is one).
    private func receiver() throws(SyncError) -> any Receiver {
        guard let receiver = configuration.makeReceiver() else {
            throw .configuration("protocol \(configuration.wireProtocol) is not available in this build of overland-sync")
        }
        return receiver
    }

    // MARK: - The run, under the lock

    /// The callbacks of one run.
    private struct Listeners {
        var onProgress: ((SyncProgress) -> Void)?
        var onSet: ((JSONValue) -> Void)?
        var onIssue: JournalIssueHandler?
    }

    /// What a run has done so far: the report it will return, the state it will save, and
    /// why it stopped sending.
    private struct Progress {
        var report = SyncReport(outcome: .nothingToSend)
        var state: SyncState
        var failure: (outcome: SyncReport.Outcome, message: String)?
        /// A 429 or 503 may say how long to wait (Retry-After, honoured up to a cap).
        var retryAfter: Int64?
        var cursorMoved = false
        /// Whether the state was saved since the run's first delivery (see `acknowledged`).
        var stateSavedAfterDelivery = false
        /// When the cursor's writes are made durable.
        var pacer: DurabilityPacer

        /// Counts the records `batch` passes over: by the logging mode, or not carried by
        /// the receiver; the state keeps their sum (records handled but not sent).
        mutating func count(passedOver batch: Batch) {
            report.skippedRecords += Int(batch.skipped)
            report.notCarriedRecords += Int(batch.notCarried)
            state.skippedRecords += batch.skipped + batch.notCarried
        }

        init(state: SyncState, pacer: DurabilityPacer) {
            self.state = state
            self.pacer = pacer
        }

        mutating func fail(_ outcome: SyncReport.Outcome, _ message: String) {
            failure = (outcome, message)
        }

        mutating func interrupted() {
            report.outcome = .interrupted
            report.message = "interrupted; the rest waits for the next run"
        }
    }

    private func drain(state: SyncState, listeners: Listeners) async -> SyncReport {
        let receiver: any Receiver
        let builder: BatchBuilder
        do {
            receiver = try self.receiver()
        } catch {
            return SyncReport(outcome: .configurationError, message: error.description)
        }
        do {
            builder = BatchBuilder(journal: journal, receiver: receiver, cursor: try readCursor(), onIssue: listeners.onIssue)
        } catch {
            return SyncReport(outcome: .journalError(error), message: error.description)
        }
        var progress = Progress(state: state, pacer: DurabilityPacer(now: timing.monotonicClock))
        await send(from: builder, to: receiver, progress: &progress, listeners: listeners)
        makeCursorDurable(&progress)
        return conclude(&progress)
    }

    /// Sends batch after batch until nothing waits, an attempt fails, the run is
    /// interrupted or its time is up. The next batch is read while the current one is in
    /// flight: reading and sending overlap, and still only one batch is ever unacknowledged.
    private func send(from builder: BatchBuilder, to receiver: any Receiver, progress: inout Progress,
                      listeners: Listeners) async {
        let stopAt = configuration.maxTime.map { timing.monotonicClock() + .milliseconds(Int64($0 * 1000)) }
        func prefetch() -> Task<Result<Batch?, JournalError>, Never> {
            Task { Result { () throws(JournalError) in try builder.next() } }
        }
        var upcoming = prefetch()
        while true {
            let fetched = await upcoming.value
            let batch: Batch
            do {
                guard let next = try fetched.get() else { return }
                batch = next
            } catch {
                progress.fail(.journalError(error), error.description)
                return
            }
            if shouldStop(&progress, stopAt: stopAt) { return }
            upcoming = prefetch()
            let goOn: Bool
            if let request = batch.request {
                goOn = await deliver(request, of: batch, to: receiver, stopAt: stopAt, progress: &progress, listeners: listeners)
            } else {
                goOn = markHandled(batch, progress: &progress)
            }
            if !goOn {
                // Nothing may read the journal for this run once it ends.
                _ = await upcoming.value
                return
            }
        }
    }

    /// Whether the run must stop before the next batch: interrupted, or past its maximum
    /// time (checked between batches: the first always goes, so a short maximum cannot
    /// starve a run on a slow disk).
    private func shouldStop(_ progress: inout Progress, stopAt: ContinuousClock.Instant?) -> Bool {
        if Task.isCancelled {
            progress.interrupted()
            return true
        }
        if let stopAt, progress.report.batches > 0, timing.monotonicClock() >= stopAt {
            progress.report.outcome = .maxTimeReached
            progress.report.message = "stopped after the maximum time; the rest waits for the next run"
            return true
        }
        return false
    }

    /// A range with nothing the receiver carries: it counts as handled. False when the
    /// cursor could not move.
    private func markHandled(_ batch: Batch, progress: inout Progress) -> Bool {
        guard moveCursor(to: batch.next, progress: &progress) else { return false }
        progress.count(passedOver: batch)
        return true
    }

    /// Sends one request and acts on the reply. False when the run must stop.
    private func deliver(_ request: SyncRequest, of batch: Batch, to receiver: any Receiver,
                         stopAt: ContinuousClock.Instant?, progress: inout Progress, listeners: Listeners) async -> Bool {
        var timeout = Duration.milliseconds(Int64(configuration.requestTimeout * 1000))
        if let stopAt { timeout = min(timeout, max(stopAt - timing.monotonicClock(), .seconds(1))) }
        progress.state.lastAttempt = timing.wallClock()
        let httpReply: HTTPReply
        do {
            httpReply = try await transport.send(request, timeout: timeout)
        } catch {
            if Task.isCancelled {
                progress.interrupted()
            } else {
                progress.report.lastStatus = nil
                progress.state.lastStatus = nil
                progress.fail(.retryLater, String(describing: error))
            }
            return false
        }
        let reply = classify(httpReply, as: receiver, progress: &progress)
        switch reply.outcome {
        case .delivered:
            return acknowledged(batch, reply: reply, progress: &progress, listeners: listeners)
        case .notAcknowledged(let message), .retryable(let message):
            progress.fail(.retryLater, message)
        case .refused(let status, let message):
            progress.fail(.refused(status: status), message)
        case .wrongEndpoint(_, let message):
            // Named with the url (query and credentials left out: a token may ride in
            // either), so the user sees which setting to fix.
            progress.fail(.configurationError, "\(RedactedURL.shown(configuration.endpoint)): \(message): check the endpoint url")
        }
        return false
    }

    /// The reply classified by the receiver's acknowledgement, with what it tells the run
    /// (status, Retry-After, geocode) recorded.
    private func classify(_ httpReply: HTTPReply, as receiver: any Receiver, progress: inout Progress) -> Reply {
        let reply = Reply(status: httpReply.status, body: httpReply.body, acknowledgement: receiver.acknowledgement,
                          redirectLocation: httpReply.header("Location"))
        if httpReply.status == 429 || httpReply.status == 503 {
            progress.retryAfter = httpReply.header("Retry-After").flatMap { RetryAfter.seconds($0, now: timing.wallClock()) }
        }
        progress.report.lastStatus = reply.status
        progress.state.lastStatus = reply.status
        if let name = reply.geocodeFullName.map(hidingSecrets) {
            progress.report.geocode = name
            progress.state.geocode = name
        }
        return reply
    }

    /// The server acknowledged `batch`: the cursor moves past it, and the run counts it.
    /// False when the cursor could not move.
    private func acknowledged(_ batch: Batch, reply: Reply, progress: inout Progress, listeners: Listeners) -> Bool {
        // Crash tests kill the process here (OVERLAND_FAULT_POINT=sync.after-reply):
        // acknowledged, not yet recorded. The next run must resend the same batch.
        FaultPoint.reach("sync.after-reply")
        // Delivered but, if this fails, not recorded: the batch will be sent again.
        guard moveCursor(to: batch.next, progress: &progress) else { return false }
        progress.report.sentRecords += batch.count
        progress.count(passedOver: batch)
        progress.report.batches += 1
        progress.report.outcome = .delivered
        recordDelivery(&progress.state)
        if !progress.stateSavedAfterDelivery {
            // Saved at the run's first delivery (once a run): a run killed during a long
            // drain leaves neither the backoff for the next one to wait out nor "last
            // sent never" for `overland status` while points have gone.
            progress.stateSavedAfterDelivery = true
            // Not fsynced: the run's end saves it durably.
            saveState(progress.state, into: &progress.report, durably: false)
        }
        if let set = reply.set { listeners.onSet?(set) }
        listeners.onProgress?(SyncProgress(sentRecords: progress.report.sentRecords, batches: progress.report.batches,
                                           backlog: batch.backlogAfter))
        return true
    }

    /// The records before `next` are handled: the cursor moves there, in the progress
    /// record at once (a kill -9 resends at most the batch in flight) and made durable when the
    /// pacer says so (a power cut resends at most the batches of its interval): a durable
    /// write per batch would cap a drain at the disk's fsync rate. False when the cursor
    /// could not be written.
    private func moveCursor(to next: UInt64, progress: inout Progress) -> Bool {
        do {
            try advanceCursor(to: next)
            progress.cursorMoved = true
            if progress.pacer.wrote() {
                try syncCursor()
                progress.pacer.madeDurable()
            }
        } catch {
            progress.fail(.journalError(error), error.description)
            return false
        }
        return true
    }

    /// At the end of the run, however it ends: the cursor's last writes made durable.
    private func makeCursorDurable(_ progress: inout Progress) {
        guard progress.pacer.pending else { return }
        do {
            try syncCursor()
            progress.pacer.madeDurable()
        } catch {
            if progress.failure == nil {
                progress.fail(.journalError(error), error.description)
            } else {
                progress.report.warnings.append(error.description)
            }
        }
    }

    /// Ends the run: a failure sets the backoff, the state is saved, delivered segments
    /// past their retention go, and the report gets the backlog left.
    private func conclude(_ progress: inout Progress) -> SyncReport {
        if var failure = progress.failure {
            // Server text (an error, a redirect's Location) may echo the token: it is
            // printed and kept in state/sync.json, so the token is taken out first.
            failure.message = hidingSecrets(failure.message)
            progress.report.outcome = failure.outcome
            progress.report.message = failure.message
            if case .journalError = failure.outcome {} else {
                recordFailure(&progress.state, message: failure.message, retryAfter: progress.retryAfter)
            }
        }
        if progress.report.outcome == .nothingToSend {
            progress.report.message = "nothing to send"
        }
        saveState(progress.state, into: &progress.report)
        if progress.cursorMoved, let keep = configuration.keepSentSeconds {
            do { try journal.removeSentSegments(keepSeconds: keep, now: timing.wallClock(), readers: [cursorName], holdingFrom: StoredMarks.floor(journal, [cursorName])) } catch { progress.report.warnings.append(error.description) }
        }
        progress.report.backlog = (try? journal.backlog(for: cursorName)) ?? 0
        if progress.report.outcome == .configurationError, let message = progress.report.message {
            progress.report.message = message + "; \(Plural.count(progress.report.backlog, "point")) kept"
        }
        return progress.report
    }

    /// `text` with the endpoint's secrets (`RedactedURL`: the url shown redacted, its query
    /// values, user information, fragment and webhook id) and the token (as is,
    /// percent-encoded, and as OwnTracks' Basic credentials) hidden: every run of 4 or more
    /// of their characters (`SecretRedaction`), so that a copy cut short, padded or split
    /// shows at most 3 in a row. (A token of a few characters cannot be hidden without
    /// garbling every message: it is left.)
    private func hidingSecrets(_ text: String) -> String {
        guard let token = configuration.effectiveToken, token.count >= SecretRedaction.shortestRun else {
            return SecretRedaction.hiding(url: configuration.endpoint, token: nil, in: text)
        }
        let basic = String(OwnTracksCredentials(token: token).authorizationHeader.dropFirst("Basic ".count))
        let whole = SyncRequest.replacing(token, in: text)
        return SecretRedaction.hiding(url: configuration.endpoint, token: token, others: [basic], in: whole)
    }
}
