import OverlandJSON
import OverlandJournal
import OverlandLogger
import OverlandProtocol
import OverlandRecorder
import OverlandSettings
import OverlandSync

/// What `overland status` reports, gathered once: the last point, the default
/// destination's queue and schedule, the active trip, the journal's size, every
/// destination (`DestinationStatus`). Shown as aligned text (`page`) or one JSON object.
public struct Status {
    var journalPath: String
    var last: LocationFeature?
    var queued: UInt64
    var footprint: Journal.Footprint
    var endSequence: UInt64
    var sync: SyncState
    var sendInterval: String
    var endpoint: String?
    var token: String?
    var trip: (trip: Trip, summary: TripSummary)?
    var now: Int64
    /// False on first use: no journal yet at `journalPath`.
    var journalExists = true
    /// A running logger's input without a fix for a while.
    var noFix: InputState.NoFix? = nil
    /// Every configured destination (the default one first).
    var destinations: [DestinationStatus] = []
    /// False when the settings name no endpoint (no default destination): the top block
    /// then shows no queue, delivery or schedule of its own.
    var hasDefaultDestination = true
    /// True when the default destination's url or token changed since its failures: they
    /// no longer apply, and the next run tries it (`SyncState.forgetFailures`).
    var destinationChanged = false
    /// On first use, the packaged services' journal when there is one: the user probably
    /// wants that one.
    var packagedJournal: String?
    /// What the settings file holds that the logger passes over (`SettingsError.statusText`).
    var settingsProblems: [SettingsError] = []
    /// Why nothing is logged, when tracking is off: since when and who.
    var trackingOff: String?

    /// The status of the journal at `journalPath`, or with `firstUse` of a machine where
    /// nothing has been logged yet (no journal there, none named: it is not opened).
    /// `packagedJournal` is said on first use; `trackingOff` comes first on the page.
    public static func read(journalPath: String, firstUse: Bool, destinations: [Destination], settings: Settings,
                            settingsProblems: [SettingsError], trackingOff: String?, packagedJournal: String?,
                            now: Int64) throws -> Status {
        var status: Status
        if firstUse {
            status = nothingLogged(journalPath: journalPath, settings: settings, now: now)
            status.destinations = destinations.map {
                DestinationStatus(destination: $0, backlog: 0, sync: SyncState(), problem: $0.problems(settings: settings).first)
            }
            status.packagedJournal = packagedJournal
        } else {
            let journal = try Journal(path: journalPath)
            status = try read(journal: journal, settings: settings, now: now)
            status.destinations = try DestinationStatus.read(destinations, journal: journal, settings: settings)
        }
        status.hasDefaultDestination = destinations.contains { $0.isDefault }
        status.settingsProblems = settingsProblems
        status.trackingOff = trackingOff
        return status
    }

    static func read(journal: Journal, settings: Settings, now: Int64) throws -> Status {
        // The newest location point: trip, visit and action records are not positions.
        var last: LocationFeature?
        _ = try journal.lastRecord { line in
            last = try? LocationFeature(jsonLine: line)
            return last != nil
        }
        let trip = try Trip.active(in: journal).map { ($0, try TripSummary.compute(for: $0, through: now, in: journal)) }
        // The default destination's own queue (its cursor), not the journal's largest backlog.
        var status = Status(journalPath: journal.path, last: last, queued: try journal.backlog(for: .default),
                            footprint: try journal.footprint(), endSequence: try journal.endSequence(),
                            sync: (try? SyncState.load(journal: journal)) ?? SyncState(),
                            sendInterval: settings.sendInterval.rawValue, endpoint: settings.endpoint, token: settings.token,
                            trip: trip, now: now, noFix: InputState.read(in: journal))
        if let destination = Destination(settings: settings) {
            status.destinationChanged = status.sync.forgetFailures(unlessAgainst: destination.receiverFingerprint)
        }
        return status
    }

    /// The status of a machine where nothing has been logged yet: no journal at `journalPath`.
    static func nothingLogged(journalPath: String, settings: Settings, now: Int64) -> Status {
        Status(journalPath: journalPath, last: nil, queued: 0, footprint: Journal.Footprint(), endSequence: 0, sync: SyncState(),
               sendInterval: settings.sendInterval.rawValue, endpoint: settings.endpoint, token: settings.token,
               trip: nil, now: now, journalExists: false)
    }

    /// The page for people: tracking off first, on first use how to start, then the table.
    public func page() -> String {
        let trackingOff = trackingOff.map { "Logging is OFF: " + $0 + ".\n\n" } ?? ""
        return trackingOff + (journalExists ? "" : Self.firstUse(journalPath: journalPath, packagedJournal: packagedJournal)) + text()
    }

    /// What a first-time user reads above the status: nothing is logged yet, and how to start.
    static func firstUse(journalPath: String, packagedJournal: String? = nil) -> String {
        let packaged = packagedJournal.map { journal in
            """
            The overland service logs as the overland user, to \(PrintableText.sanitised(journal)); to see it:
              sudo -u overland -H overland status

            """
        } ?? ""
        return """
        Nothing has been logged yet (no journal at \(PrintableText.sanitised(journalPath))).
        \(packaged)Start logging from gpsd:            overland-log --gpsd
        or from a receiver's serial port:   overland-log /dev/ttyACM0
        (overland-log --help tells more; overland setup links this machine to a server.)

        """
    }

    var bytesPerPoint: Double? {
        let points = endSequence > footprint.firstSequence ? endSequence - footprint.firstSequence : 0
        return points > 0 ? Double(footprint.bytes) / Double(points) : nil
    }

    func ago(_ time: Int64) -> String { Format.duration(now - time) + " ago" }

    /// The `sending` line: the interval, and when the next attempt is due (the next run,
    /// when the destination changed since its failures).
    static func sending(_ interval: String, sync: SyncState, changed: Bool, now: Int64) -> String {
        var text = interval == "off" ? "off: nothing is sent until send_interval is set again" : "every \(interval)"
        if interval != "off", changed {
            text += "; the destination changed since the last failed attempt: the next run tries it"
        } else if let next = sync.nextAttempt, next > now {
            text += "; next attempt in \(Format.duration(next - now))"
        }
        return text
    }

    /// `text` (a saved error: an older version may have kept secrets in it) with the
    /// endpoint's secrets and the token hidden.
    func hidingSecrets(_ text: String) -> String {
        SecretRedaction.hiding(url: endpoint ?? "", token: token, in: text)
    }
}
