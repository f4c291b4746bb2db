import OverlandJournal
import OverlandProtocol

/// One request's worth of records: the request, and where the cursor goes once the server
/// acknowledges it.
struct Batch: Sendable {
    /// The request; nil when nothing in the range can be sent (the OwnTracks mode with no
    /// location among the waiting records) and the range only needs to be marked handled.
    var request: SyncRequest?
    /// The first record's sequence number.
    var first: UInt64
    /// The cursor after delivery: one past the last record this request covers.
    var next: UInt64
    /// Points carried in the request.
    var count: Int
    /// Records the batch passes over without sending them (the `latest` and `owntracks`
    /// modes send one point and skip the rest); counted as skipped, never as sent.
    var skipped: UInt64 = 0
    /// Records waiting once this batch is delivered (an estimate while the logger appends).
    var backlogAfter: UInt64 = 0
}

/// Reads the journal from the cursor and turns it into requests, one at a time, for the
/// configured logging mode. Records stream: one segment in memory at a time, and in the
/// `all` mode the stored lines go into the body as they are, never re-encoded, so the same
/// cursor always gives the same `locations` bytes.
///
/// Not thread-safe: the engine lets one task at a time use it (it prefetches the next batch
/// in a child task while a request is in flight, and awaits it before the next use).
final class BatchBuilder: @unchecked Sendable {
    private let journal: Journal
    private let configuration: SyncConfiguration
    private let onIssue: JournalIssueHandler?
    private let template: URLTemplate
    private let cursor: UInt64
    private var reader: JournalReader?
    /// A record read but left for the next batch (the body size cap).
    private var carried: JournalRecord?
    private var finished = false

    /// Two request bodies, used in turn (see `takeBody`).
    private var bodies: [RequestBodyWriter?] = [nil, nil]
    private var bodyTurn = 0

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

    init(journal: Journal, configuration: SyncConfiguration, cursor: UInt64, onIssue: JournalIssueHandler?) {
        self.journal = journal
        self.configuration = configuration
        self.onIssue = onIssue
        self.cursor = cursor
        template = URLTemplate(configuration.endpoint)
    }

    /// The next request, or nil when everything from the cursor is covered.
    func next() throws(JournalError) -> Batch? {
        guard !finished else { return nil }
        var batch: Batch?
        switch configuration.loggingMode {
        case .all:
            batch = try nextBatchOfAll()
            if batch == nil { finished = true }
        case .latest, .owntracks:
            finished = true
            batch = try newestOnly()
        }
        if let next = batch?.next { batch?.backlogAfter = backlog(after: next) }
        return batch
    }

    /// Records waiting after `next`, from the newest record last looked at.
    private func backlog(after next: UInt64) -> UInt64 {
        guard let newest else { return 0 }
        let end = newest.record.sequence + 1
        return end > next ? end - next : 0
    }

    // MARK: - all

    private func nextBatchOfAll() throws(JournalError) -> Batch? {
        if reader == nil { reader = try journal.records(from: cursor, onIssue: onIssue) }
        var body = takeBody()
        var first: UInt64?
        var last: UInt64?
        // Kept only for a URL with placeholders: a record holds on to the reader's buffer,
        // which the reader can then not reuse for the next member.
        var lastRecord: JournalRecord?
        while body.locationCount < configuration.batchSize {
            let record: JournalRecord
            if let pending = carried {
                record = pending
                carried = nil
            } else if let read = try reader!.next() {
                record = read
            } else {
                break
            }
            if body.locationCount > 0 && body.bytes.count + record.line.count + 1 > Self.maximumBodyBytes {
                carried = record
                break
            }
            if first == nil { first = record.sequence }
            body.appendLocation(record.line)
            last = record.sequence
            if template.hasPlaceholders { lastRecord = record }
        }
        guard let first, let last else { return nil }
        try refreshNewest(force: false)
        var current: ArraySlice<UInt8>?
        if let newest, newest.point != nil, newest.record.sequence > last {
            let unsent = newest.record.sequence + 1 - first
            if unsent > 2 * UInt64(configuration.batchSize) { current = newest.record.line }
        }
        body.finish(current: current, trip: configuration.trip)
        let url = configuration.profile.url(lastRecord.map { template.expanded(with: newestPoint(fallback: $0)) } ?? configuration.endpoint,
                                            token: configuration.effectiveToken)
        var headers = commonHeaders()
        if let token = configuration.effectiveToken { headers.append(.init("Authorization", "Bearer " + token)) }
        bodies[bodyTurn] = body
        return Batch(request: SyncRequest(url: url, headers: headers, body: body.bytes),
                     first: first, next: last + 1, count: body.locationCount)
    }

    /// An empty body for the next batch. Bodies are used in turn, two of them: while one
    /// batch is in flight the next is built in the other, and by the time a body comes
    /// round again its request is done with, so its storage is reused rather than
    /// allocated again. (Fresh bodies, 640 KiB each at 1000 points, came and went in
    /// glibc's malloc arenas, which kept growing with the backlog.)
    private func takeBody() -> RequestBodyWriter {
        bodyTurn = 1 - bodyTurn
        guard var body = bodies[bodyTurn] else {
            return RequestBodyWriter(reservingCapacity: min(configuration.batchSize * 640, Self.maximumBodyBytes) + 1024,
                                     profile: configuration.profile)
        }
        // Out of the array first, so that `reset` finds the storage uniquely held when the
        // request that shared it is gone (if it is not, `reset` allocates: still correct).
        bodies[bodyTurn] = nil
        body.reset()
        return body
    }

    // MARK: - latest, owntracks

    /// One request with the newest point by time among those waiting (a journal may hold
    /// points out of time order: an old capture logged after live ones); every other
    /// waiting record is skipped. Nil request when none of them is a location.
    private func newestOnly() throws(JournalError) -> Batch? {
        try refreshNewest(force: true)
        guard let newest, newest.record.sequence >= cursor else { return nil }
        let next = newest.record.sequence + 1
        let waiting = next - cursor
        guard let chosen = try newestByTime(upTo: newest.record.sequence) else {
            return Batch(request: nil, first: cursor, next: next, count: 0, skipped: waiting)
        }
        if configuration.loggingMode == .latest {
            var body = RequestBodyWriter(reservingCapacity: chosen.line.count + 64, profile: configuration.profile)
            body.appendLocation(chosen.line)
            body.finish(trip: configuration.trip)
            let url = configuration.profile.url(template.hasPlaceholders ? template.expanded(with: chosen.point) : configuration.endpoint,
                                                token: configuration.effectiveToken)
            var headers = commonHeaders()
            if let token = configuration.effectiveToken { headers.append(.init("Authorization", "Bearer " + token)) }
            return Batch(request: SyncRequest(url: url, headers: headers, body: body.bytes), first: cursor, next: next,
                         count: 1, skipped: waiting - 1)
        }
        let credentials = configuration.effectiveToken.map(OwnTracksCredentials.init(token:))
        let identity = OwnTracksIdentity(deviceID: configuration.deviceID, fallbackUser: credentials?.user)
        let body = OwnTracksLocation(point: chosen.point, identity: identity).jsonBody()
        var headers = commonHeaders()
        if let credentials { headers.append(.init("Authorization", credentials.authorizationHeader)) }
        if let user = identity.user { headers.append(.init("X-Limit-U", user)) }
        if let device = identity.device { headers.append(.init("X-Limit-D", device)) }
        let url = template.hasPlaceholders ? template.expanded(with: chosen.point) : configuration.endpoint
        return Batch(request: SyncRequest(url: url, headers: headers, body: body), first: cursor, next: next,
                     count: 1, skipped: waiting - 1)
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

    private func commonHeaders() -> [SyncRequest.Header] {
        [.init("Content-Type", "application/json"), .init("User-Agent", configuration.userAgent)]
    }

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

    /// The most recent point, for URL placeholders: the journal's newest record when it is
    /// a location, else `fallback` when that is one.
    private func newestPoint(fallback: JournalRecord) -> LocationFeature? {
        if let point = newest?.point { return point }
        return try? LocationFeature(jsonLine: fallback.line)
    }
}
