import ArgumentParser
import OverlandJSON
import OverlandJournal
import OverlandMQTT
import OverlandProtocol
import OverlandSettings
import OverlandSync

extension DestinationCommand {
    /// `overland destination resend NAME [--since DATE] [--until DATE] [--missing]` (`PointResend`).
    struct Resend: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send points the destination acknowledged again, once.",
            discussion: """
                For points a receiver lost after it had them (a restored backup, a deleted \
                file) or never stored: sends the acknowledged points still in the journal \
                from --since through --until again, once, as the destination sends them \
                (its own requests, or QoS 1 publishes through its broker), ending with the \
                newest point acknowledged so that a tracker shows it. --missing sends only \
                what the receiver does not hold at that second and position, read back as \
                'overland destination audit' reads it (the destination's verify_url and \
                verify_token). Give --since, --until or --missing: without any, nothing is \
                sent.

                The cursor does not move. 'overland destination audit NAME', once the \
                receiver had time to store them, says whether it holds them now (and \
                'overland status' counts what it found).

                Examples:
                  overland destination resend recorder --missing --since 2026-11-01
                  overland destination resend compass --since 2026-11-20 --until 2026-11-21

                Exit status: 0 sent (or nothing to send); 64 a bad name, date or option; 75 \
                the receiver cannot be reached, did not acknowledge, or a sync holds the \
                destination (try again); 78 --missing for a receiver that cannot be read back \
                as configured.
                """)

        @OptionGroup var journalOptions: JournalOptions
        @Argument(help: ArgumentHelp("The destination.", valueName: "name"), completion: Completions.destinationNames) var name: String
        @Option(help: ArgumentHelp("From this day or time on (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, UTC).", valueName: "date"))
        var since: String?
        @Option(help: ArgumentHelp("Up to this day (its end) or time (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, UTC).", valueName: "date"))
        var until: String?
        @Flag(help: "Only the points the receiver does not hold (read back as audit reads it).") var missing = false

        func run() throws {
            try reportingFailures(DestinationCommand.tool) {
                let name = try DestinationCommand.checkedName(self.name)
                guard since != nil || until != nil || missing else {
                    throw CommandFailure("resend needs --since, --until or --missing: which points to send again", status: .usage)
                }
                let span = try ReadBackAudit.span(since: since, until: until)
                let reach = try DestinationReach.configured(name, options: journalOptions)
                let reader = missing ? try reach.checkedReader() : nil
                let journal = try journalOptions.open()
                let lock = try reach.checkedLock(journal)
                defer { withExtendedLifetime(lock) {} }
                let summary = try reach.run {
                    try await reach.resend(journal, reader: reader, since: span.since, until: span.until, wallClock: SyncClock.now,
                                           onDay: { day in
                                               Terminal.progress("\(String(ISO8601UTC.string(from: day.start).prefix(10))): "
                                                                 + "\(Plural.count(day.unheld.count, "point")) not held")
                                           },
                                           onBatch: { done in Terminal.progress("\(Plural.count(done.points, "point")) sent again") })
                }
                Terminal.clearProgress()
                Terminal.line(Self.line(summary, destination: name, missing: missing, broker: reach.throughBroker))
                if summary.points > 0, let reader {
                    Terminal.line("'overland destination audit \(name)' in \(Format.duration(reader.settleSeconds)) says whether "
                                  + "\(reader.receiverName) holds them")
                }
            }
        }

        /// What was sent again, in one line.
        static func line(_ summary: PointResend.Summary, destination: String, missing: Bool, broker: Bool) -> String {
            guard summary.points > 0 else {
                return missing ? "\(destination): the receiver holds every point acknowledged in that span: nothing sent"
                    : "\(destination): no point acknowledged in that span: nothing sent"
            }
            return "\(destination): sent again \(Plural.count(summary.points, "point"))\(missing ? " the receiver did not hold" : ""), "
                + "from \(ISO8601UTC.string(from: summary.first)) to \(ISO8601UTC.string(from: summary.last))"
                + (broker ? " through the broker" : "")
        }
    }
}
