import OverlandJSON
import OverlandJournal
import OverlandProtocol

/// Drains one journal to the configured server: reads from the cursor, sends batches
/// through a `Transport`, and moves the cursor only after the server acknowledged a batch.
///
/// A run, in order:
/// 1. takes the journal's cursor lock (`tryLockCursors`, also taken by `overland journal move`); a run that finds it taken ends
///    at once with `.alreadyRunning`;
/// 2. unless told to send now, does nothing while sending is off, while the backoff after
///    failures holds, or while the send interval since the last delivery has not passed;
/// 3. sends batch after batch until nothing waits, an attempt fails, or `maxTime` runs
///    out; after each acknowledged batch the cursor moves (atomically and durably), so a
///    kill at any point resends at most the one batch in flight, byte for byte the same
///    `locations` (a resend's `current` and URL placeholders may show a newer point);
/// 4. records the outcome in `state/sync.json` (backoff on failure: see `SyncBackoff`),
///    and deletes delivered segments past their retention.
///
/// The engine never prints: it reports through its return value and callbacks.
public final class SyncEngine: Sendable {
    /// The journal drained.
    public let journal: Journal
    /// What and where to send.
    public let configuration: SyncConfiguration
    /// The destination: the journal cursor this engine reads from and moves.
    public let cursorName: CursorName
    private let transport: any Transport
    private let backoff: SyncBackoff
    private let wallClock: @Sendable () -> Int64
    private let random: @Sendable () -> Double

    /// Creates an engine. `wallClock` (Unix seconds) and `random` (0..<1, for the backoff's
    /// jitter) are there for tests.
    public init(
        journal: Journal,
        configuration: SyncConfiguration,
        transport: any Transport,
        cursor: CursorName = .default,
        backoff: SyncBackoff = SyncBackoff(),
        wallClock: @escaping @Sendable () -> Int64 = { Journal.currentTime() },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.journal = journal
        self.configuration = configuration
        self.transport = transport
        self.cursorName = cursor
        self.backoff = backoff
        self.wallClock = wallClock
        self.random = random
    }

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
        do {
            try configuration.validate()
        } catch {
            return SyncReport(outcome: .configurationError, message: error.description)
        }
        let lock: JournalLock
        switch Self.lockForRun(journal) {
        case .refused(let report): return report
        case .locked(let acquired): lock = acquired
        }
        let report = await run(holding: lock, sendNow: sendNow, onProgress: onProgress, onSet: onSet, onIssue: onIssue)
        // Held until here: the lock covers the whole run, state file included.
        withExtendedLifetime(lock) {}
        return report
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

    /// Runs once, like `run`, for a caller that holds the journal's cursor lock
    /// (`lockForRun`) for the whole run: a run over several destinations.
    public func run(
        holding lock: JournalLock,
        sendNow: Bool = false,
        onProgress: ((SyncProgress) -> Void)? = nil,
        onSet: ((JSONValue) -> Void)? = nil,
        onIssue: JournalIssueHandler? = nil
    ) async -> SyncReport {
        do {
            try configuration.validate()
        } catch {
            return SyncReport(outcome: .configurationError, message: error.description)
        }
        var state: SyncState
        var warnings: [String] = []
        do {
            if let bytes = try journal.readState(stateFileName) {
                if let parsed = SyncState(parsing: bytes) {
                    state = parsed
                } else {
                    state = SyncState()
                    warnings.append("ignoring unreadable sync state '\(journal.statePath(of: stateFileName))'")
                }
            } else {
                state = SyncState()
            }
        } catch {
            return SyncReport(outcome: .stateError, message: "\(error)")
        }
        var report = await drain(state: &state, sendNow: sendNow, onProgress: onProgress, onSet: onSet, onIssue: onIssue)
        withExtendedLifetime(lock) {}
        report.warnings.insert(contentsOf: warnings, at: 0)
        return report
    }

    /// This destination's state file in the journal's `state/`.
    var stateFileName: String { SyncState.fileName(forDestination: cursorName.text) }

    static func pendingMoveMessage(_ intent: JournalMoveIntent) -> String {
        "\(intent); finish it with 'overland journal move' (or --abort) first"
    }

    /// The first request a run would send now, with the token redacted, or nil when
    /// nothing waits. Takes no lock and changes nothing: for `--dry-run`.
    public func dryRun(onIssue: JournalIssueHandler? = nil) throws -> SyncRequest? {
        try configuration.validate()
        let builder = BatchBuilder(journal: journal, configuration: configuration, cursor: try journal.cursor(for: cursorName), onIssue: onIssue)
        return try builder.next()?.request?.redacted(secret: configuration.effectiveToken)
    }

    // MARK: - The run, under the lock

    private func drain(
        state: inout SyncState,
        sendNow: Bool,
        onProgress: ((SyncProgress) -> Void)?,
        onSet: ((JSONValue) -> Void)?,
        onIssue: JournalIssueHandler?
    ) async -> SyncReport {
        let now = wallClock()
        if !sendNow, let held = schedule(state: state, now: now) { return held }

        let started = ContinuousClock.now
        let stopAt = configuration.maxTime.map { started + .milliseconds(Int64($0 * 1000)) }
        let acknowledgement: Reply.Acknowledgement =
            configuration.loggingMode == .owntracks || configuration.consider2xxSuccessful ? .any2xx : .resultOK
        var report = SyncReport(outcome: .nothingToSend)
        var failure: (outcome: SyncReport.Outcome, message: String)?
        // A 429 or 503 may say how long to wait (Retry-After, honoured up to a cap).
        var retryAfter: Int64?
        var cursorMoved = false
        var stateSavedAfterRecovery = state.consecutiveFailures == 0

        let builder: BatchBuilder
        do {
            builder = BatchBuilder(journal: journal, configuration: configuration, cursor: try journal.cursor(for: cursorName), onIssue: onIssue)
        } catch {
            return SyncReport(outcome: .journalError(error), message: error.description)
        }

        // The next batch is read while the current one is in flight: reading and sending
        // overlap, and still only one batch is ever unacknowledged.
        func prefetch() -> Task<Result<Batch?, JournalError>, Never> {
            Task { Result { () throws(JournalError) in try builder.next() } }
        }
        var upcoming: Task<Result<Batch?, JournalError>, Never>? = prefetch()

        sending: while true {
            let batch: Batch
            let fetched = await upcoming!.value
            upcoming = nil
            do {
                guard let next = try fetched.get() else { break }
                batch = next
            } catch {
                failure = (.journalError(error), error.description)
                break
            }
            if Task.isCancelled {
                report.outcome = .interrupted
                report.message = "interrupted; the rest waits for the next run"
                break
            }
            // Checked between batches: the first always goes, so a short maximum cannot
            // starve a run on a slow disk.
            if let stopAt, report.batches > 0, ContinuousClock.now >= stopAt {
                report.outcome = .maxTimeReached
                report.message = "stopped after the maximum time; the rest waits for the next run"
                break
            }
            upcoming = prefetch()
            guard let request = batch.request else {
                // Nothing sendable in this range (OwnTracks, no location): it counts as handled.
                do {
                    try CursorWrites.advance(journal, cursorName, to: batch.next)
                    cursorMoved = true
                } catch {
                    failure = (.journalError(error), error.description)
                    break sending
                }
                report.skippedRecords += Int(batch.skipped)
                state.skippedRecords += batch.skipped
                continue
            }

            var timeout = Duration.milliseconds(Int64(configuration.requestTimeout * 1000))
            if let stopAt { timeout = min(timeout, max(stopAt - ContinuousClock.now, .seconds(1))) }
            state.lastAttempt = wallClock()
            let httpReply: HTTPReply
            do {
                httpReply = try await transport.send(request, timeout: timeout)
            } catch {
                if Task.isCancelled {
                    report.outcome = .interrupted
                    report.message = "interrupted; the rest waits for the next run"
                    break
                }
                report.lastStatus = nil
                state.lastStatus = nil
                failure = (.retryLater, String(describing: error))
                break
            }
            let reply = Reply(status: httpReply.status, body: httpReply.body, acknowledgement: acknowledgement,
                              redirectLocation: httpReply.header("Location"))
            if httpReply.status == 429 || httpReply.status == 503 {
                retryAfter = httpReply.header("Retry-After").flatMap { RetryAfter.seconds($0, now: wallClock()) }
            }
            report.lastStatus = reply.status
            state.lastStatus = reply.status
            if let name = reply.geocodeFullName.map(hidingSecrets) {
                report.geocode = name
                state.geocode = name
            }
            switch reply.outcome {
            case .delivered:
                // Crash tests kill the process here (OVERLAND_FAULT_POINT=sync.after-reply):
                // acknowledged, not yet recorded. The next run must resend the same batch.
                FaultPoint.reach("sync.after-reply")
                do {
                    try CursorWrites.advance(journal, cursorName, to: batch.next)
                } catch {
                    // Delivered but not recorded: the batch will be sent again.
                    failure = (.journalError(error), error.description)
                    break sending
                }
                cursorMoved = true
                report.sentRecords += batch.count
                report.skippedRecords += Int(batch.skipped)
                state.skippedRecords += batch.skipped
                report.batches += 1
                report.outcome = .delivered
                state.lastSuccess = wallClock()
                state.consecutiveFailures = 0
                state.nextAttempt = nil
                if !stateSavedAfterRecovery {
                    // Clear the backoff at once, so that a run killed during a long drain
                    // does not leave the next one waiting.
                    stateSavedAfterRecovery = true
                    do { try state.save(in: journal, as: stateFileName) } catch { report.warnings.append(error.description) }
                }
                if let set = reply.set { onSet?(set) }
                onProgress?(SyncProgress(sentRecords: report.sentRecords, batches: report.batches,
                                         backlog: batch.backlogAfter))
            case .notAcknowledged(let message), .retryable(let message):
                failure = (.retryLater, message)
            case .refused(let status, let message):
                failure = (.refused(status: status), message)
            case .wrongEndpoint(_, let message):
                // Named with the url (query and credentials left out: a token may ride in
                // either), so the user sees which setting to fix.
                failure = (.configurationError, "\(EndpointURL.forDisplay(configuration.endpoint)): \(message): check the endpoint url")
            }
            if failure != nil { break }
        }

        // Nothing may read the journal for this run once it ends.
        if let upcoming { _ = await upcoming.value }
        if var failure {
            // Server text (an error, a redirect's Location) may echo the token: it is
            // printed and kept in state/sync.json, so the token is taken out first.
            failure.message = hidingSecrets(failure.message)
            report.outcome = failure.outcome
            report.message = failure.message
            if case .journalError = failure.outcome {} else {
                let failedAt = wallClock()
                state.consecutiveFailures += 1
                state.lastFailure = failedAt
                state.lastError = failure.message
                let delay = backoff.delay(afterFailures: state.consecutiveFailures, random: random(), retryAfter: retryAfter)
                state.nextAttempt = failedAt + Int64(delay.rounded(.up))
            }
        }
        if report.outcome == .nothingToSend {
            report.message = "nothing to send"
        }
        do { try state.save(in: journal, as: stateFileName) } catch { report.warnings.append(error.description) }
        if cursorMoved, let keep = configuration.keepSentSeconds {
            do { try journal.removeSentSegments(keepSeconds: keep, now: wallClock(), readers: [cursorName]) } catch { report.warnings.append(error.description) }
        }
        report.backlog = (try? journal.backlog(for: cursorName)) ?? 0
        if report.outcome == .configurationError, let message = report.message {
            report.message = message + "; \(report.backlog) points kept"
        }
        return report
    }

    /// `text` with the token (as is, percent-encoded, and as OwnTracks' Basic credentials)
    /// hidden: every run of 4 or more of its characters (`SecretRedaction`), so that a copy
    /// cut short, padded or split shows at most 3 in a row. (A token of a few characters
    /// cannot be hidden without garbling every message: it is left.)
    private func hidingSecrets(_ text: String) -> String {
        guard let token = configuration.effectiveToken, token.count >= SecretRedaction.shortestRun else { return text }
        let basic = String(OwnTracksCredentials(token: token).authorizationHeader.dropFirst("Basic ".count))
        let whole = SyncRequest(url: text, headers: [], body: []).redacted(secret: token).url
        return SecretRedaction.hiding([token, basic], in: whole)
    }

    /// Why a run must not send now, or nil when it may.
    private func schedule(state: SyncState, now: Int64) -> SyncReport? {
        guard let interval = configuration.sendIntervalSeconds else {
            return SyncReport(outcome: .sendingOff,
                              message: "sending is off (send interval 'off'): nothing is sent until it is changed back, or with --now")
        }
        // A time far in the future means the clock went back: ignore it rather than wait.
        if let next = state.nextAttempt, next > now, next <= now + Int64(backoff.longestWait) {
            let failures = state.consecutiveFailures
            var report = SyncReport(outcome: .backingOff(until: next),
                                    message: "backing off after \(failures) failed attempt(s) until \(ISO8601UTC.string(from: next))")
            report.lastStatus = state.lastStatus
            return report
        }
        if interval > 0, let last = state.lastSuccess, last + Int64(interval) > now, last <= now {
            let next = last + Int64(interval)
            return SyncReport(outcome: .notDue(nextSend: next),
                              message: "next send due at \(ISO8601UTC.string(from: next))")
        }
        return nil
    }
}
