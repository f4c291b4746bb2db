import ArgumentParser
import OverlandJSON
import OverlandJournal
import OverlandMQTT
import OverlandSync

extension DestinationCommand {
    /// `overland destination audit NAME [--since DATE] [--json]` (`ReadBackAudit`).
    struct Audit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare what a receiver holds with every point still in the journal.",
            discussion: """
                Reads the receiver's store back (as verify does) for every day that has \
                points in the journal (from --since, through --until) and prints, by day: \
                sent (points acknowledged), stored, missing (the receiver holds nothing at \
                that second), moved (it holds that second at another position) and extra \
                (it holds points the journal does not have), and the days added up. What \
                it finds not held is what 'overland status' then counts as refused, and \
                what 'overland destination resend NAME --missing' sends again. Exits 0 \
                only when nothing is missing or moved (65 otherwise); a receiver that \
                cannot be read back is a configuration error (78), one that cannot be \
                reached 75.

                Example:
                  overland destination audit recorder --since 2026-11-01
                """)

        @OptionGroup var journalOptions: JournalOptions
        @Argument(help: ArgumentHelp("The destination.", valueName: "name"), completion: Completions.destinationNames) var name: String
        @Option(help: ArgumentHelp("Only points from this day or time on (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, UTC).", valueName: "date"))
        var since: String?
        @Option(help: ArgumentHelp("Only points up to this day (its end) or time (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, UTC).", valueName: "date"))
        var until: String?
        @Flag(help: "One JSON object per day, in an array.") var json = false

        func run() throws {
            try reportingFailures(DestinationCommand.tool) {
                let name = try DestinationCommand.checkedName(self.name)
                let span = try Self.span(since: since, until: until)
                let reach = try DestinationReach.configured(name, options: journalOptions)
                let reader = try reach.checkedReader()
                let journal = try journalOptions.open()
                let days = try reach.run {
                    try await reach.audit(journal, reader: reader, since: span.since, until: span.until, wallClock: SyncClock.now)
                }
                Terminal.output(json ? Self.json(days) : Self.table(days))
                Self.record(days, reach: reach, journal: journal)
                if days.contains(where: { $0.missing > 0 || $0.moved > 0 }) { throw ExitCode(ExitStatus.dataError.rawValue) }
            }
        }

        /// Keeps what the audit found (`DestinationReach.keep`), under the destination's
        /// lock; while a sync holds it, one line says it was not kept.
        static func record(_ days: [ReadBackAudit.Day], reach: DestinationReach, journal: Journal) {
            do {
                let lock = try reach.checkedLock(journal)
                defer { withExtendedLifetime(lock) {} }
                try reach.keep(days, in: journal)
            } catch {
                Terminal.error("\(DestinationCommand.tool): \(reach.destination.name): what the audit found is not kept for 'overland status': "
                               + "\((error as? CommandFailure)?.message ?? "\(error)")")
            }
        }

        /// `--since` and `--until` as Unix seconds: a day from its first second (since) or
        /// through its last (until), or a time; usage errors (64) naming the value.
        static func span(since: String?, until: String?) throws -> (since: Int64?, until: Int64?) {
            let start = try since.map { try parse($0, option: "--since", dayEnd: false) }
            let end = try until.map { try parse($0, option: "--until", dayEnd: true) }
            if let start, let end, start > end {
                throw CommandFailure("--since \(since ?? "") is after --until \(until ?? "")", status: .usage)
            }
            return (start, end)
        }

        /// A day (its first second, or its last with `dayEnd`) or a time, UTC.
        static func parse(_ text: String, option: String, dayEnd: Bool) throws -> Int64 {
            if let time = ISO8601UTC.parse(text) { return time }
            if let day = ISO8601UTC.parse(text + "T00:00:00Z") { return dayEnd ? day + 86_399 : day }
            throw CommandFailure("invalid value \"\(PrintableText.sanitised(String(text.prefix(64)), allowLineBreaks: false))\" "
                                 + "for \(option) (allowed: a day YYYY-MM-DD or a time YYYY-MM-DDTHH:MM:SSZ, UTC)", status: .usage)
        }

        static func table(_ days: [ReadBackAudit.Day]) -> String {
            let columns = ["sent", "stored", "missing", "moved", "extra"]
            var text = "day         " + columns.map { $0.padding(to: 8) }.joined() + "\n"
            for day in days {
                let values = [day.sent, day.stored, day.missing, day.moved, day.extra].map { String($0).padding(to: 8) }
                text += String(ISO8601UTC.string(from: day.start).prefix(10)) + "  " + values.joined() + "\n"
            }
            if days.isEmpty {
                text += "(no points sent to this destination are left in the journal)\n"
            } else if days.count > 1 {
                let values = [\.sent, \.stored, \.missing, \.moved, \.extra].map { (key: KeyPath<ReadBackAudit.Day, Int>) in
                    String(days.reduce(0) { $0 + $1[keyPath: key] }).padding(to: 8)
                }
                text += "all         " + values.joined() + "\n"
            }
            return text
        }

        static func json(_ days: [ReadBackAudit.Day]) -> String {
            var writer = JSONWriter()
            writer.appendRaw("[")
            for (index, day) in days.enumerated() {
                writer.appendRaw(index == 0 ? "{\"day\":" : ",{\"day\":")
                writer.appendString(String(ISO8601UTC.string(from: day.start).prefix(10)))
                for (key, value) in [("sent", day.sent), ("stored", day.stored), ("missing", day.missing), ("moved", day.moved), ("extra", day.extra)] {
                    writer.appendRaw(",\"")
                    writer.appendRaw(Array(key.utf8))
                    writer.appendRaw("\":")
                    writer.appendInteger(value)
                }
                writer.appendRaw("}")
            }
            writer.appendRaw("]\n")
            return String(decoding: writer.bytes, as: UTF8.self)
        }
    }
}
