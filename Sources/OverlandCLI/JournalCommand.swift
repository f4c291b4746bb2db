import ArgumentParser
import OverlandJSON
import OverlandJournal
import OverlandProtocol
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
                let opened = try journalOptions.openWithReaders()
                let report = try JournalStatsReport(journal: opened.journal, readers: opened.readers)
                if json {
                    Terminal.output(report.json())
                } else {
                    for line in report.text() { Terminal.line(line) }
                }
            }
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every segment: framing, checksums, record JSON.",
            discussion: """
                Prints each damaged range (file, offset, length, reason) and, when the journal has several readers, \
                each cursor with its backlog. Exit status 0 when the journal is intact, \
                65 when damage was found or a cursor cannot be used. With --json, prints the summary of \
                journal-format.md section 14 on standard output. Reads only: nothing in the journal changes.
                """)

        @OptionGroup var journalOptions: JournalOptions
        @Flag(help: "Print one JSON object (journal-format.md section 14) instead of text.") var json = false

        func run() throws {
            try reportingFailures("overland journal verify") {
                let directory = journalOptions.path(with: try journalOptions.settings())
                let printer = IssuePrinter(tool: "overland journal verify")
                let journal: Journal
                let result: Journal.Verification
                let cursors: [VerifySummary.Cursor]
                do {
                    journal = try Journal(path: directory, readOnly: true)
                    result = try journal.verify(onIssue: printer.handler)
                    cursors = try VerifySummary.cursors(of: journal, onIssue: printer.handler)
                } catch {
                    if json, case JournalError.untrusted(let path, let reason) = error {
                        Terminal.output(VerifySummary.refusal(file: VerifySummary.relative(path, in: directory), reason: reason))
                    }
                    throw error
                }
                if json {
                    Terminal.output(VerifySummary.json(result, cursors: cursors))
                } else {
                    var summary = "\(Plural.count(result.segments, "segment")), \(Plural.count(result.intactRecords, "intact record")), \(Plural.count(result.damage, "damaged range"))"
                    if result.unfinishedTail { summary += "; the active segment ends in an unfinished write (cut on the next append)" }
                    Terminal.line(summary)
                    // With several readers, each cursor and its backlog (section 9).
                    if cursors.count > 1 || cursors.first?.key != "default" {
                        for cursor in cursors { Terminal.line(VerifySummary.line(cursor, result)) }
                    }
                }
                try Self.refuseCursors(cursors, of: journal)
                if result.damage > 0 {
                    throw CommandFailure("damage found; 'overland journal repair' keeps the intact records and sets the rest aside",
                                         status: .dataError)
                }
            }
        }

        /// A cursor that cannot be used is damage too: each said, the last the failure.
        static func refuseCursors(_ cursors: [VerifySummary.Cursor], of journal: Journal) throws {
            let refused = cursors.compactMap { cursor -> String? in
                guard case .refused(_, let reason) = cursor.reading else { return nil }
                return "refusing '\(journal.path)/\(cursor.file)': \(reason)"
            }
            guard let last = refused.last else { return }
            for line in refused.dropLast() { Terminal.error("overland journal verify: " + line) }
            throw CommandFailure(last, status: .dataError)
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
                Terminal.line(repaired == 0 && printer.count == 0 ? "nothing to repair" : "\(Plural.count(repaired, "segment")) rewritten")
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
