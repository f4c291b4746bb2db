import OverlandJSON
import OverlandSettings
import OverlandSync

/// One destination's `SyncReport` as `overland-sync` says it: lines on standard error and
/// an exit status. `label` (the destination's name, when several are configured) starts
/// every line about it.
struct SyncReportLines {
    let tool: String
    let journal: String
    /// The url as shown (`RedactedURL`).
    let server: String
    let verbose: Bool
    /// How the user sets this destination's token, when it has none: a refusal then says
    /// that none is set, not that it is wrong.
    let settingToken: String?

    init(label: String?, journal: String, endpoint: String, verbose: Bool, destination: String? = nil, hasToken: Bool = true) {
        tool = "overland-sync: " + (label.map { "\($0): " } ?? "")
        self.journal = journal
        server = RedactedURL.shown(endpoint)
        self.verbose = verbose
        settingToken = hasToken ? nil : destination.map { name in
            name == Destination.defaultName ? "overland config set token --stdin" : "overland destination set \(name) token --stdin"
        }
    }

    /// Prints what `report` says and returns its exit status.
    func print(_ report: SyncReport) -> ExitStatus {
        for warning in report.warnings where verbose || !(Self.isNote(warning) && Self.succeeded(report)) {
            Terminal.error("\(tool)\(journal): \(warning)")
        }
        return quiet(report) ?? failure(report)
    }

    /// A line that explains a run rather than warns (the destination changed since its
    /// failures, so it is tried at once): worth saying when the run fails or when asked,
    /// not after a run that succeeded (cron mails every line).
    private static func isNote(_ warning: String) -> Bool { warning == SyncReport.destinationChangedNote }

    private static func succeeded(_ report: SyncReport) -> Bool {
        switch report.outcome {
        case .delivered, .nothingToSend, .maxTimeReached: true
        default: false
        }
    }

    /// A run that went as it should (sent, or had nothing due): said only when asked, or
    /// why nothing was sent on a terminal; nil for a failure.
    private func quiet(_ report: SyncReport) -> ExitStatus? {
        // Why nothing was sent: said on a terminal (a person waiting for an answer), not
        // from cron, whose mail would fill with it every minute.
        func explain(_ text: String) { if verbose || Terminal.stderrIsTerminal { Terminal.error("\(tool)\(journal): \(text)") } }
        switch report.outcome {
        case .delivered, .maxTimeReached:
            var skipped = report.skippedRecords > 0 ? "; \(report.skippedRecords) older skipped (logging mode)" : ""
            if report.notCarriedRecords > 0 {
                skipped += "; \(report.notCarriedRecords) not sent: trip, visit or action records or unreadable lines, which this receiver does not take"
            }
            if report.alreadyAcknowledged > 0 {
                skipped += "; \(report.alreadyAcknowledged) it had before they were moved here, not sent again"
            }
            if verbose {
                Terminal.error("\(tool)\(journal): \(Plural.count(report.sentRecords, "point")) sent to \(server) in \(Plural.count(report.batches, "request"))\(skipped); \(report.backlog) waiting")
            }
        case .nothingToSend:
            explain("nothing to send")
        case .notDue(let next):
            explain("not due: the send interval has not passed since the last delivery; next attempt at \(Self.when(next)); --now sends anyway")
        case .backingOff(let until):
            // The schedule's message: "backing off after N failed attempt(s) until TIME".
            let why = report.message?.components(separatedBy: " until ").first ?? "backing off after failures"
            explain("\(why); next attempt at \(Self.when(until)); --now sends anyway")
        case .sendingOff:
            explain("sending is off (send_interval off); --now sends anyway")
        case .alreadyRunning:
            explain(report.message == DestinationsRun.heldByAnotherRun ? DestinationsRun.heldByAnotherRun
                    : "another overland-sync is uploading this journal")
        default:
            return nil
        }
        return .ok
    }

    /// A run that failed: one line, and its status.
    private func failure(_ report: SyncReport) -> ExitStatus {
        switch report.outcome {
        case .interrupted:
            Terminal.error("\(tool)\(journal): interrupted; the unacknowledged batch will be sent again")
            return .tryLater
        case .retryLater:
            Terminal.error("\(tool)\(server): \(report.message ?? "not acknowledged"); \(Plural.count(report.backlog, "point")) kept for the next try")
            return .tryLater
        case .refused(let status) where status == 0:
            // MQTT: the broker's CONNACK reason, named by the sender.
            Terminal.error("\(tool)\(report.message ?? "\(server) refused the credentials: check the username and token")")
            return .noPermission
        case .refused(let status) where settingToken != nil:
            Terminal.error("\(tool)\(server) asks for credentials (HTTP \(status)) and no token is set: set one with '\(settingToken ?? "")'")
            return .noPermission
        case .refused(let status):
            Terminal.error("\(tool)\(server) refused the credentials (HTTP \(status)): check the token")
            return .noPermission
        case .configurationError where report.lastStatus != nil:
            // The receiver's reply (a 404, a redirect): its message starts with the url, as
            // every other line about the server does, not with the journal.
            Terminal.error("\(tool)\(report.message ?? "\(server): wrong endpoint")")
            return .configuration
        case .configurationError:
            Terminal.error("\(tool)\(journal): \(report.message ?? "configuration error")")
            return .configuration
        case .journalError(let error):
            Terminal.error("\(tool)\(error)")
            return error.exitStatus == .noInput ? .ioError : error.exitStatus
        case .stateError:
            Terminal.error("\(tool)\(journal): \(report.message ?? "the sync state cannot be written")")
            return .ioError
        case .delivered, .maxTimeReached, .nothingToSend, .notDue, .backingOff, .sendingOff, .alreadyRunning:
            return .ok
        }
    }

    /// "2026-11-21T05:22:12Z (in 4 min)": a time to come, absolute and relative.
    static func when(_ time: Int64) -> String {
        let seconds = max(0, time - SyncClock.now())
        let relative = seconds < 60 ? "\(seconds) s" : seconds < 7200 ? "\((seconds + 59) / 60) min" : "\((seconds + 1799) / 3600) h"
        return "\(ISO8601UTC.string(from: time)) (in \(relative))"
    }
}
