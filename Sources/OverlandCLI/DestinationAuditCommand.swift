import ArgumentParser
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
                let span = try ReadBackAudit.span(since: since, until: until)
                let reach = try DestinationReach.configured(name, options: journalOptions)
                let reader = try reach.checkedReader()
                let journal = try journalOptions.open()
                let days = try reach.run {
                    try await reach.audit(journal, reader: reader, since: span.since, until: span.until, wallClock: SyncClock.now)
                }
                Terminal.output(json ? ReadBackAudit.json(days) : ReadBackAudit.table(days))
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
    }
}
