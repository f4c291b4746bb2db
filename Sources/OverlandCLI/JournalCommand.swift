import ArgumentParser
import OverlandJSON
import OverlandJournal
import OverlandSync

/// `overland journal`: look after a journal (stats, verify, repair, seal).
public struct JournalCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "journal",
        abstract: "Inspect, check and repair a journal.",
        discussion: """
            A journal is a directory of gzip segments of JSON lines (see journal-format.md). \
            Segments can also be read by hand: zcat DIR/segments/*.jsonl.gz | jq .
            """,
        subcommands: [Stats.self, Verify.self, Repair.self, Seal.self, Move.self]
    )

    public init() {}

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show points, time span, sent and unsent counts and bytes per point.")

        @OptionGroup var journalOptions: JournalOptions
        @Flag(help: "Print one JSON object instead of text.") var json = false

        func run() throws {
            try reportingFailures("overland journal stats") {
                let journal = try journalOptions.open()
                let stats = try journal.statistics()
                // The cursor passes what the latest and owntracks modes skip as well as what
                // they send: the sync state counts the skipped (capped at what is left after
                // retention deleted sent segments).
                let skipped = min(try SyncState.load(journal: journal).skippedRecords, stats.sentRecords)
                let sent = stats.sentRecords - skipped
                let first = try journal.records(from: 0).next().flatMap { RecordFields.timestamp(in: $0.line) }
                let last = try journal.lastRecord().flatMap { RecordFields.timestamp(in: $0.line) }
                if json {
                    var writer = JSONWriter()
                    writer.appendRaw("{\"journal\":" as StaticString)
                    writer.appendString(journal.path)
                    writer.appendRaw(",\"journal_id\":" as StaticString)
                    writer.appendString(journal.id.description)
                    for (key, value) in [("records", stats.records), ("sent", sent), ("skipped", skipped), ("unsent", stats.unsentRecords),
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
                    writer.appendRaw("}\n" as StaticString)
                    Terminal.output(String(decoding: writer.bytes, as: UTF8.self))
                    return
                }
                Terminal.line("journal   \(journal.path)")
                Terminal.line("id        \(journal.id)  device \(journal.manifest.deviceID.isEmpty ? "(none)" : journal.manifest.deviceID)")
                Terminal.line("points    \(stats.records): \(sent) sent, \(skipped == 0 ? "" : "\(skipped) skipped (only the newest is sent in the latest and owntracks modes), ")\(stats.unsentRecords) unsent")
                Terminal.line("from      \(first ?? "-")")
                Terminal.line("to        \(last ?? "-")")
                Terminal.line("segments  \(stats.segments): \(stats.sealedSegments) sealed, \(stats.segments - stats.sealedSegments) active")
                Terminal.line("sealed    \(stats.sealedBytes) bytes, \(perPoint(stats.sealedBytes, stats.sealedRecords)) per point")
                Terminal.line("active    \(stats.activeBytes) bytes, \(perPoint(stats.activeBytes, stats.activeRecords)) per point")
            }
        }

        private func perPoint(_ bytes: Int, _ records: UInt64) -> String {
            guard records > 0 else { return "-" }
            let tenths = (UInt64(bytes) * 10 + records / 2) / records
            return "\(tenths / 10).\(tenths % 10) B"
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every segment: framing, checksums, record JSON.",
            discussion: "Prints each damaged range (file, offset, length, reason). Exit status 0 when the journal is intact, 65 when damage was found.")

        @OptionGroup var journalOptions: JournalOptions

        func run() throws {
            try reportingFailures("overland journal verify") {
                let journal = try journalOptions.open()
                let printer = IssuePrinter(tool: "overland journal verify")
                let result = try journal.verify(onIssue: printer.handler)
                var summary = "\(result.segments) segments, \(result.intactRecords) intact records, \(result.damage) damaged ranges"
                if result.unfinishedTail { summary += "; the active segment ends in an unfinished write (cut on the next append)" }
                Terminal.line(summary)
                if result.damage > 0 {
                    throw CommandFailure("damage found; 'overland journal repair' keeps the intact records and sets the rest aside",
                                         status: .dataError)
                }
            }
        }
    }

    struct Repair: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set damaged data aside and keep every intact record.",
            discussion: "Cuts an unfinished write off the active segment and rewrites each damaged segment with its intact records; the originals are kept in DIR/damaged/.")

        @OptionGroup var journalOptions: JournalOptions

        func run() throws {
            try reportingFailures("overland journal repair") {
                let journal = try journalOptions.open()
                let printer = IssuePrinter(tool: "overland journal repair")
                let appender = try JournalAppender(journal: journal, onIssue: printer.handler)
                let repaired = try appender.repairAll()
                Terminal.line(repaired == 0 && printer.count == 0 ? "nothing to repair" : "\(repaired) segments rewritten")
            }
        }
    }

    struct Seal: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Seal the active segment now (compact it; it never changes again).")

        @OptionGroup var journalOptions: JournalOptions

        func run() throws {
            try reportingFailures("overland journal seal") {
                let journal = try journalOptions.open()
                let printer = IssuePrinter(tool: "overland journal seal")
                try JournalAppender(journal: journal, onIssue: printer.handler).sealActive()
            }
        }
    }
}

/// Reads a few properties of a stored record without decoding all of it.
enum RecordFields {
    /// The record's `properties.timestamp`, if it has one.
    static func timestamp(in line: ArraySlice<UInt8>) -> String? {
        guard let value = try? JSONParser.parse(line) else { return nil }
        return value["properties"]?["timestamp"]?.string
    }
}
