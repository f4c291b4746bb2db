import OverlandJSON
import OverlandSettings

/// One destination's `SyncReport` as `overland-sync` says it: the lines for standard
/// error (the command chooses the exit status). `label` (the destination's name, when
/// several are configured) starts every line about it.
public struct SyncReportLines {
    let tool: String
    let journal: String
    /// The url as shown (`RedactedURL`).
    let server: String
    let verbose: Bool
    /// Whether to say why nothing was sent: to a person waiting for an answer (a
    /// terminal, or `verbose`), not to cron, whose mail would fill with it every minute.
    let explains: Bool
    /// Now, for "next attempt in 4 min".
    let now: Int64
    /// How the user sets this destination's token, when it has none: a refusal then says
    /// that none is set, not that it is wrong.
    let settingToken: String?

    public init(label: String?, journal: String, endpoint: String, verbose: Bool, explains: Bool, now: Int64,
                destination: String? = nil, hasToken: Bool = true) {
        tool = "overland-sync: " + (label.map { "\($0): " } ?? "")
        self.journal = journal
        server = RedactedURL.shown(endpoint)
        self.verbose = verbose
        self.explains = explains
        self.now = now
        settingToken = hasToken ? nil : destination.map { name in
            name == Destination.defaultName ? "overland config set token --stdin" : "overland destination set \(name) token --stdin"
        }
    }

    /// What `report` says, one line each.
    public func lines(_ report: SyncReport) -> [String] {
        var lines: [String] = []
        for warning in report.warnings where verbose || !(Self.isNote(warning) && Self.succeeded(report)) {
            lines.append("\(tool)\(journal): \(warning)")
        }
        return lines + (quiet(report) ?? failure(report))
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
    /// why nothing was sent when `explains`; nil for a failure.
    private func quiet(_ report: SyncReport) -> [String]? {
        func explain(_ text: String) -> [String] { explains ? ["\(tool)\(journal): \(text)"] : [] }
        switch report.outcome {
        case .delivered, .maxTimeReached:
            guard verbose else { return [] }
            var skipped = report.skippedRecords > 0 ? "; \(report.skippedRecords) older skipped (logging mode)" : ""
            if report.notCarriedRecords > 0 {
                skipped += "; \(report.notCarriedRecords) not sent: trip, visit or action records or unreadable lines, which this receiver does not take"
            }
            if report.alreadyAcknowledged > 0 {
                skipped += "; \(report.alreadyAcknowledged) it had before they were moved here, not sent again"
            }
            return ["\(tool)\(journal): \(Plural.count(report.sentRecords, "point")) sent to \(server) in \(Plural.count(report.batches, "request"))\(skipped); \(report.backlog) waiting"]
        case .nothingToSend:
            return explain("nothing to send")
        case .notDue(let next):
            return explain("not due: the send interval has not passed since the last delivery; next attempt at \(when(next)); --now sends anyway")
        case .backingOff(let until):
            // The schedule's message: "backing off after N failed attempt(s) until TIME".
            let why = report.message?.components(separatedBy: " until ").first ?? "backing off after failures"
            return explain("\(why); next attempt at \(when(until)); --now sends anyway")
        case .sendingOff:
            return explain("sending is off (send_interval off); --now sends anyway")
        case .alreadyRunning:
            return explain(report.message == DestinationsRun.heldByAnotherRun ? DestinationsRun.heldByAnotherRun
                           : "another overland-sync is uploading this journal")
        default:
            return nil
        }
    }

    /// A run that failed: one line.
    private func failure(_ report: SyncReport) -> [String] {
        switch report.outcome {
        case .interrupted:
            return ["\(tool)\(journal): interrupted; the unacknowledged batch will be sent again"]
        case .retryLater:
            return ["\(tool)\(server): \(report.message ?? "not acknowledged"); \(Plural.count(report.backlog, "point")) kept for the next try"]
        case .refused(let status) where status == 0:
            // MQTT: the broker's CONNACK reason, named by the sender.
            return ["\(tool)\(report.message ?? "\(server) refused the credentials: check the username and token")"]
        case .refused(let status) where settingToken != nil:
            return ["\(tool)\(server) asks for credentials (HTTP \(status)) and no token is set: set one with '\(settingToken ?? "")'"]
        case .refused(let status):
            return ["\(tool)\(server) refused the credentials (HTTP \(status)): check the token"]
        case .configurationError where report.lastStatus != nil:
            // The receiver's reply (a 404, a redirect): its message starts with the url, as
            // every other line about the server does, not with the journal.
            return ["\(tool)\(report.message ?? "\(server): wrong endpoint")"]
        case .configurationError:
            return ["\(tool)\(journal): \(report.message ?? "configuration error")"]
        case .journalError(let error):
            return ["\(tool)\(error)"]
        case .stateError:
            return ["\(tool)\(journal): \(report.message ?? "the sync state cannot be written")"]
        case .delivered, .maxTimeReached, .nothingToSend, .notDue, .backingOff, .sendingOff, .alreadyRunning:
            return []
        }
    }

    /// "2026-11-21T05:22:12Z (in 4 min)": a time to come, absolute and relative.
    func when(_ time: Int64) -> String {
        let seconds = max(0, time - now)
        let relative = seconds < 60 ? "\(seconds) s" : seconds < 7200 ? "\((seconds + 59) / 60) min" : "\((seconds + 1799) / 3600) h"
        return "\(ISO8601UTC.string(from: time)) (in \(relative))"
    }
}
