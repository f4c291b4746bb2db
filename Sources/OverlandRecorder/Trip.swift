import OverlandJSON
import OverlandJournal
import OverlandProtocol

/// The active trip, kept in the journal's `state/trip.json` so that it survives reboots
/// and restarts: the logger stamps `trip_id` and applies the trip settings while it
/// exists, the sync sends the `trip` object, `overland trip stop` ends it.
public struct Trip: Sendable, Equatable {
    /// The state file's name in `state/`.
    public static let stateName = "trip.json"
    /// Held while a trip is started or stopped (`lockForChange`).
    static let lockName = "trip.lock"

    /// Serialises starting and stopping trips: between reading the trip and writing its
    /// record or clearing it, no other stop (the logger's automatic one, a second
    /// `overland trip stop`) can come in between.
    public static func lockForChange(in journal: Journal) throws(JournalError) -> JournalLock {
        try journal.lock(lockName)
    }
    /// The protocol's trip modes.
    public static let modes = ["walk", "run", "bicycle", "car", "taxi", "bus", "tram", "train", "metro",
                               "gondola", "monorail", "sleigh", "plane", "boat", "scooter"]

    public var mode: String
    /// Start time, Unix seconds UTC; its ISO 8601 form is the `trip_id`.
    public var start: Int64
    /// The journal's end when the trip started: the trip's points come after it.
    public var startSequence: UInt64

    public init(mode: String, start: Int64, startSequence: UInt64) {
        self.mode = mode
        self.start = start
        self.startSequence = startSequence
    }

    /// The `trip_id` stamped on the trip's points.
    public var id: String { ISO8601UTC.string(from: start) }

    /// The active trip of a journal, or nil.
    public static func active(in journal: Journal) throws(JournalError) -> Trip? {
        guard let bytes = try journal.readState(stateName) else { return nil }
        let path = journal.statePath(of: stateName)
        guard let value = try? JSONParser.parse(bytes, limits: JSONLimits(maxDepth: 2, maxBytes: 4096)),
              let mode = value["mode"]?.string, modes.contains(mode),
              let start = value["start"]?.string.flatMap({ ISO8601UTC.parse($0) }),
              let sequence = value["start_sequence"]?.double, SequenceNumber.isValidEnd(sequence) else {
            throw .untrusted(path: path, reason: "not a trip state (mode, start, start_sequence)")
        }
        return Trip(mode: mode, start: start, startSequence: UInt64(sequence))
    }

    /// Records this trip as the active one.
    public func save(in journal: Journal) throws(JournalError) {
        var writer = JSONWriter()
        writer.appendRaw(#"{"mode":"#)
        writer.appendString(mode)
        writer.appendRaw(#","start":"#)
        writer.appendString(id)
        writer.appendRaw(#","start_sequence":"#)
        writer.appendInteger(Int64(startSequence))
        writer.appendRaw("}\n")
        try journal.writeState(Self.stateName, writer.bytes)
    }

    /// Ends the trip in the journal's state (after its record was committed).
    public static func clear(in journal: Journal) throws(JournalError) {
        try journal.removeState(stateName)
    }
}

/// What a trip's points add up to, read from the journal: the points stamped with the
/// trip's id whose times fall inside the trip (start through its end, which is now for an
/// open trip). An old capture imported during the trip is not the trip's, whatever its
/// points carry.
public struct TripSummary: Sendable, Equatable {
    public var points = 0
    /// Metres between consecutive points of horizontal accuracy 200 m or better (a point of
    /// unknown accuracy counts: it cannot be judged, as in the accuracy gate).
    public var distance = 0.0
    /// The first and the latest point, as stored.
    public var startLocation: [UInt8]?
    public var latestLocation: [UInt8]?
    public var latest: LocationFeature?
    /// The trip's own record is already in the journal: a stop wrote it and was cut short
    /// (a crash) before it cleared the trip. Stopping again must only clear it.
    public var isRecorded = false

    public static let accuracyLimit = 200

    /// Reads the trip's points, those of `trip.start...end`. Costs time in proportion to
    /// the points logged since the trip started, not to the backlog.
    public static func compute(for trip: Trip, through end: Int64, in journal: Journal) throws(JournalError) -> TripSummary {
        var summary = TripSummary()
        let reader = try journal.records(from: trip.startSequence)
        let marker = Array(#""trip_id":""#.utf8) + Array(trip.id.utf8)
        // A trip record (TripRecord.jsonLine) names the trip by its start, the trip's id.
        let recordMarker = Array(#""properties":{"type":"trip","mode":"#.utf8)
        let startMarker = Array(#""start":""#.utf8) + Array(trip.id.utf8) + [UInt8(ascii: "\"")]
        var previous: LocationFeature?
        while let record = try reader.next() {
            if record.line.firstRange(of: recordMarker) != nil, record.line.firstRange(of: startMarker) != nil {
                summary.isRecorded = true
                continue
            }
            // Most lines are not the trip's when it was started long after: a byte search
            // is cheaper than decoding.
            guard record.line.firstRange(of: marker) != nil,
                  let point = try? LocationFeature(jsonLine: record.line), point.tripID == trip.id,
                  (trip.start...max(end, trip.start)).contains(point.timestamp) else { continue }
            summary.points += 1
            if summary.startLocation == nil { summary.startLocation = Array(record.line) }
            summary.latestLocation = Array(record.line)
            summary.latest = point
            guard point.horizontalAccuracy <= accuracyLimit else { continue }
            if let previous {
                summary.distance += Geodesy.distance(latitude1: previous.latitude, longitude1: previous.longitude,
                                                     latitude2: point.latitude, longitude2: point.longitude)
            }
            previous = point
        }
        return summary
    }
}
