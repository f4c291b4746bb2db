import ArgumentParser
import OverlandJSON
import OverlandJournal
import OverlandMQTT
import OverlandProtocol
import OverlandSettings
import OverlandSync

extension DestinationCommand {
    /// `overland destination audit NAME [--since DATE] [--json]` (`ReadBackAudit`).
    struct Audit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare what a receiver holds with every point still in the journal.",
            discussion: """
                Reads the receiver's store back (as verify does) for every day that has \
                points in the journal (from --since on) and prints, by day: sent (points \
                acknowledged), stored, missing (the receiver holds nothing at that second), \
                moved (it holds that second at another position) and extra (it holds \
                points the journal does not have). Exits 0 only when nothing is missing or \
                moved (65 otherwise); a receiver that cannot be read back is a \
                configuration error (78), one that cannot be reached 75.

                Example:
                  overland destination audit recorder --since 2026-11-01
                """)

        @OptionGroup var journalOptions: JournalOptions
        @Argument(help: ArgumentHelp("The destination.", valueName: "name"), completion: Completions.destinationNames) var name: String
        @Option(help: ArgumentHelp("Only points from this day or time on (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, UTC).", valueName: "date"))
        var since: String?
        @Flag(help: "One JSON object per day, in an array.") var json = false

        func run() throws {
            try reportingFailures(DestinationCommand.tool) {
                let name = try DestinationCommand.checkedName(self.name)
                let start = try since.map(Self.parseSince)
                let settings = try journalOptions.settings()
                let destinations = try journalOptions.settingsOptions.destinations(settings: settings)
                guard let destination = destinations.first(where: { $0.name == name }) else {
                    throw DestinationCommand.unknown(name, among: destinations)
                }
                // What the sync would refuse of it, refused here in the same words.
                if let problem = destination.problems(settings: settings).first {
                    throw CommandFailure("\(name): \(problem)", status: .configuration)
                }
                var configuration = Self.configuration(for: destination, settings: settings)
                let reader: any ReadBackReader
                var broker: MQTTDestination?
                if case .mqttBroker = Receivers.carrier(of: destination.wireProtocol, url: destination.url) {
                    let mqtt = DestinationSenders(settings: settings, trip: nil).mqtt(destination)
                    configuration = BrokerReadBack.configuration(for: mqtt)
                    broker = mqtt
                }
                do {
                    if let broker {
                        reader = try BrokerReadBack.reader(for: broker, destination: destination)
                    } else {
                        reader = try ReadBackReaders.reader(for: configuration, verifyURL: destination.verifyURL, verifyToken: destination.verifyToken)
                    }
                } catch {
                    throw CommandFailure("\(name): \(error)", status: .configuration)
                }
                let journal = try journalOptions.open()
                let sending = configuration
                let days = try Self.days(configuration: configuration, since: start, destination: destination) { transport in
                    ReadBackAudit(journal: journal, cursor: CursorName(name) ?? .default, configuration: sending,
                                  reader: reader, transport: transport, wallClock: SyncClock.now)
                }
                Terminal.output(json ? Self.json(days) : Self.table(days))
                if days.contains(where: { $0.missing > 0 || $0.moved > 0 }) { throw ExitCode(ExitStatus.dataError.rawValue) }
            }
        }

        /// What the destination is read with: its url, credentials, device, protocol and profile.
        static func configuration(for destination: Destination, settings: Settings) -> SyncConfiguration {
            var configuration = SyncConfiguration(endpoint: destination.url, token: destination.token,
                                                  deviceID: destination.sentDeviceID(settings: settings))
            configuration.wireProtocol = destination.wireProtocol
            configuration.profile = destination.profile
            configuration.loggingMode = destination.loggingMode
            configuration.caFile = destination.caFile
            return configuration
        }

        /// Runs the audit `audit` makes over an HTTP transport for `configuration`: the days,
        /// or the failure as one line (its secrets hidden), 75.
        static func days(configuration: SyncConfiguration, since: Int64?, destination: Destination,
                         audit: @escaping @Sendable (any Transport) -> ReadBackAudit) throws -> [ReadBackAudit.Day] {
            let outcome = MultiCall.runToCompletion { () -> Result<[ReadBackAudit.Day], any Error> in
                do {
                    return .success(try await HTTPClientTransport.withTransport(configuration: configuration) { transport in
                        var days: [ReadBackAudit.Day] = []
                        try await audit(transport).run(since: since) { days.append($0) }
                        return days
                    })
                } catch {
                    return .failure(error)
                }
            }
            switch outcome {
            case .success(let days): return days
            case .failure(let error as JournalError): throw error
            case .failure(let error):
                let text = SecretRedaction.hiding(url: destination.url, token: destination.token,
                                                  others: destination.verifyToken.map { [$0] } ?? [], in: "\(error)")
                // As the sync says it: an answer that cannot be read is the user's to fix.
                let configurationError = (error as? ReadBackError)?.isConfiguration == true
                throw CommandFailure("\(destination.name): \(configurationError ? "verify" : "reading back"): \(text)",
                                     status: configurationError ? .configuration : .tryLater)
            }
        }

        /// `--since`: a day (UTC midnight) or a time.
        static func parseSince(_ text: String) throws -> Int64 {
            if let time = ISO8601UTC.parse(text) ?? ISO8601UTC.parse(text + "T00:00:00Z") { return time }
            throw CommandFailure("invalid value \"\(PrintableText.sanitised(String(text.prefix(64)), allowLineBreaks: false))\" "
                                 + "for --since (allowed: a day YYYY-MM-DD or a time YYYY-MM-DDTHH:MM:SSZ, UTC)", status: .usage)
        }

        static func table(_ days: [ReadBackAudit.Day]) -> String {
            let columns = ["sent", "stored", "missing", "moved", "extra"]
            var text = "day         " + columns.map { $0.padding(to: 8) }.joined() + "\n"
            for day in days {
                let values = [day.sent, day.stored, day.missing, day.moved, day.extra].map { String($0).padding(to: 8) }
                text += String(ISO8601UTC.string(from: day.start).prefix(10)) + "  " + values.joined() + "\n"
            }
            if days.isEmpty { text += "(no points sent to this destination are left in the journal)\n" }
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
