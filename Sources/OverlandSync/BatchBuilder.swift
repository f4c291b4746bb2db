import OverlandJournal
import OverlandProtocol

/// One request's worth of records: the request, and where the cursor goes once the server
/// acknowledges it.
struct Batch: Sendable {
    /// The request; nil when nothing in the range can be sent (no location among the
    /// waiting records, for a receiver of locations) and the range only needs to be
    /// marked handled.
    var request: SyncRequest?
    /// The first record's sequence number.
    var first: UInt64
    /// The cursor after delivery: one past the last record this request covers.
    var next: UInt64
    /// Points carried in the request.
    var count: Int
    /// Records the batch passes over by the logging mode (the newest-only modes send one
    /// point and skip the rest); counted as skipped, never as sent.
    var skipped: UInt64 = 0
    /// Records the batch passes over because the receiver's encoder cannot carry them
    /// (receivers of locations take no trip, visit or action records, nor a line no point
    /// can be read from); counted as not carried, never as sent.
    var notCarried: UInt64 = 0
    /// Records waiting once this batch is delivered (an estimate while the logger appends).
    var backlogAfter: UInt64 = 0
}

/// Reads the journal from the cursor and hands its records to the receiver, by the
/// receiver's batch rule, one request at a time. It knows nothing of any encoding: the
/// receiver's `RequestEncoder` writes the request. Records stream: one segment in memory
/// at a time.
///
/// Not thread-safe: the engine lets one task at a time use it (it prefetches the next batch
/// in a child task while a request is in flight, and awaits it before the next use).
final class BatchBuilder: @unchecked Sendable {
    private let journal: Journal
    private let receiver: any Receiver
    private let onIssue: JournalIssueHandler?
    private let cursor: UInt64
    private var reader: JournalReader?
    /// A record read but left for the next batch (the body size cap).
    private var carried: JournalRecord?
    private var finished = false

    /// Two encoders, used in turn (see `takeEncoder`).
    private var encoders: [(any RequestEncoder)?] = [nil, nil]
    private var encoderTurn = 0

    /// The journal's newest record as last looked at, and when.
    private var newest: Newest?
    private var newestCheckedAt: ContinuousClock.Instant?
    /// How often the newest record is looked at again during a long drain.
    static let newestRefreshInterval = Duration.seconds(1)
    /// A body stops growing past this size, whatever the batch size (records are at most
    /// 64 KiB each, so 1000 of them could otherwise make a 64 MiB request).
    static let maximumBodyBytes = 4 << 20

    struct Newest {
        var record: JournalRecord
        /// The record as a location; nil for a trip, visit or action record.
        var point: LocationFeature?
    }

    init(journal: Journal, receiver: any Receiver, cursor: UInt64, onIssue: JournalIssueHandler?) {
        self.journal = journal
        self.receiver = receiver
        self.onIssue = onIssue
        self.cursor = cursor
    }

    /// The next request, or nil when everything from the cursor is covered.
    func next() throws(JournalError) -> Batch? {
        guard !finished else { return nil }
        var batch: Batch?
        switch receiver.batchRule {
        case .batches(let size):
            batch = try nextBatch(size: size)
        case .onePerRequest:
            batch = try nextSingle()
        case .newestOnly:
            finished = true
            batch = try newestOnly()
        }
        if batch == nil { finished = true }
        if let next = batch?.next { batch?.backlogAfter = backlog(after: next) }
        return batch
    }

    /// Records waiting after `next`, from the newest record last looked at.
    private func backlog(after next: UInt64) -> UInt64 {
        guard let newest else { return 0 }
        let end = newest.record.sequence + 1
        return end > next ? end - next : 0
    }

    /// The next record from the cursor on: one carried over, else the next one read.
    private func nextRecord() throws(JournalError) -> JournalRecord? {
        if let pending = carried {
            carried = nil
            return pending
        }
        if reader == nil { reader = try journal.records(from: cursor, onIssue: onIssue) }
        return try reader!.next()
    }

    // MARK: - Batches

    /// Up to `size` records, oldest first, with `current` when more than twice `size` wait.
    private func nextBatch(size: Int) throws(JournalError) -> Batch? {
        var encoder = takeEncoder()
        var first: UInt64?
        var last: UInt64?
        while encoder.count < size, let record = try nextRecord() {
            if encoder.count > 0 && encoder.byteCount + record.line.count + 1 > Self.maximumBodyBytes {
                carried = record
                break
            }
            if first == nil { first = record.sequence }
            _ = encoder.append(record.line)
            last = record.sequence
        }
        guard let first, let last else { return nil }
        try refreshNewest(force: false)
        var current: ArraySlice<UInt8>?
        if let newest, newest.point != nil, newest.record.sequence > last,
           newest.record.sequence + 1 - first > 2 * UInt64(size) {
            current = newest.record.line
        }
        let request = encoder.finish(current: current, newest: newest?.point)
        encoders[encoderTurn] = encoder
        return Batch(request: request, first: first, next: last + 1, count: encoder.count)
    }

    /// An empty encoder for the next batch. Encoders are used in turn, two of them: while
    /// one batch is in flight the next is built in the other, and by the time an encoder
    /// comes round again its request is done with, so its storage is reused rather than
    /// allocated again. (Fresh bodies, 640 KiB each at 1000 points, came and went in
    /// glibc's malloc arenas, which kept growing with the backlog.)
    private func takeEncoder() -> any RequestEncoder {
        encoderTurn = 1 - encoderTurn
        guard var encoder = encoders[encoderTurn] else { return receiver.makeEncoder() }
        // Out of the array first, so that `reset` finds the storage uniquely held when the
        // request that shared it is gone (if it is not, `reset` allocates: still correct).
        encoders[encoderTurn] = nil
        encoder.reset()
        return encoder
    }

    // MARK: - One per request

    /// The next location alone, with the records before it that the receiver does not
    /// carry (skipped); nil request when none of the remaining records is a location.
    private func nextSingle() throws(JournalError) -> Batch? {
        var encoder = takeEncoder()
        var first: UInt64?
        var last: UInt64 = 0
        var notCarried: UInt64 = 0
        while let record = try nextRecord() {
            if first == nil { first = record.sequence }
            last = record.sequence
            if encoder.append(record.line) {
                let request = encoder.finish(current: nil, newest: nil)
                encoders[encoderTurn] = encoder
                try refreshNewest(force: false)
                return Batch(request: request, first: first!, next: record.sequence + 1, count: 1, notCarried: notCarried)
            }
            notCarried += 1
            // A long run of records that are not locations ends a batch of its own, so
            // that the cursor passes them without holding them all.
            if notCarried == 1000 {
                return Batch(request: nil, first: first!, next: record.sequence + 1, count: 0, notCarried: notCarried)
            }
        }
        guard let first else { return nil }
        return Batch(request: nil, first: first, next: last + 1, count: 0, notCarried: notCarried)
    }

    // MARK: - Newest only

    /// One request with the newest point by time among those waiting (a journal may hold
    /// points out of time order: an old capture logged after live ones); every other
    /// waiting record is skipped. Nil request when none of them is a location.
    private func newestOnly() throws(JournalError) -> Batch? {
        try refreshNewest(force: true)
        guard let newest, newest.record.sequence >= cursor else { return nil }
        let next = newest.record.sequence + 1
        let waiting = next - cursor
        var encoder = receiver.makeEncoder()
        guard let chosen = try newestByTime(upTo: newest.record.sequence), encoder.append(chosen.line[...]) else {
            return Batch(request: nil, first: cursor, next: next, count: 0, notCarried: waiting)
        }
        let request = encoder.finish(current: nil, newest: chosen.point)
        return Batch(request: request, first: cursor, next: next, count: 1, skipped: waiting - 1)
    }

    /// The location with the latest timestamp from the cursor to `last` (of equal times,
    /// the one logged last), with its stored line; nil when none is a location.
    private func newestByTime(upTo last: UInt64) throws(JournalError) -> (line: [UInt8], point: LocationFeature)? {
        let reader = try journal.records(from: cursor, onIssue: onIssue)
        var best: (line: [UInt8], point: LocationFeature)?
        while let record = try reader.next(), record.sequence <= last {
            guard let point = try? LocationFeature(jsonLine: record.line) else { continue }
            if let found = best, point.timestamp < found.point.timestamp { continue }
            best = (Array(record.line), point)
        }
        return best
    }

    // MARK: - Shared

    /// Looks at the journal's newest record again when the last look is over a second old.
    private func refreshNewest(force: Bool) throws(JournalError) {
        let now = ContinuousClock.now
        if !force, let checked = newestCheckedAt, now - checked < Self.newestRefreshInterval { return }
        newestCheckedAt = now
        if let record = try journal.lastRecord(onIssue: onIssue) {
            if newest?.record.sequence != record.sequence {
                newest = Newest(record: record, point: try? LocationFeature(jsonLine: record.line))
            }
        } else {
            newest = nil
        }
    }
}
