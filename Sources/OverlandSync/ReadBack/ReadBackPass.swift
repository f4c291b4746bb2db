import OverlandJSON
import OverlandJournal
import OverlandProtocol

/// Asks a destination's receiver what it holds of the points acknowledged but not yet known
/// stored, and acts on the answer (`verify true`):
///
/// 1. from the destination's stored mark (`SyncState.storedThrough`; on the first verifying
///    run, where that run's drain began) to its cursor, takes the points `chunkSize` at a
///    time and reads the receiver's store for their time range, in pages (`ReadBackReader`),
///    but only what has **settled**: acknowledged (or sent again) at least the reader's
///    `settleSeconds` ago (`SyncState.acknowledgedAt`, `resentAt`). What this run sent is
///    read back by a later run, never judged before the receiver had time to store it;
/// 2. a point is stored when the receiver holds the same second and position (within
///    `StoredPoint.tolerance` degrees) under the device it was filed under
///    (`SyncConfiguration.filedDevice`); one missing is sent again, the count written to
///    the state file before the resend, and read back once that resend has settled;
/// 3. a point missing at three reads, each at least the settle time after the point was
///    last sent, is refused by the receiver: it is no longer sent, and counted
///    (`ReadBackReport.Refusal`, with what sets such points apart);
/// 4. once every point of a chunk is stored or refused the mark moves past it (durably).
///
/// A kill at any point loses nothing: the mark moves only after the comparison, and the
/// next run compares from it again, with the resend counts kept. Only what was sent is
/// read, never the whole history. The pass never prints.
public struct ReadBackPass: Sendable {
    public let journal: Journal
    public let cursorName: CursorName
    public let configuration: SyncConfiguration
    public let reader: any ReadBackReader
    let transport: any Transport
    /// How missing points are sent again.
    let resender: any ReadBackResender
    let wallClock: @Sendable () -> Int64
    /// Points compared at once: the reader's `pointsPerRead` unless set.
    public var chunkSize: Int {
        get { chosenChunkSize ?? reader.pointsPerRead }
        set { chosenChunkSize = newValue }
    }
    private var chosenChunkSize: Int?
    /// Points sent again in one run at most; the rest waits for the next run. With the
    /// resends not yet read back, never more than the state file keeps counts of.
    public var resendLimit = SyncState.maximumResendEntries
    /// Points one range's answer may hold at most (the memory bound on an answer).
    public var answerLimit = 200_000
    /// A point is sent again at most this often before it counts as refused.
    public static let resendsBeforeRefusal = 2

    /// A pass reading through `transport`; missing points are sent again by `resender`
    /// (nil: through `transport`, as `configuration`'s HTTP receiver takes them).
    public init(journal: Journal, cursor: CursorName, configuration: SyncConfiguration, reader: any ReadBackReader,
                transport: any Transport, resender: (any ReadBackResender)? = nil,
                wallClock: @escaping @Sendable () -> Int64 = { Journal.currentTime() }) {
        self.journal = journal
        self.cursorName = cursor
        self.configuration = configuration
        self.reader = reader
        self.transport = transport
        self.resender = resender ?? HTTPResender(configuration: configuration, transport: transport, journal: journal, cursor: cursor)
        self.wallClock = wallClock
    }

    /// How points are sent to this destination, as a fingerprint: its url, token, protocol,
    /// profile and device id. Refused points are tried again once it changes.
    public var sendingFingerprint: String {
        FNV1a.hex(configuration.endpoint, configuration.token ?? "", configuration.wireProtocol.rawValue,
                  configuration.profile.name, configuration.deviceID)
    }

    /// Places `cursor`'s stored mark where this run's drain began (`acknowledged`'s lower
    /// bound) when it has none yet, never beyond the cursor, and records when `acknowledged`
    /// was acknowledged (`now`): it is read back once settled. Call it whenever verify is on.
    public static func begin(_ journal: Journal, _ cursor: CursorName, acknowledged: Range<UInt64>, now: Int64) throws(JournalError) {
        var state = try SyncState.load(journal: journal, destination: cursor.text)
        let before = state
        if state.storedThrough == nil { state.storedThrough = acknowledged.lowerBound }
        if !acknowledged.isEmpty {
            state.acknowledgedAt.append(SyncState.AcknowledgedRange(from: acknowledged.lowerBound, through: acknowledged.upperBound, at: now))
            while state.acknowledgedAt.count > SyncState.maximumAcknowledgedRanges {
                // The two oldest become one, acknowledged when the later was: read no sooner.
                let first = state.acknowledgedAt.removeFirst()
                state.acknowledgedAt[0].from = min(first.from, state.acknowledgedAt[0].from)
                state.acknowledgedAt[0].at = max(first.at, state.acknowledgedAt[0].at)
            }
        }
        guard state != before else { return }
        try state.save(in: journal, as: SyncState.fileName(forDestination: cursor.text))
    }

    /// Records why `cursor` cannot be read back as configured (nil: it can), for
    /// `overland status`. Writes only when it changes.
    public static func record(problem: String?, _ journal: Journal, _ cursor: CursorName) throws(JournalError) {
        var state = try SyncState.load(journal: journal, destination: cursor.text)
        guard state.readBackProblem != problem else { return }
        state.readBackProblem = problem
        try state.save(in: journal, as: SyncState.fileName(forDestination: cursor.text))
    }

    /// One point of the journal being compared.
    struct Sent {
        var sequence: UInt64
        var line: ArraySlice<UInt8>
        var point: LocationFeature
    }

    /// Runs the pass. `runStart` is the destination's cursor before this run's drain: where
    /// a destination that has never been read back starts.
    public func run(runStart: UInt64) async -> ReadBackReport {
        var report = ReadBackReport()
        report.receiverName = reader.receiverName
        var state: SyncState
        let cursor: UInt64
        do {
            state = try SyncState.load(journal: journal, destination: cursorName.text)
            cursor = try journal.cursor(for: cursorName)
        } catch {
            report.unfinished = error.description
            return report
        }
        let now = wallClock()
        var mark = startingMark(&state, runStart: runStart, cursor: cursor, report: &report)
        let end = settledEnd(&state, cursor: cursor, now: now)
        // Saved at once: retention by another run keeps what this pass will read.
        try? state.save(in: journal, as: stateFileName)
        report.waiting = Int(clamping: cursor - min(cursor, max(end, mark)))
        var refusal = RefusalTally()
        do {
            try await compareChunks(from: &mark, to: end, now: now, state: &state, report: &report, refusal: &refusal)
        } catch {
            report.unfinished = (error as? ReadBackError)?.description ?? "\(error)"
            report.misconfigured = (error as? ReadBackError)?.isConfiguration == true
        }
        await finishResends(&report)
        state.readBackProblem = report.misconfigured ? report.unfinished : nil
        report.storedThrough = mark
        report.refused = refusal.refusal(for: configuration)
        report.refused?.throughBroker = resender.sendsThroughBroker
        if let refused = report.refused {
            state.lastRefusal = refused.line(receiver: reader.receiverName)
        }
        try? state.save(in: journal, as: stateFileName)
        return report
    }

    /// Where what has settled ends: the cursor, or the first record of the oldest range
    /// acknowledged less than the settle time before `now`. Settled ranges are forgotten.
    /// A range acknowledged more than a day after `now` is taken as settled (the clock
    /// went back), as the backoff does.
    func settledEnd(_ state: inout SyncState, cursor: UInt64, now: Int64) -> UInt64 {
        state.acknowledgedAt.removeAll { !isSettling(since: $0.at, now: now) }
        return min(cursor, state.acknowledgedAt.map(\.from).min() ?? cursor)
    }

    /// Whether something sent at `time` may still be on its way into the receiver's store.
    func isSettling(since time: Int64?, now: Int64) -> Bool {
        guard let time else { return false }
        return time + reader.settleSeconds > now && time <= now + 86_400
    }

    /// Compares the points from `mark` to `end` a chunk at a time, moving `mark` (durably)
    /// past each chunk settled, until one is cut short. Once a chunk waits (its points sent
    /// again, or a resend not yet settled), the mark stays before it and the chunks behind
    /// it are still compared (their refusals count when the mark reaches them).
    private func compareChunks(from mark: inout UInt64, to end: UInt64, now: Int64, state: inout SyncState,
                               report: inout ReadBackReport, refusal: inout RefusalTally) async throws {
        var comparison = Comparison(pass: self, now: now, state: state)
        comparison.session.budget = ReadBackBudget(points: Int(clamping: end - min(end, mark)))
        var held = false
        let records = try journal.records(from: mark)
        var position = mark
        while position < end {
            let (chunk, chunkEnd) = try Self.nextChunk(records, end: end, size: chunkSize)
            position = chunkEnd
            let outcome: Comparison.Outcome = chunk.isEmpty ? .settled
                : try await comparison.compare(chunk, state: &state, report: &report, refusal: &refusal, countingRefusals: !held)
            if outcome == .stopped { return }
            if outcome == .waiting { held = true }
            if held { continue }
            mark = chunkEnd
            state.storedThrough = mark
            for sent in chunk { state.resends[sent.sequence] = nil }
            if state.resends.isEmpty { state.resentAt = nil }
            try state.save(in: journal, as: stateFileName)
        }
    }

    /// After a pass that sent points again: the resender's last step (the newest point once
    /// more, the position a tracker should show), and what the run says of them.
    private func finishResends(_ report: inout ReadBackReport) async {
        guard report.resent > 0 else { return }
        do {
            try await resender.finish(timeout: .milliseconds(Int64(configuration.requestTimeout * 1000)))
        } catch {
            report.unfinished = report.unfinished ?? (error as? ReadBackError)?.description ?? "\(error)"
        }
        if report.unfinished == nil {
            report.unfinished = "\(Plural.count(report.resent, "point")) the receiver did not hold sent again\(resender.route)"
        }
    }

    /// This destination's state file.
    private var stateFileName: String { SyncState.fileName(forDestination: cursorName.text) }

    /// Where the pass starts: the stored mark (`runStart` when there is none yet), or the
    /// first refused point when the destination is sent otherwise since it was refused (a
    /// setting fixed: what was refused is tried again). A mark beyond the cursor was not
    /// written by a pass (which never passes the cursor): verification starts again from
    /// the journal's first record, never skips what it cannot have read.
    private func startingMark(_ state: inout SyncState, runStart: UInt64, cursor: UInt64, report: inout ReadBackReport) -> UInt64 {
        var mark = state.storedThrough ?? min(runStart, cursor)
        if mark > cursor {
            report.notes.append("the stored mark (record \(mark)) is beyond the cursor (record \(cursor)): "
                                + "reading back starts again from the journal's first record")
            mark = 0
            state.resends = [:]
            state.resentAt = nil
        }
        if let from = state.refusedFrom, state.refusedAgainst != sendingFingerprint {
            mark = min(mark, from)
            report.retriedRefused = state.refusedRecords
            state.refused.remove(from..<UInt64.max)
            state.refusedFrom = nil
            state.refusedAgainst = nil
            state.refusedRecords = 0
            state.resends = [:]
            state.resentAt = nil
        }
        state.storedThrough = mark
        return mark
    }

    /// The next `size` points before `end`, and the sequence number after the last record
    /// read (records that are not points are passed over with them).
    static func nextChunk(_ records: JournalReader, end: UInt64, size: Int) throws -> ([Sent], UInt64) {
        var chunk: [Sent] = []
        var after: UInt64 = 0
        while chunk.count < size, let record = try records.next() {
            guard record.sequence < end else { return (chunk, end) }
            after = record.sequence + 1
            if let point = try? LocationFeature(jsonLine: record.line) {
                chunk.append(Sent(sequence: record.sequence, line: record.line, point: point))
            }
        }
        return (chunk, chunk.count < size ? end : after)
    }
}
