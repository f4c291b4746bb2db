import OverlandJSON
import OverlandJournal
import OverlandProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Streams a journal's records out as GPX, GeoJSON or CSV, oldest first by their time, in
/// bounded memory: one segment in memory at a time (the journal's reader), output handed
/// on in chunks.
///
/// Two passes. The first reads the records in the order logged and hands them to a
/// ``TimeOrderSorter``: a journal in time order (the usual case) keeps nothing and writes
/// no file; where an older capture was imported after newer points, the records from the
/// first one out of order on are sorted in chunks through temporary files. The second
/// reads the in-order stretch from the journal again, merged with the sorted runs, and
/// formats. Equal times keep the order logged; a record without a time (none is expected)
/// goes with the record logged before it. ``ExportSummary/outOfOrder`` counts the points
/// that were logged after later ones.
public enum Exporter {
    /// Output is handed to `write` in chunks of about this many bytes.
    public static let chunkBytes = 64 << 10

    /// Exports `journal` as `options` say, handing the output to `write` in order. Damaged
    /// records are skipped and reported through `onIssue` (once: the second pass reads
    /// the same records quietly).
    public static func export(_ journal: Journal, options: ExportOptions, onIssue: JournalIssueHandler? = nil,
                              write: ([UInt8]) throws -> Void) throws -> ExportSummary {
        var output = OutputStage(formatter: options.format.formatter(journal, options))
        let summary = try stream(journal, options: options, onIssue: onIssue) { record, _, summary in
            try output.add(record, summary: &summary, write: write)
        }
        try output.finish(write: write)
        return summary
    }

    /// Hands every location point of `journal` that `options` select (its window, `--unsent`;
    /// not its format) to `each` with its sequence number, oldest first, in bounded memory:
    /// the stream `export` formats, for readers that draw instead (`overland map`).
    /// `ExportSummary/written` counts the points handed on.
    public static func points(_ journal: Journal, options: ExportOptions, onIssue: JournalIssueHandler? = nil,
                              each: (LocationFeature, UInt64) throws -> Void) throws -> ExportSummary {
        try stream(journal, options: options, onIssue: onIssue) { record, sequence, summary in
            guard let location = record.location else {
                summary.leftOut += 1
                return
            }
            try each(location, sequence)
            summary.written += 1
            summary.earliest = min(summary.earliest ?? location.timestamp, location.timestamp)
            summary.latest = max(summary.latest ?? location.timestamp, location.timestamp)
        }
    }

    /// The two passes: every kept record to `consume` in time order with its sequence number.
    static func stream(_ journal: Journal, options: ExportOptions, onIssue: JournalIssueHandler?,
                       consume: (ExportRecord, UInt64, inout ExportSummary) throws -> Void) throws -> ExportSummary {
        var summary = ExportSummary()
        let start = options.unsentOnly ? try journal.unsentFrom(readers: options.readers) : 0
        let sorter = TimeOrderSorter(chunkRecords: options.sortChunkRecords, parent: options.temporaryDirectory ?? defaultTemporaryDirectory)
        defer { sorter.removeFiles() }

        // Pass 1: count, filter, and sort what is out of order.
        var carry = Int64.min
        var latestPoint: Int64?
        let reader = try journal.records(from: start, onIssue: onIssue)
        while let stored = try reader.next() {
            summary.records += 1
            switch classify(stored.line, options: options, carry: &carry) {
            case .unparseable: summary.leftOut += 1
            case .outsideWindow: summary.outsideWindow += 1
            case .kept(let record, let key):
                if let time = record.location?.timestamp {
                    if let latest = latestPoint, time < latest { summary.outOfOrder += 1 }
                    latestPoint = max(latestPoint ?? time, time)
                }
                try sorter.add(key: key, sequence: stored.sequence, line: stored.line)
            }
        }
        summary.sortedRuns = sorter.spilledRuns

        // Pass 2: the in-order stretch again from the journal, merged with the runs.
        let prefix = try PrefixSource(journal: journal, from: start, end: sorter.prefixEnd ?? start, options: options)
        if sorter.disordered {
            try sorter.merge(prefix: prefix) { entry in
                guard let json = try? JSONParser.parse(entry.line[...]) else { return }
                let record = ExportRecord(line: entry.line[...], json: json, location: try? LocationFeature(json: json))
                try consume(record, entry.sequence, &summary)
            }
        } else {
            // In time order: each record handed on as parsed here, not parsed a third time.
            while let (record, sequence) = try prefix.nextRecord() { try consume(record, sequence, &summary) }
        }
        guard prefix.count == sorter.prefixCount else {
            throw ExportSortError(.journalChanged, "the journal changed during the export (\(sorter.prefixCount) records read, then " +
                                  "\(prefix.count)): run it again")
        }
        return summary
    }

    /// $TMPDIR, else /tmp: the journal itself is only read (it may be on a read-only stick).
    static var defaultTemporaryDirectory: String {
        if let value = getenv("TMPDIR"), value.pointee != 0 { return String(cString: value) }
        return "/tmp"
    }

    enum Classified {
        case unparseable
        case outsideWindow
        /// Kept, with its sort key: its time, else the time of the record before it.
        case kept(ExportRecord, key: Int64)
    }

    static func classify(_ line: ArraySlice<UInt8>, options: ExportOptions, carry: inout Int64) -> Classified {
        guard let json = try? JSONParser.parse(line) else { return .unparseable }
        let record = ExportRecord(line: line, json: json, location: try? LocationFeature(json: json))
        let time = record.time
        if options.from != nil || options.to != nil {
            guard let time, time >= options.from ?? .min, time <= options.to ?? .max else { return .outsideWindow }
        }
        if let time { carry = time }
        return .kept(record, key: carry)
    }
}

/// The formatter and its output buffer, handed on in chunks.
private struct OutputStage {
    var formatter: any RecordFormatter
    var output: [UInt8] = []

    init(formatter: any RecordFormatter) {
        self.formatter = formatter
        output.reserveCapacity(Exporter.chunkBytes + RecordLine.maxBytes * 2)
        self.formatter.writeHead(into: &output)
    }

    mutating func add(_ record: ExportRecord, summary: inout ExportSummary, write: ([UInt8]) throws -> Void) throws {
        if formatter.write(record, into: &output) {
            summary.written += 1
            if let time = record.location?.timestamp {
                summary.earliest = min(summary.earliest ?? time, time)
                summary.latest = max(summary.latest ?? time, time)
            }
        } else {
            summary.leftOut += 1
        }
        if output.count >= Exporter.chunkBytes {
            try write(output)
            output.removeAll(keepingCapacity: true)
        }
    }

    mutating func finish(write: ([UInt8]) throws -> Void) throws {
        formatter.writeTail(into: &output)
        try write(output)
    }
}

/// The in-order stretch at the start, read from the journal again (without reporting its
/// damage a second time), filtered and keyed as in the first pass.
private final class PrefixSource: SortedSource {
    let reader: JournalReader
    let end: UInt64
    let options: ExportOptions
    var carry = Int64.min
    private(set) var count = 0

    init(journal: Journal, from start: UInt64, end: UInt64, options: ExportOptions) throws {
        reader = try journal.records(from: start, onIssue: nil)
        self.end = end
        self.options = options
    }

    func next() throws -> SortEntry? {
        try nextKept().map { SortEntry(key: $0.key, sequence: $0.sequence, line: Array($0.record.line)) }
    }

    /// The next record of the stretch, as parsed to filter it.
    func nextRecord() throws -> (ExportRecord, UInt64)? { try nextKept().map { ($0.record, $0.sequence) } }

    private func nextKept() throws -> (record: ExportRecord, key: Int64, sequence: UInt64)? {
        while let stored = try reader.next(), stored.sequence < end {
            if case .kept(let record, let key) = Exporter.classify(stored.line, options: options, carry: &carry) {
                count += 1
                return (record, key, stored.sequence)
            }
        }
        return nil
    }
}
