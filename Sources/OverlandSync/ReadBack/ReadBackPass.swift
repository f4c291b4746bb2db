import OverlandJSON
import OverlandJournal
import OverlandProtocol

/// After a destination's drain, asks its receiver what it holds for the points acknowledged
/// but not yet known stored, and acts on the answer (`verify true`):
///
/// 1. from the destination's stored mark (`SyncState.storedThrough`; on the first verifying
///    run, where this run's drain began) to its cursor, takes the points `chunkSize` at a
///    time, reads the receiver's store for their time range, in pages (`ReadBackReader`);
/// 2. a point is stored when the receiver holds the same second and position (within
///    `StoredPoint.tolerance` degrees) for this device; one missing is sent again, at most
///    twice (`resendLimit` points a run), the count written to the state file before each
///    resend, and the range read again;
/// 3. a point still missing after two resends is refused by the receiver: it is no longer
///    sent, and counted (`ReadBackReport.Refusal`, with what sets such points apart);
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
    /// Points sent again in one run at most; the rest waits for the next run.
    public var resendLimit = 5_000
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
        self.resender = resender ?? HTTPResender(configuration: configuration, transport: transport)
        self.wallClock = wallClock
    }

    /// How points are sent to this destination, as a fingerprint: its url, token, protocol,
    /// profile and device id. Refused points are tried again once it changes.
    public var sendingFingerprint: String {
        FNV1a.hex(configuration.endpoint, configuration.token ?? "", configuration.wireProtocol.rawValue,
                  configuration.profile.name, configuration.deviceID)
    }

    /// Places `cursor`'s stored mark where this run's drain began, when it has none yet:
    /// what the drain sends is compared by this run's pass or, when the drain fails
    /// before it, by a later one. Call it whenever verify is on.
    public static func begin(_ journal: Journal, _ cursor: CursorName, runStart: UInt64) throws(JournalError) {
        var state = try SyncState.load(journal: journal, destination: cursor.text)
        guard state.storedThrough == nil else { return }
        state.storedThrough = runStart
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
        let end: UInt64
        do {
            state = try SyncState.load(journal: journal, destination: cursorName.text)
            let cursor = try journal.cursor(for: cursorName)
            // Through a broker, what this run published may not have reached its
            // subscriber yet: the next run reads it back.
            end = resender.readsBackAtOnce ? cursor : min(cursor, runStart)
        } catch {
            report.unfinished = error.description
            return report
        }
        var mark = startingMark(&state, runStart: runStart, end: end, report: &report)
        var refusal = RefusalTally()
        do {
            try await compareChunks(from: &mark, to: end, state: &state, report: &report, refusal: &refusal)
        } catch {
            report.unfinished = (error as? ReadBackError)?.description ?? "\(error)"
        }
        await finishResends(&report)
        report.storedThrough = mark
        report.refused = refusal.refusal
        if let refused = report.refused {
            state.lastRefusal = refused.line(receiver: reader.receiverName)
            try? state.save(in: journal, as: stateFileName)
        }
        return report
    }

    /// Compares the points from `mark` to `end` a chunk at a time, moving `mark` (durably)
    /// past each chunk settled, until one is cut short. Once a chunk waits for the next
    /// run's read-back (sent again through a broker), the mark stays before it and the
    /// chunks behind it are still compared (their refusals count when the mark reaches them).
    private func compareChunks(from mark: inout UInt64, to end: UInt64, state: inout SyncState, report: inout ReadBackReport,
                               refusal: inout RefusalTally) async throws {
        var comparison = Comparison(pass: self)
        var held = false
        let records = try journal.records(from: mark)
        var position = mark
        while position < end {
            let (chunk, chunkEnd) = try Self.nextChunk(records, end: end, size: chunkSize)
            position = chunkEnd
            let outcome: Comparison.Outcome = chunk.isEmpty ? .settled
                : try await comparison.compare(chunk, state: &state, report: &report, refusal: &refusal, countingRefusals: !held)
            if outcome == .stopped { return }
            if outcome == .resentForNextRun { held = true }
            if held { continue }
            mark = chunkEnd
            state.storedThrough = mark
            for sent in chunk { state.resends[sent.sequence] = nil }
            try state.save(in: journal, as: stateFileName)
        }
    }

    /// After a pass that sent points again: the resender's last step, and what the run says
    /// of resends read back only by the next run.
    private func finishResends(_ report: inout ReadBackReport) async {
        guard report.resent > 0 else { return }
        do {
            try await resender.finish(timeout: .milliseconds(Int64(configuration.requestTimeout * 1000)))
        } catch {
            report.unfinished = report.unfinished ?? (error as? ReadBackError)?.description ?? "\(error)"
        }
        if report.unfinished == nil, report.resentForNextRun > 0 {
            report.unfinished = "\(Plural.count(report.resentForNextRun, "point")) the receiver did not hold sent again through the broker"
        }
    }

    /// This destination's state file.
    private var stateFileName: String { SyncState.fileName(forDestination: cursorName.text) }

    /// Where the pass starts: the stored mark (`runStart` when there is none yet), or the
    /// first refused point when the destination is sent otherwise since it was refused (a
    /// setting fixed: what was refused is tried again).
    private func startingMark(_ state: inout SyncState, runStart: UInt64, end: UInt64, report: inout ReadBackReport) -> UInt64 {
        var mark = min(state.storedThrough ?? runStart, end)
        if let from = state.refusedFrom, state.refusedAgainst != sendingFingerprint {
            mark = min(mark, from)
            report.retriedRefused = state.refusedRecords
            state.refusedFrom = nil
            state.refusedAgainst = nil
            state.refusedRecords = 0
            state.resends = [:]
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
