import OverlandJSON
import OverlandJournal
import OverlandMQTT
import OverlandSettings
import OverlandSync

/// Reading back after a destination's drain (`verify true`, `ReadBackPass`), and what it
/// says on stderr.
enum ReadBackStep {
    /// Whether a run that ended so reads back: one that delivered, had nothing to send or
    /// was not due (what earlier runs sent may still wait to be compared); not one that
    /// failed, waits out a backoff, or was interrupted.
    static func follows(_ outcome: SyncReport.Outcome) -> Bool {
        switch outcome {
        case .delivered, .nothingToSend, .maxTimeReached, .notDue: true
        default: false
        }
    }

    /// A destination's drain, done (`DestinationsRun.afterDrain`), with what reading back
    /// found when `destination` verifies: an HTTP receiver read back and sent to again
    /// through its own transport, an mqtt destination through what its broker feeds
    /// (`BrokerReadBack`), its missing points published again (`MQTTResender`).
    static func run(after drained: DestinationsRun.Drained, destination: Destination) async -> SyncReport {
        let cursor = drained.destination.name
        guard destination.verify else { return run(forgetting: drained.report, journal: drained.journal, cursor: cursor) }
        let configuration: SyncConfiguration
        var broker: MQTTDestinationSender?
        if let http = drained.destination as? HTTPDestination {
            configuration = http.configuration
        } else if let mqtt = drained.destination as? MQTTDestinationSender {
            configuration = BrokerReadBack.configuration(for: mqtt.destination)
            broker = mqtt
        } else {
            return run(forgetting: drained.report, journal: drained.journal, cursor: cursor)
        }
        do {
            return try await HTTPClientTransport.withTransport(configuration: configuration) { transport in
                await run(after: drained.report, destination: destination, configuration: configuration,
                          journal: drained.journal, cursor: cursor, acknowledged: drained.acknowledged, transport: transport,
                          broker: broker)
            }
        } catch {
            var report = drained.report
            var failed = ReadBackReport()
            failed.unfinished = "\(error)"
            report.readBack = failed
            return report
        }
    }

    /// `report` once `cursor`'s stored mark is forgotten (verify is off: it no longer holds
    /// retention back).
    private static func run(forgetting report: SyncReport, journal: Journal, cursor: CursorName) -> SyncReport {
        var report = report
        do { try StoredMarks.forget(journal, cursor) } catch { report.warnings.append(error.description) }
        return report
    }

    /// `report` with what reading back found, when `destination` verifies; for one that
    /// does not, its stored mark is forgotten (it no longer holds retention back).
    /// `acknowledged` is what the drain's receiver acknowledged (from the cursor before
    /// it); `broker`, an mqtt destination's sender (nil: an HTTP receiver, sent to again
    /// through `transport`).
    static func run(after report: SyncReport, destination: Destination, configuration: SyncConfiguration,
                    journal: Journal, cursor: CursorName, acknowledged: Range<UInt64>, transport: any Transport,
                    broker: MQTTDestinationSender? = nil) async -> SyncReport {
        guard destination.verify else { return run(forgetting: report, journal: journal, cursor: cursor) }
        var report = report
        let runStart = acknowledged.lowerBound
        do {
            try ReadBackPass.begin(journal, cursor, acknowledged: acknowledged, now: SyncClock.now())
        } catch {
            report.warnings.append(error.description)
        }
        guard follows(report.outcome) else { return report }
        do {
            let reader: any ReadBackReader
            if let broker {
                reader = try BrokerReadBack.reader(for: broker.destination, destination: destination)
            } else {
                reader = try ReadBackReaders.reader(for: configuration, verifyURL: destination.verifyURL, verifyToken: destination.verifyToken)
            }
            let pass = ReadBackPass(journal: journal, cursor: cursor, configuration: configuration, reader: reader,
                                    transport: transport, resender: broker.map { MQTTResender(sender: $0, journal: journal) },
                                    wallClock: SyncClock.now)
            report.readBack = await pass.run(runStart: runStart)
        } catch {
            var failed = ReadBackReport()
            failed.unfinished = "\(error)"
            failed.misconfigured = true
            report.readBack = failed
            do { try ReadBackPass.record(problem: "\(error)", journal, cursor) } catch { report.warnings.append(error.description) }
        }
        return report
    }

    /// The lines about `readBack` and the status they call for: 65 when the receiver
    /// refused points (waiting will not fix it), 78 when the destination cannot be read
    /// back as configured, 75 when the pass could not finish, else 0. Every line has the
    /// destination's secrets (url, token, read token) taken out.
    static func describe(_ readBack: ReadBackReport?, tool: String, verbose: Bool, destination: Destination) -> ExitStatus {
        guard let readBack else { return .ok }
        func hiding(_ text: String) -> String {
            SecretRedaction.hiding(url: destination.url, token: destination.token,
                                   others: destination.verifyToken.map { [$0] } ?? [], in: text)
        }
        var status = ExitStatus.ok
        for note in readBack.notes { Terminal.error(tool + "reading back: " + hiding(note)) }
        if let refused = readBack.refused {
            Terminal.error(tool + hiding(refused.line(receiver: readBack.receiverName)))
            status = .dataError
        }
        if let unfinished = readBack.unfinished {
            if readBack.misconfigured {
                Terminal.error("\(tool)verify: \(hiding(unfinished))")
                return ExitStatus.configuration.severity > status.severity ? .configuration : status
            }
            Terminal.error("\(tool)reading back: \(hiding(unfinished)); the rest is compared at the next run")
            if status == .ok { status = .tryLater }
        }
        if verbose, readBack.retriedRefused > 0 {
            Terminal.error("\(tool)\(Plural.count(readBack.retriedRefused, "refused point")) tried again: the destination is sent otherwise now")
        }
        if verbose, readBack.checked > 0 {
            Terminal.error("\(tool)read back \(Plural.count(readBack.checked, "point")): \(readBack.stored) stored, "
                           + "\(readBack.resent) sent again")
        }
        if verbose, readBack.waiting > 0 {
            Terminal.error("\(tool)\(Plural.count(readBack.waiting, "point")) read back by a later run, once "
                           + "\(readBack.receiverName) had time to store them")
        }
        return status
    }
}
