import OverlandJSON
import OverlandJournal

extension MapSummary {
    /// What `overland map` says once the map is written to `output`.
    public func writtenLine(to output: String) -> String {
        "\(Plural.count(points, "point")) (\(drawn) drawn), "
            + "\(Plural.count(tracks.count, "track")), \(Plural.count(gapCount, "gap")), "
            + "\(Plural.count(stopCount, "stop")) written to '\(output)'"
            + (skippedIssues > 0 ? "; \(Plural.count(skippedIssues, "damaged stretch", plural: "damaged stretches")) of the journal skipped" : "")
    }

    /// Why nothing was drawn from `journal`: the window and device asked for, and what was read.
    public func noPointsLine(journal: String, since: String?, until: String?, device: String?) -> String {
        var text = "no points to draw in '\(journal)'"
        if since != nil || until != nil { text += " between \(since ?? "its start") and \(until ?? "its end")" }
        if let device { text += " of device '\(device)'" }
        text += " (\(Plural.count(records, "record")) read"
        if otherDevice > 0 { text += ", \(otherDevice) of other devices or trips" }
        if invalid > 0 { text += ", \(invalid) out of range" }
        if skippedIssues > 0 { text += ", \(Plural.count(skippedIssues, "damaged stretch", plural: "damaged stretches")) skipped" }
        return text + ")"
    }

    /// Why the trip `trip` (as `--trip` named it) is not among the `trips` of the points selected.
    public static func noTripLine(_ trip: String, trips: Int) -> String {
        trips == 0 ? "no point selected carries a trip id (`overland trip start` begins a trip)"
            : "no trip \(trip) among the points selected (\(Plural.count(trips, "trip"))): --trip takes last or 1 to \(trips)"
    }
}

extension MapOptions {
    /// Each destination of `journal` and its cursor (its named cursors; a journal with none
    /// has the sync's one cursor).
    public static func destinations(of journal: Journal) throws(JournalError) -> [(name: String, next: UInt64)] {
        let names = try journal.cursorNames()
        if names.isEmpty { return [("sync", try journal.cursor())] }
        var destinations: [(name: String, next: UInt64)] = []
        for name in names { destinations.append((name.text, try journal.cursor(for: name))) }
        return destinations
    }
}
