import OverlandJSON
import OverlandJournal

/// What the sync remembers between runs, in `state/sync.json` of the journal: when it last
/// delivered, how often it has failed since, when it may try again (the backoff), and what
/// the server said last. `overland status` reads it; the cursor, not this file, says which
/// records were delivered.
///
///     {"version":1,"last_attempt":"2026-11-21T05:17:12Z","last_success":"2026-11-21T05:17:12Z",
///      "last_failure":null,"consecutive_failures":0,"next_attempt":null,"last_status":200,
///      "last_error":null,"geocode":"Ottawa, Ontario","skipped_records":0}
///
/// After a failure it also holds `"failures_against":"3f1c0d2e9a8b7c6d"`: see
/// ``failuresAgainst``; a destination added after records were logged holds
/// `"start_sequence":807`: see ``startSequence``.
///
/// Times are UTC, `YYYY-MM-DDTHH:MM:SSZ`. The file is replaced whole (temporary file,
/// fsync, rename, directory fsync), mode 0600. A reader ignores keys it does not know; a
/// file that does not parse counts as no state (the worst outcome is one early retry).
public struct SyncState: Sendable, Equatable {
    /// The last time a run tried to send (Unix seconds).
    public var lastAttempt: Int64?
    /// The last time a batch was delivered.
    public var lastSuccess: Int64?
    /// The last time an attempt failed.
    public var lastFailure: Int64?
    /// Failed attempts since the last delivery; drives the backoff.
    public var consecutiveFailures = 0
    /// No run sends before this time, unless told to send now (the backoff).
    public var nextAttempt: Int64?
    /// The HTTP status of the last reply, nil when the last attempt got none.
    public var lastStatus: Int?
    /// Why the last failed attempt failed (the server's `error` when it gave one).
    public var lastError: String?
    /// The last `geocode.full_name` a server sent.
    public var geocode: String?
    /// Records the `latest` and `owntracks` modes passed over without sending, in total
    /// since this file began (absent in older files: 0). The cursor passes them as it
    /// passes sent ones; `overland journal stats` subtracts them from "sent".
    public var skippedRecords: UInt64 = 0
    /// Which receiver the failures were against: a fingerprint of its URL and token
    /// (``SyncState/fingerprint(url:token:)``, never the URL or token themselves).
    /// When the destination changes, its failures and backoff no longer apply: a user who
    /// fixes a wrong URL or token expects the next run to try it. Absent in older files.
    public var failuresAgainst: String?
    /// Where the destination's cursor was placed when it was added (`overland destination
    /// add`): the records before it were passed over, never sent to it, and `overland
    /// journal stats` does not count them as sent. Absent for the default destination
    /// and in older files.
    public var startSequence: UInt64?
    /// Read-back (`verify`, `ReadBackPass`): every record before this sequence number is
    /// stored at the receiver or refused by it. Absent while verify is off; while present,
    /// retention keeps the segments from it on (`StoredMarks`).
    public var storedThrough: UInt64?
    /// How often each point read back missing has been sent again, by sequence number:
    /// written before the resend, so a kill between a resend and its read-back forgets
    /// nothing. Holds at most one comparison's points (`ReadBackPass.chunkSize`).
    public var resends: [UInt64: Int] = [:]
    /// Points the receiver refused (still missing after two resends), in total.
    public var refusedRecords: UInt64 = 0
    /// The records the receiver does not hold as far as reading back knows: refused by
    /// the passes, or found missing by the last audit (`RecordSet`); `overland status` counts those still in the journal.
    public var refused = RecordSet()
    /// What the last refusal said (count, times, what sets the points apart).
    public var lastRefusal: String?
    /// The first refused record, while the destination sends as it did when it refused
    /// (`refusedAgainst`): once its url, token, profile, protocol or device id changes, the
    /// next pass compares from there again, and sends the refused points once more.
    public var refusedFrom: UInt64?
    /// A fingerprint of how the refused points were sent (`ReadBackPass.sendingFingerprint`).
    public var refusedAgainst: String?
    /// When each run's acknowledged range was acknowledged (at the latest): a range is read
    /// back only once the receiver had its settle time to store it
    /// (`ReadBackReader.settleSeconds`). Settled ranges are dropped; at most
    /// `maximumAcknowledgedRanges`, the oldest merged.
    public var acknowledgedAt: [AcknowledgedRange] = []
    /// When points were last sent again: they are read back once settled since then.
    public var resentAt: Int64?
    /// Why the destination could not be read back as configured at its last pass (its
    /// answer not what the reader reads, no read credentials), for `overland status`; nil
    /// once a pass reads it.
    public var readBackProblem: String?

    /// Records `from..<through` acknowledged at `at` (Unix seconds).
    public struct AcknowledgedRange: Sendable, Equatable {
        public var from: UInt64
        public var through: UInt64
        public var at: Int64

        public init(from: UInt64, through: UInt64, at: Int64) {
            self.from = from
            self.through = through
            self.at = at
        }
    }

    /// Creates an empty state: never sent, never failed.
    public init() {}

    /// The file name inside the journal's state directory (the default destination's).
    public static let fileName = "sync.json"

    /// The state file of the destination `name`: `sync.json` for `default` (as before
    /// destinations existed), `sync-NAME.json` for the others.
    public static func fileName(forDestination name: String) -> String {
        name == "default" ? fileName : "sync-\(name).json"
    }

    /// The state of `journal`'s sync to the destination `destination`, or an empty state
    /// when there is none yet (`unreadable` when it does not parse).
    public static func load(journal: Journal, destination: String = "default") throws(JournalError) -> SyncState {
        guard let bytes = try journal.readState(fileName(forDestination: destination)) else { return SyncState() }
        return SyncState(parsing: bytes) ?? .unreadable
    }

    /// The state that stands for a file that does not parse: no failures, and read-back
    /// restarted from the journal's first record (its stored mark at 0), never skipped:
    /// what the lost file knew to be stored is not known any more. A destination that does
    /// not verify forgets the mark at its next run (`StoredMarks.forget`).
    public static var unreadable: SyncState {
        var state = SyncState()
        state.storedThrough = 0
        return state
    }

    /// Replaces the state file `name` whole and durably (`durably: false`: atomically, the
    /// fsyncs left out; a run's progress, saved durably again at its end).
    public func save(in journal: Journal, as name: String = SyncState.fileName, durably: Bool = true) throws(JournalError) {
        try journal.writeState(name, encoded, durably: durably)
    }

    /// Reads the file's JSON; nil when it is not a JSON object.
    init?(parsing bytes: [UInt8]) {
        guard let value = try? JSONParser.parse(bytes, limits: JSONLimits(maxDepth: 4, maxBytes: 64 << 10)),
            value.object != nil
        else { return nil }
        func time(_ key: String) -> Int64? { value[key]?.string.flatMap { ISO8601UTC.parse($0) } }
        lastAttempt = time("last_attempt")
        lastSuccess = time("last_success")
        lastFailure = time("last_failure")
        consecutiveFailures = max(0, value["consecutive_failures"]?.int ?? 0)
        nextAttempt = time("next_attempt")
        lastStatus = value["last_status"]?.int
        lastError = value["last_error"]?.string
        geocode = value["geocode"]?.string
        skippedRecords = value["skipped_records"]?.double.flatMap { CheckedInteger.rounded($0, in: 0...999_999_999_999_999_999) }.map(UInt64.init) ?? 0
        failuresAgainst = value["failures_against"]?.string
        startSequence = Self.sequence(value["start_sequence"])
        storedThrough = Self.sequence(value["stored_through"])
        for pair in (value["resends"]?.array ?? []).prefix(Self.maximumResendEntries) {
            guard let sequence = Self.sequence(pair[0]), let count = pair[1]?.int, (0...9).contains(count) else { continue }
            resends[sequence] = count
        }
        refusedRecords = Self.sequence(value["refused_records"]) ?? 0
        refused = RecordSet(ranges: (value["refused"]?.array ?? []).prefix(RecordSet.maximumRanges * 2).compactMap { entry in
            guard let from = Self.sequence(entry[0]), let through = Self.sequence(entry[1]), from < through else { return nil }
            return from..<through
        })
        lastRefusal = value["last_refusal"]?.string
        refusedFrom = Self.sequence(value["refused_from"])
        refusedAgainst = value["refused_against"]?.string
        for entry in (value["acknowledged_at"]?.array ?? []).prefix(Self.maximumAcknowledgedRanges) {
            guard let from = Self.sequence(entry[0]), let through = Self.sequence(entry[1]), from <= through,
                  let at = entry[2]?.double.flatMap({ CheckedInteger.rounded($0, in: 0...999_999_999_999) }) else { continue }
            acknowledgedAt.append(AcknowledgedRange(from: from, through: through, at: Int64(at)))
        }
        readBackProblem = value["read_back_problem"]?.string
        resentAt = value["resent_at"]?.double.flatMap { CheckedInteger.rounded($0, in: 0...999_999_999_999) }.map(Int64.init)
    }

    /// The most `resends` entries a file is read with (and a run sends again at most).
    public static let maximumResendEntries = 2_000
    /// The most `acknowledged_at` entries a file holds.
    public static let maximumAcknowledgedRanges = 64

    /// A record number: a whole number from 0 below 10^18, else nil.
    private static func sequence(_ value: JSONValue?) -> UInt64? {
        value?.double.flatMap { $0 >= 0 && $0 < 1e18 && $0 == $0.rounded() ? UInt64($0) : nil }
    }

    /// A fingerprint of a receiver's URL and token (an empty token is none): 16 hex digits
    /// of their 64-bit FNV-1a hash. It tells whether the destination changed, and says
    /// nothing readable about it. The one rule every destination and `overland status` use.
    public static func fingerprint(url: String, token: String?) -> String {
        FNV1a.hex(url, token ?? "")
    }

    /// Forgets the failures and the backoff when they were against another receiver than
    /// `fingerprint` (the URL or token changed since); true when it did.
    public mutating func forgetFailures(unlessAgainst fingerprint: String) -> Bool {
        guard consecutiveFailures > 0 || nextAttempt != nil, let against = failuresAgainst, against != fingerprint
        else { return false }
        consecutiveFailures = 0
        nextAttempt = nil
        failuresAgainst = nil
        return true
    }

    /// The file's bytes: one JSON object and a newline.
    var encoded: [UInt8] {
        var writer = JSONWriter(reservingCapacity: 512)
        func time(_ seconds: Int64?) {
            if let seconds {
                writer.bytes.append(UInt8(ascii: "\""))
                ISO8601UTC.append(seconds, to: &writer.bytes)
                writer.bytes.append(UInt8(ascii: "\""))
            } else {
                writer.appendNull()
            }
        }
        func text(_ value: String?) {
            if let value { writer.appendString(value) } else { writer.appendNull() }
        }
        writer.appendRaw(#"{"version":1,"last_attempt":"#)
        time(lastAttempt)
        writer.appendRaw(#","last_success":"#)
        time(lastSuccess)
        writer.appendRaw(#","last_failure":"#)
        time(lastFailure)
        writer.appendRaw(#","consecutive_failures":"#)
        writer.appendInteger(consecutiveFailures)
        writer.appendRaw(#","next_attempt":"#)
        time(nextAttempt)
        writer.appendRaw(#","last_status":"#)
        if let lastStatus { writer.appendInteger(lastStatus) } else { writer.appendNull() }
        writer.appendRaw(#","last_error":"#)
        text(lastError)
        writer.appendRaw(#","geocode":"#)
        text(geocode)
        writer.appendRaw(#","skipped_records":"#)
        writer.appendInteger(Int64(clamping: skippedRecords))
        if let failuresAgainst {
            writer.appendRaw(#","failures_against":"#)
            writer.appendString(failuresAgainst)
        }
        if let startSequence {
            writer.appendRaw(#","start_sequence":"#)
            writer.appendInteger(Int64(clamping: startSequence))
        }
        appendReadBack(to: &writer)
        writer.appendRaw("}\n")
        return writer.bytes
    }
}

extension SyncState {
    /// The read-back keys, when verify has been on.
    fileprivate func appendReadBack(to writer: inout JSONWriter) {
        if let storedThrough {
            writer.appendRaw(#","stored_through":"#)
            writer.appendInteger(Int64(clamping: storedThrough))
        }
        if !resends.isEmpty {
            writer.appendRaw(#","resends":["#)
            for (index, entry) in resends.sorted(by: { $0.key < $1.key }).enumerated() {
                writer.appendRaw(index == 0 ? "[" : ",[")
                writer.appendInteger(Int64(clamping: entry.key))
                writer.appendRaw(",")
                writer.appendInteger(entry.value)
                writer.appendRaw("]")
            }
            writer.appendRaw("]")
        }
        if refusedRecords > 0 {
            writer.appendRaw(#","refused_records":"#)
            writer.appendInteger(Int64(clamping: refusedRecords))
        }
        if !refused.isEmpty {
            writer.appendRaw(#","refused":["#)
            for (index, range) in refused.ranges.enumerated() {
                writer.appendRaw(index == 0 ? "[" : ",[")
                writer.appendInteger(Int64(clamping: range.lowerBound))
                writer.appendRaw(",")
                writer.appendInteger(Int64(clamping: range.upperBound))
                writer.appendRaw("]")
            }
            writer.appendRaw("]")
        }
        if let lastRefusal {
            writer.appendRaw(#","last_refusal":"#)
            writer.appendString(lastRefusal)
        }
        if !acknowledgedAt.isEmpty {
            writer.appendRaw(#","acknowledged_at":["#)
            for (index, range) in acknowledgedAt.enumerated() {
                writer.appendRaw(index == 0 ? "[" : ",[")
                writer.appendInteger(Int64(clamping: range.from))
                writer.appendRaw(",")
                writer.appendInteger(Int64(clamping: range.through))
                writer.appendRaw(",")
                writer.appendInteger(range.at)
                writer.appendRaw("]")
            }
            writer.appendRaw("]")
        }
        if let resentAt {
            writer.appendRaw(#","resent_at":"#)
            writer.appendInteger(resentAt)
        }
        if let readBackProblem {
            writer.appendRaw(#","read_back_problem":"#)
            writer.appendString(readBackProblem)
        }
        if let refusedFrom, let refusedAgainst {
            writer.appendRaw(#","refused_from":"#)
            writer.appendInteger(Int64(clamping: refusedFrom))
            writer.appendRaw(#","refused_against":"#)
            writer.appendString(refusedAgainst)
        }
    }
}
