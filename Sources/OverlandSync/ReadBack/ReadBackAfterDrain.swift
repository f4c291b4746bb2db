import OverlandJSON
import OverlandJournal
import OverlandProtocol
import OverlandSettings

/// Reading back after a destination's drain (`verify true`, `ReadBackPass`), as
/// `DestinationsRun.afterDrain` calls it: through the route its sender gives
/// (`DestinationSender.readBackRoute`: an HTTP receiver read back and sent to again
/// through its own transport, an mqtt destination through what its broker feeds, its
/// missing points published again).
public enum ReadBackAfterDrain {
    /// Whether a run that ended so reads back: one that delivered, had nothing to send or
    /// was not due (what earlier runs sent may still wait to be compared); not one that
    /// failed, waits out a backoff, or was interrupted.
    public static func follows(_ outcome: SyncReport.Outcome) -> Bool {
        switch outcome {
        case .delivered, .nothingToSend, .maxTimeReached, .notDue: true
        default: false
        }
    }

    /// A destination's drain, done, with what reading back found when `destination`
    /// verifies; for one that does not, its stored mark is forgotten (it no longer holds
    /// retention back). `wallClock` is the run's.
    public static func run(after drained: DestinationsRun.Drained, destination: Destination,
                           wallClock: @escaping @Sendable () -> Int64) async -> SyncReport {
        let cursor = drained.destination.name
        guard destination.verify, let route = drained.destination.readBackRoute else {
            return forgetting(drained.report, journal: drained.journal, cursor: cursor)
        }
        do {
            return try await route.withTransport { transport in
                await run(after: drained, destination: destination, route: route, transport: transport, wallClock: wallClock)
            }
        } catch {
            var report = drained.report
            var failed = ReadBackReport()
            failed.unfinished = "\(error)"
            report.readBack = failed
            return report
        }
    }

    /// `report` once `cursor`'s stored mark is forgotten.
    private static func forgetting(_ report: SyncReport, journal: Journal, cursor: CursorName) -> SyncReport {
        var report = report
        do { try StoredMarks.forget(journal, cursor) } catch { report.warnings.append(error.description) }
        return report
    }

    /// The drain's report with what the pass through `transport` found.
    private static func run(after drained: DestinationsRun.Drained, destination: Destination, route: ReadBackRoute,
                            transport: any Transport, wallClock: @escaping @Sendable () -> Int64) async -> SyncReport {
        var report = drained.report
        let journal = drained.journal
        let cursor = drained.destination.name
        do {
            try ReadBackPass.begin(journal, cursor, acknowledged: drained.acknowledged, now: wallClock())
        } catch {
            report.warnings.append(error.description)
        }
        guard follows(report.outcome) else { return report }
        do {
            let reader = try route.reader(verifyURL: destination.verifyURL, verifyToken: destination.verifyToken)
            let pass = ReadBackPass(journal: journal, cursor: cursor, configuration: route.configuration, reader: reader,
                                    transport: transport, resender: route.resender(journal: journal, transport: transport),
                                    wallClock: wallClock)
            report.readBack = await pass.run(runStart: drained.acknowledged.lowerBound)
        } catch {
            var failed = ReadBackReport()
            failed.unfinished = "\(error)"
            failed.misconfigured = true
            report.readBack = failed
            do { try ReadBackPass.record(problem: "\(error)", journal, cursor) } catch { report.warnings.append(error.description) }
        }
        return report
    }
}

extension ReadBackReport {
    /// One line of what a run says of its pass, and what kind of news it is (the command
    /// chooses its status by it).
    public struct Line: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            /// Said always, changes nothing.
            case note
            /// Points the receiver refused: waiting will not fix it.
            case refused
            /// The destination cannot be read back as configured.
            case misconfigured
            /// The pass could not finish: the next run continues.
            case unfinished
            /// Said with `--verbose`.
            case detail
        }

        public var kind: Kind
        public var text: String
    }

    /// What the run says of this pass, a line each, every one with `destination`'s secrets
    /// (url, token, read token) taken out. After a configuration problem nothing more.
    public func lines(verbose: Bool, destination: Destination) -> [Line] {
        func hiding(_ text: String) -> String {
            SecretRedaction.hiding(url: destination.url, token: destination.token,
                                   others: destination.verifyToken.map { [$0] } ?? [], in: text)
        }
        var lines = notes.map { Line(kind: .note, text: "reading back: " + hiding($0)) }
        if let refused { lines.append(Line(kind: .refused, text: hiding(refused.line(receiver: receiverName)))) }
        if let unfinished {
            if misconfigured { return lines + [Line(kind: .misconfigured, text: "verify: \(hiding(unfinished))")] }
            lines.append(Line(kind: .unfinished, text: "reading back: \(hiding(unfinished)); the rest is compared at the next run"))
        }
        guard verbose else { return lines }
        if retriedRefused > 0 {
            lines.append(Line(kind: .detail, text: "\(Plural.count(retriedRefused, "refused point")) tried again: the destination is sent otherwise now"))
        }
        if checked > 0 {
            lines.append(Line(kind: .detail, text: "read back \(Plural.count(checked, "point")): \(stored) stored, \(resent) sent again"))
        }
        if waiting > 0 {
            lines.append(Line(kind: .detail, text: "\(Plural.count(waiting, "point")) read back by a later run, once "
                              + "\(receiverName) had time to store them"))
        }
        return lines
    }
}
