import OverlandJSON
import OverlandJournal
import OverlandProtocol

/// Streams a journal's records out as GPX, GeoJSON or CSV in constant memory: one segment
/// in memory at a time (the journal's reader), output handed on in chunks.
///
/// Records come out in the order they were logged, which is time order unless an older
/// capture was imported after newer points; ``ExportSummary/outOfOrder`` counts the points
/// earlier than the latest before them, and the command says so (sorting would need the
/// whole journal in memory or a temporary copy of it).
public enum Exporter {
    /// Output is handed to `write` in chunks of about this many bytes.
    public static let chunkBytes = 64 << 10

    /// Exports `journal` as `options` say, handing the output to `write` in order. Damaged
    /// records are skipped and reported through `onIssue`.
    public static func export(_ journal: Journal, options: ExportOptions, onIssue: JournalIssueHandler? = nil,
                              write: ([UInt8]) throws -> Void) throws -> ExportSummary {
        var formatter: any RecordFormatter
        switch options.format {
        case .gpx:
            let device = journal.manifest.deviceID
            formatter = GPXFormatter(creator: options.creator, trackName: device.isEmpty ? "overland" : "overland \(device)",
                                     segmentGap: options.segmentGapSeconds)
        case .geojson:
            formatter = GeoJSONFormatter(pointsOnly: options.pointsOnly)
        case .csv:
            formatter = CSVFormatter()
        }
        var summary = ExportSummary()
        var output: [UInt8] = []
        output.reserveCapacity(chunkBytes + RecordLine.maxBytes * 2)
        formatter.writeHead(into: &output)
        let reader = try journal.records(from: options.unsentOnly ? try journal.cursor() : 0, onIssue: onIssue)
        while let stored = try reader.next() {
            summary.records += 1
            guard let json = try? JSONParser.parse(stored.line) else {
                summary.leftOut += 1
                continue
            }
            let record = ExportRecord(line: stored.line, json: json, location: try? LocationFeature(json: json))
            if options.from != nil || options.to != nil {
                guard let time = record.time, time >= options.from ?? .min, time <= options.to ?? .max else {
                    summary.outsideWindow += 1
                    continue
                }
            }
            if formatter.write(record, into: &output) {
                summary.written += 1
                if let location = record.location {
                    if let latest = summary.latest, location.timestamp < latest { summary.outOfOrder += 1 }
                    summary.earliest = min(summary.earliest ?? location.timestamp, location.timestamp)
                    summary.latest = max(summary.latest ?? location.timestamp, location.timestamp)
                }
            } else {
                summary.leftOut += 1
            }
            if output.count >= chunkBytes {
                try write(output)
                output.removeAll(keepingCapacity: true)
            }
        }
        formatter.writeTail(into: &output)
        try write(output)
        return summary
    }
}
