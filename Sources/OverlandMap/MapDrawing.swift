import OverlandExport
import OverlandJournal

/// `overland map`'s library: a journal's points, in time order as the export streams them
/// (the window, damage reported, out-of-order points sorted), drawn as one self-contained
/// HTML page or SVG picture.
public enum MapDrawing {
    /// Draws the points of `journal` that `window` selects (`from`, `to`, `unsentOnly`) as
    /// `options` say and hands the file to `write`. Throws ``MapError/noPoints`` when nothing
    /// is left to draw, before anything is written.
    public static func draw(_ journal: Journal, window: ExportOptions, options: MapOptions, onIssue: JournalIssueHandler? = nil,
                            write: ([UInt8]) throws -> Void) throws -> MapSummary {
        var options = options
        if let choice = options.trip {
            options.tripID = try tripID(choice, journal: journal, window: window, device: options.device)
        }
        var collector = TrackCollector(options: options)
        let issues = IssueCounter(forwarding: onIssue)
        let exported = try Exporter.points(journal, options: window, onIssue: issues.handler) { location, sequence in
            collector.add(location, sequence: sequence)
        }
        collector.finish()
        collector.record(records: exported.records, outOfOrder: exported.outOfOrder, skippedIssues: issues.count)
        guard collector.summary.points > 0 else { throw MapError.noPoints(collector.summary) }
        return try render(collector, options: options, write: write)
    }

    /// The id of the chosen trip: a first pass over the points, keeping each trip id once in
    /// the order first seen (a few bytes a trip).
    static func tripID(_ choice: TripChoice, journal: Journal, window: ExportOptions, device: String?) throws -> String {
        var ids: [String] = []
        var seen = Set<String>()
        _ = try Exporter.points(journal, options: window) { location, _ in
            guard device == nil || location.deviceID == device, let id = location.tripID, !seen.contains(id) else { return }
            seen.insert(id)
            ids.append(id)
        }
        switch choice {
        case .last: if let id = ids.last { return id }
        case .number(let number): if number <= ids.count { return ids[number - 1] }
        }
        throw MapError.noTrip(choice, trips: ids.count)
    }

    /// Lays out and writes what `collector` kept.
    static func render(_ collector: TrackCollector, options: MapOptions, write: ([UInt8]) throws -> Void) throws -> MapSummary {
        let layout = MapLayout(collector: collector)
        let document = MapDocument(layout: layout, nonce: nonce())
        let text = options.output == .html ? document.html() : document.svg()
        try write(Array(text.utf8))
        var summary = collector.summary
        summary.drawn = layout.points.count
        return summary
    }

    /// 128 random bits for the script's nonce.
    static func nonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(generator.next() as UInt64, radix: 36) + String(generator.next() as UInt64, radix: 36)
    }
}

public enum MapError: Error {
    /// No point to draw: the summary says what was read and left out.
    case noPoints(MapSummary)
    /// `--trip` names no trip of the points selected: how many there are.
    case noTrip(TripChoice, trips: Int)
}

/// Counts the journal's issues for the legend and hands each on. The reader calls it on the
/// thread that reads, one call at a time.
final class IssueCounter: @unchecked Sendable {
    private(set) var count = 0
    private let forward: JournalIssueHandler?

    init(forwarding forward: JournalIssueHandler?) { self.forward = forward }

    var handler: JournalIssueHandler {
        { [self] issue in
            count += 1
            forward?(issue)
        }
    }
}
