import OverlandJSON
import OverlandJournal

/// What every destination shares, whatever carries its points (`DestinationSender`: the
/// HTTP receivers through `SyncEngine`, an MQTT broker through OverlandMQTT's
/// `MQTTSender`): its cursor, its state file (`state/sync.json`, `sync-NAME.json`), the
/// schedule (sending off, the backoff after failures, the send interval), the rule that a
/// destination whose url or token changed since its failures is tried at once
/// (`failures_against`, journal-format.md), and how a delivery or a failure is recorded.
///
/// The rules are written once, in this protocol's extension; a destination supplies the
/// values they read. A run: `begin` (the state, and whether the schedule holds it), the
/// destination's own sending, `recordDelivery`/`recordFailure` as it goes, `saveState`,
/// then `finish` (the run's notes on the report).
public protocol SyncDestination {
    /// The journal sent.
    var journal: Journal { get }
    /// The destination's cursor; its name names the state file too.
    var cursorName: CursorName { get }
    /// The receiver as `failures_against` records it (`SyncState.fingerprint(url:token:)`).
    var receiverFingerprint: String { get }
    /// The least time between two runs that send, in seconds; nil when sending is off.
    var sendIntervalSeconds: Int? { get }
    /// The backoff, the wall clock and the jitter.
    var timing: SyncTiming { get }
}

/// The clocks and the schedule of a destination's runs; tests inject them.
public struct SyncTiming: Sendable {
    /// How long to wait after failures.
    public var backoff: SyncBackoff
    /// Now, in Unix seconds (the backoff, the send interval, the state file's times).
    public var wallClock: @Sendable () -> Int64
    /// A number in 0..<1 for the backoff's jitter.
    public var random: @Sendable () -> Double
    /// Now, monotonic (how often the cursor is made durable: `DurabilityPacer`; when a
    /// run's `maxTime` runs out and how long each request may take to fit it).
    public var monotonicClock: @Sendable () -> ContinuousClock.Instant

    public init(backoff: SyncBackoff = SyncBackoff(), wallClock: @escaping @Sendable () -> Int64 = { Journal.currentTime() },
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
                monotonicClock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.backoff = backoff
        self.wallClock = wallClock
        self.random = random
        self.monotonicClock = monotonicClock
    }
}

/// How a destination's run starts (`SyncDestination.begin`).
public enum DestinationStart: Sendable {
    /// It may send now.
    case due(OpenedState)
    /// The schedule holds it (sending off, backing off, not due): the report says why.
    case held(SyncReport, OpenedState)
    /// Its state file cannot be read: the run's report.
    case failed(SyncReport)
}

/// A destination's state at the start of a run.
public struct OpenedState: Sendable {
    /// The state, its failures forgotten when the destination changed.
    public var state: SyncState
    /// The url or token changed since the failures: neither the backoff nor the send
    /// interval holds this run.
    public var destinationChanged: Bool
    /// What the run says about its state file (one that does not parse).
    public var warnings: [String]
}

extension SyncDestination {
    /// This destination's state file in the journal's `state/`.
    public var stateFileName: String { SyncState.fileName(forDestination: cursorName.text) }

    /// Reads the state, forgets failures against another receiver (a user who fixed a
    /// wrong url or token expects the next run to try it), and asks the schedule, unless
    /// `sendNow`.
    public func begin(sendNow: Bool) -> DestinationStart {
        var opened = OpenedState(state: SyncState(), destinationChanged: false, warnings: [])
        do {
            if let bytes = try journal.readState(stateFileName) {
                if let parsed = SyncState(parsing: bytes) {
                    opened.state = parsed
                } else {
                    opened.state = .unreadable
                    opened.warnings.append("ignoring unreadable sync state '\(journal.statePath(of: stateFileName))'")
                }
            }
        } catch {
            return .failed(SyncReport(outcome: .stateError, message: "\(error)"))
        }
        opened.destinationChanged = opened.state.forgetFailures(unlessAgainst: receiverFingerprint)
        if !sendNow, let held = schedule(opened.state, now: timing.wallClock(), ignoringInterval: opened.destinationChanged) {
            return .held(held, opened)
        }
        return .due(opened)
    }

    /// Why a run must not send now, or nil when it may. `ignoringInterval`: the send
    /// interval since the last delivery does not hold it (the destination changed; sending
    /// off still does).
    public func schedule(_ state: SyncState, now: Int64, ignoringInterval: Bool) -> SyncReport? {
        guard let interval = sendIntervalSeconds else {
            return SyncReport(outcome: .sendingOff,
                              message: "sending is off (send interval 'off'): nothing is sent until it is changed back, or with --now")
        }
        // A time far in the future means the clock went back: ignore it rather than wait.
        if let next = state.nextAttempt, next > now, next <= now + Int64(timing.backoff.longestWait) {
            var report = SyncReport(outcome: .backingOff(until: next),
                                    message: "backing off after \(Plural.count(state.consecutiveFailures, "failed attempt")) until \(ISO8601UTC.string(from: next))")
            report.lastStatus = state.lastStatus
            return report
        }
        if !ignoringInterval, interval > 0, let last = state.lastSuccess, last + Int64(interval) > now, last <= now {
            let next = last + Int64(interval)
            return SyncReport(outcome: .notDue(nextSend: next), message: "next send due at \(ISO8601UTC.string(from: next))")
        }
        return nil
    }

    /// Records a delivery: the failures and the backoff end.
    public func recordDelivery(_ state: inout SyncState) {
        state.lastSuccess = timing.wallClock()
        state.consecutiveFailures = 0
        state.nextAttempt = nil
        state.failuresAgainst = nil
    }

    /// Records a failed attempt against this receiver and when the next may be made
    /// (`retryAfter`: what a 429 or 503 asked for, in seconds).
    public func recordFailure(_ state: inout SyncState, message: String, retryAfter: Int64? = nil) {
        let failedAt = timing.wallClock()
        state.consecutiveFailures += 1
        state.failuresAgainst = receiverFingerprint
        state.lastFailure = failedAt
        state.lastError = message
        let delay = timing.backoff.delay(afterFailures: state.consecutiveFailures, random: timing.random(), retryAfter: retryAfter)
        state.nextAttempt = failedAt + Int64(CheckedInteger.roundedUp(min(delay, 86_400 * 366)) ?? 86_400)
    }

    /// Saves `state` whole, and durably unless told not to (the run's end saves it durably);
    /// a failure is a warning on `report`.
    public func saveState(_ state: SyncState, into report: inout SyncReport, durably: Bool = true) {
        do { try state.save(in: journal, as: stateFileName, durably: durably) } catch { report.warnings.append(error.description) }
    }

    /// The run's notes about its start, first on the report: an unreadable state file, and
    /// that the destination changed (unless sending is off, which still holds it).
    public func finish(_ report: SyncReport, _ opened: OpenedState) -> SyncReport {
        var report = report
        var notes = opened.warnings
        if opened.destinationChanged, report.outcome != .sendingOff { notes.append(SyncReport.destinationChangedNote) }
        report.warnings.insert(contentsOf: notes, at: 0)
        return report
    }
}

extension SyncReport {
    /// What a run says when the destination changed since its failures.
    public static let destinationChangedNote =
        "the destination changed since the last failed attempt: trying it now (no backoff, no send interval)"
}
