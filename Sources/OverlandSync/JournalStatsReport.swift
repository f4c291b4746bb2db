import OverlandJSON
import OverlandJournal
import OverlandProtocol

/// What `journal stats` shows: the journal's counts, each reader's, the time span.
public struct JournalStatsReport {
    let journal: Journal
    let stats: Journal.Statistics
    /// Each named destination's state: where it started (what it passed over when
    /// added was never sent to it) and what its logging mode skipped.
    let states: [CursorName: SyncState]
    let sent: UInt64
    let skipped: UInt64
    /// The real earliest and latest times, not the first and last appended: an old
    /// capture imported today goes at the end.
    var first: String?
    var last: String?
    var outOfOrder = 0
    /// Location points among the records (trip, visit and action records are not).
    var points: UInt64 = 0

    /// `readers`: every configured destination (nil: none is, and the journal's cursor
    /// files say who reads it). A point is unsent while one of them has not had it
    /// acknowledged, whether or not its cursor file was ever written.
    public init(journal: Journal, readers: [CursorName]?) throws {
        self.journal = journal
        var states: [CursorName: SyncState] = [:]
        for name in try readers ?? journal.cursorNames() {
            states[name] = try SyncState.load(journal: journal, destination: name.text)
        }
        self.states = states
        stats = try journal.statistics(readers: readers, starts: states.compactMapValues(\.startSequence))
        // The cursor passes what the latest and owntracks modes skip as well as what
        // they send: the sync state counts the skipped (capped at what is left after
        // retention deleted sent segments).
        skipped = min(try SyncState.load(journal: journal).skippedRecords, stats.sentRecords - stats.passedAtStart)
        sent = stats.sentRecords - stats.passedAtStart - skipped
        try scanTimes()
    }

    /// One pass over the records: the location points, their earliest and latest
    /// times, and how many came after a later one. A trip record's time is its end, not
    /// a point's: it counts in neither.
    private mutating func scanTimes() throws {
        var earliest: Int64?, latest: Int64?
        let reader = try journal.records(from: 0)
        while let record = try reader.next() {
            guard let time = LocationFeature.pointTimestamp(in: record.line) else { continue }
            points += 1
            if let latest, time < latest { outOfOrder += 1 }
            earliest = min(earliest ?? time, time)
            latest = max(latest ?? time, time)
        }
        first = earliest.map(ISO8601UTC.string(from:))
        last = latest.map(ISO8601UTC.string(from:))
    }

    /// Each reader's own counts, unless the one reader is the default one (its counts
    /// are the journal's).
    var shownReaders: [Journal.Statistics.Reader] {
        stats.readers.map(\.name) == [.default] ? [] : stats.readers
    }

    /// What `reader` was sent: what its cursor passed, less what it passed over when
    /// added and what its logging mode skipped.
    func sentTo(_ reader: Journal.Statistics.Reader) -> UInt64 {
        let passed = reader.sentRecords - min(reader.passedAtStart, reader.sentRecords)
        return passed - min(states[reader.name]?.skippedRecords ?? 0, passed)
    }

    public func json() -> String {
        var writer = JSONWriter()
        writer.appendRaw("{\"journal\":" as StaticString)
        writer.appendString(journal.path)
        writer.appendRaw(",\"journal_id\":" as StaticString)
        writer.appendString(journal.id.description)
        for (key, value) in [("records", stats.records), ("points", points), ("sent", sent), ("skipped", skipped),
                             ("passed_when_added", stats.passedAtStart), ("unsent", stats.unsentRecords),
                             ("sealed_records", stats.sealedRecords), ("active_records", stats.activeRecords),
                             ("sealed_bytes", UInt64(stats.sealedBytes)), ("active_bytes", UInt64(stats.activeBytes)),
                             ("segments", UInt64(stats.segments)), ("sealed_segments", UInt64(stats.sealedSegments)),
                             ("cursor", stats.cursor), ("end", stats.endSequence)] {
            writer.appendRaw(",\"\(key)\":".utf8)
            writer.appendInteger(Int64(value))
        }
        writer.appendRaw(",\"first\":" as StaticString)
        if let first { writer.appendString(first) } else { writer.appendNull() }
        writer.appendRaw(",\"last\":" as StaticString)
        if let last { writer.appendString(last) } else { writer.appendNull() }
        writer.appendRaw(",\"out_of_order\":" as StaticString)
        writer.appendInteger(Int64(outOfOrder))
        if !shownReaders.isEmpty { readersJSON(into: &writer) }
        writer.appendRaw("}\n" as StaticString)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Several readers: `sent` is what every one of them sent (below the floor); each
    /// one's own counts.
    private func readersJSON(into writer: inout JSONWriter) {
        writer.appendRaw(",\"readers\":{" as StaticString)
        for (index, reader) in shownReaders.enumerated() {
            if index > 0 { writer.appendRaw(",") }
            writer.appendString(reader.name.text)
            guard let cursor = reader.cursor else {
                writer.appendRaw(":{\"error\":\"refused\"}" as StaticString)
                continue
            }
            writer.appendRaw(":{\"cursor\":" as StaticString)
            writer.appendInteger(Int64(cursor))
            writer.appendRaw(",\"sent\":" as StaticString)
            writer.appendInteger(Int64(sentTo(reader)))
            writer.appendRaw(",\"unsent\":" as StaticString)
            writer.appendInteger(Int64(stats.records - reader.sentRecords))
            writer.appendRaw(",\"passed_when_added\":" as StaticString)
            writer.appendInteger(Int64(reader.passedAtStart))
            writer.appendRaw("}")
        }
        writer.appendRaw("}")
    }

    public func text() -> [String] {
        let device = journal.manifest.deviceID.isEmpty ? "(none)" : PrintableText.escaped(journal.manifest.deviceID)
        let passedOver = stats.passedAtStart == 0 ? "" : "\(stats.passedAtStart) passed over (logged before a destination was added), "
        let skippedText = skipped == 0 ? "" : "\(skipped) skipped (not sent: all but the newest in the latest and owntracks modes, and trips, visits and actions to owntracks and traccar receivers), "
        var lines = ["journal   \(journal.path)", "id        \(journal.id)  device \(device)",
                     "records   \(stats.records) (\(Plural.count(points, "location point"))): \(sent) sent, \(passedOver)\(skippedText)\(stats.unsentRecords) unsent"]
        for reader in shownReaders {
            if let cursor = reader.cursor {
                let passed = reader.passedAtStart > 0 ? ", \(reader.passedAtStart) passed over when it was added" : ""
                lines.append("  \(reader.name): \(sentTo(reader)) sent\(passed), \(stats.records - reader.sentRecords) unsent (cursor \(cursor))")
            } else {
                lines.append("  \(reader.name): cursor refused ('overland journal verify' says why)")
            }
        }
        lines += ["from      \(first ?? "-")", "to        \(last ?? "-")"]
        if outOfOrder > 0 {
            lines.append("order     not in time order: \(Plural.count(outOfOrder, "record")) earlier than one logged before them")
        }
        return lines + [
            "segments  \(stats.segments): \(stats.sealedSegments) sealed, \(stats.segments - stats.sealedSegments) active",
            "sealed    \(stats.sealedBytes) bytes, \(Self.perPoint(stats.sealedBytes, stats.sealedRecords)) per point",
            "active    \(stats.activeBytes) bytes, \(Self.perPoint(stats.activeBytes, stats.activeRecords)) per point",
        ]
    }

    private static func perPoint(_ bytes: Int, _ records: UInt64) -> String {
        guard records > 0 else { return "-" }
        let tenths = (UInt64(bytes) * 10 + records / 2) / records
        return "\(tenths / 10).\(tenths % 10) B"
    }
}
