#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import OverlandLogger
import OverlandJSON
import OverlandJournal
import OverlandProtocol
import OverlandRecorder
import OverlandSettings
import OverlandSync

/// `overland status`: the tracker screen.
public struct StatusCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the last point, the queue, the last upload and the active trip.",
        discussion: """
            The tracker screen of the app, for a terminal: age, position, accuracy and \
            altitude of the last point; its speed and motion; points queued; when a batch \
            was last sent; the server's last error or its name for the place; the send \
            interval; the active trip; the journal's size. The token is never shown in \
            full. It answers at once however large the backlog: nothing is read in \
            proportion to it.

            On a machine where nothing has been logged yet (no journal at the default \
            place), it says so and how to start, and exits 0. A journal named by \
            --journal, OVERLAND_JOURNAL or the settings that does not exist is an error \
            (exit 66).

            Examples:
              overland status
              overland status --json | jq .queued
            """
    )

    @OptionGroup var journalOptions: JournalOptions
    @Flag(help: "Print one JSON object for scripts.") var json = false

    public init() {}

    public func run() throws {
        try reportingFailures("overland status") {
            // A mistake in the settings file is shown, not refused: the logger runs on
            // over it (`SettingsProblem`), and this is where the user looks.
            let (settings, settingsProblems) = try journalOptions.settingsOptions.loadTolerating()
            let destinations = try journalOptions.settingsOptions.destinations(settings: settings)
            let path = journalOptions.path(with: settings)
            // Tracking off comes first: nothing else on the page changes while it is.
            let offLine = TrackingNotice.line(for: settings, settingsPath: journalOptions.settingsOptions.path)
            let trackingOff = offLine.map { "Logging is OFF: " + $0 + ".\n\n" } ?? ""
            // First use: nothing logged yet at the default place. A journal the user named is not guessed at.
            if journalOptions.journal == nil && settings.journal == nil && !Self.exists(path) {
                var status = Status.nothingLogged(journalPath: path, settings: settings, now: SyncClock.now())
                status.destinations = destinations.map {
                    DestinationStatus(destination: $0, backlog: 0, sync: SyncState(), problem: $0.problems(settings: settings).first)
                }
                status.hasDefaultDestination = destinations.contains { $0.isDefault }
                status.settingsProblems = settingsProblems
                status.trackingOff = offLine
                status.packagedJournal = Paths.packagedJournalHint(besides: path)
                Terminal.output(json ? status.json() : trackingOff + Status.firstUse(journalPath: path, packagedJournal: status.packagedJournal) + status.text())
                return
            }
            let journal = try Journal(path: path)
            var status = try Status.read(journal: journal, settings: settings, now: SyncClock.now())
            status.destinations = try DestinationStatus.read(destinations, journal: journal, settings: settings)
            status.hasDefaultDestination = destinations.contains { $0.isDefault }
            status.settingsProblems = settingsProblems
            status.trackingOff = offLine
            Terminal.output(json ? status.json() : trackingOff + status.text())
        }
    }
}

extension StatusCommand {
    /// True when anything (even a dangling link) is at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }
}

/// What `overland status` reports, gathered once.
struct Status {
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
    /// wants that one (`Paths.packagedJournalHint`).
    var packagedJournal: String?
    /// What the settings file holds that the logger passes over (`SettingsProblem`).
    var settingsProblems: [SettingsError] = []
    /// Why nothing is logged, when tracking is off (`TrackingNotice`): since when and who.
    var trackingOff: String?

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

    /// What a first-time user reads above the status: nothing is logged yet, and how to start.
    static func firstUse(journalPath: String, packagedJournal: String? = nil) -> String {
        let packaged = packagedJournal.map { journal in
            """
            The overland service logs as the overland user, to \(Terminal.printable(journal)); to see it:
              sudo -u overland -H overland status

            """
        } ?? ""
        return """
        Nothing has been logged yet (no journal at \(Terminal.printable(journalPath))).
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

    func text() -> String {
        var lines: [(String, String)] = []
        // First: a mistake in the settings file changes what the logger does.
        for problem in settingsProblems { lines.append(("settings", SettingsProblem.statusText(problem))) }
        lines += lastPointLines()
        if let noFix {
            lines.append(("input", "\(noFix.input): no fix for \(Format.duration(now - noFix.since)) (overland-log, pid \(noFix.pid))"))
        }
        // The settings' endpoint's queue, deliveries and schedule; with only named
        // destinations there is none: their blocks below say it for each.
        let onlyNamed = !hasDefaultDestination && !destinations.isEmpty
        if !onlyNamed { lines += queueLines() }
        if let endpoint {
            lines.append(("endpoint", RedactedURL.shown(endpoint) + (token.map { " (token \(SettingKey.redactedToken($0)))" } ?? "")))
        } else if onlyNamed {
            lines.append(("endpoint", "not set: points go to the destinations below"))
        } else {
            lines.append(("endpoint", "not set: overland config set endpoint URL"))
        }
        if let (trip, summary) = trip {
            lines.append(("trip", "\(trip.mode) for \(Format.duration(now - trip.start)), \(Format.distance(summary.distance))"))
        }
        // With several destinations (or one that is not the settings' endpoint), a block each.
        let blocks = destinations.count > 1 || destinations.contains { !$0.destination.isDefault }
        let perPoint = bytesPerPoint.flatMap(Format.tenths).map { ", \($0) B/point" } ?? ""
        if journalExists {
            lines.append(("journal", "\(journalPath): \(Plural.count(footprint.bytes, "byte")) in \(Plural.count(footprint.segments, "segment"))\(perPoint)"))
        } else {
            lines.append(("journal", "\(journalPath): not created yet (overland-log creates it)"))
        }
        var text = Format.table(lines)
        if blocks {
            for destination in destinations { text += "\n" + destination.text(now: now) }
        }
        return text
    }

    /// The last point: when, where, how fast.
    private func lastPointLines() -> [(String, String)] {
        guard let last else { return [("last point", "none yet")] }
        var position = "\(last.latitude), \(last.longitude)"
        if last.horizontalAccuracy >= 0 { position += " ±\(last.horizontalAccuracy) m" }
        if let altitude = last.knownAltitude { position += ", altitude \(altitude) m" }
        let speed = last.speed >= 0 ? Format.tenths(last.speed).map { "\($0) m/s" } ?? "out of range" : "unknown"
        return [("last point", "\(ago(last.timestamp)) (\(ISO8601UTC.string(from: last.timestamp)))"), ("position", position),
                ("speed", speed + (last.motion.isEmpty ? "" : ", " + last.motion.map(\.rawValue).joined(separator: ", ")))]
    }

    /// The settings' endpoint's queue, deliveries and schedule.
    private func queueLines() -> [(String, String)] {
        var lines = [("queued", Plural.count(queued, "point")),
                     ("last sent", sync.lastSuccess.map { "\(ago($0)) (\(ISO8601UTC.string(from: $0)))" } ?? "never")]
        if let error = sync.lastError.map(hidingSecrets), sync.consecutiveFailures > 0 {
            lines.append(("server", "\(error) (\(Plural.count(sync.consecutiveFailures, "failed attempt")))"))
        } else if let geocode = sync.geocode {
            lines.append(("server", geocode))
        }
        lines.append(("sending", Self.sending(sendInterval, sync: sync, changed: destinationChanged, now: now)))
        if let own = destinations.first(where: { $0.destination.isDefault && $0.destination.verify }) {
            lines.append(("read back", own.readBack))
        }
        return lines
    }

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
    private func hidingSecrets(_ text: String) -> String {
        SecretRedaction.hiding(url: endpoint ?? "", token: token, in: text)
    }

    func json() -> String {
        var writer = JSONWriter()
        writer.appendRaw(#"{"last":"#)
        if let last { last.encode(into: &writer) } else { writer.appendNull() }
        writer.appendRaw(#","last_age":"#)
        if let last { writer.appendInteger(now - last.timestamp) } else { writer.appendNull() }
        writer.appendRaw(#","no_fix":"#)
        noFixJSON(into: &writer)
        writer.appendRaw(#","queued":"#)
        if hasDefaultDestination || destinations.isEmpty { writer.appendInteger(Int64(clamping: queued)) } else { writer.appendNull() }
        func time(_ key: StaticString, _ value: Int64?) {
            writer.appendRaw(key)
            if let value { writer.appendString(ISO8601UTC.string(from: value)) } else { writer.appendNull() }
        }
        func text(_ key: StaticString, _ value: String?) {
            writer.appendRaw(key)
            if let value { writer.appendString(value) } else { writer.appendNull() }
        }
        time(#","last_sent":"#, sync.lastSuccess)
        time(#","next_attempt":"#, sync.nextAttempt)
        writer.appendRaw(#","failed_attempts":"#)
        writer.appendInteger(sync.consecutiveFailures)
        // As the text says it: an error only while the failures it ended still apply (a
        // one-off --url's are against another receiver, forgotten by `forgetFailures`).
        text(#","last_error":"#, sync.consecutiveFailures > 0 ? sync.lastError.map(hidingSecrets) : nil)
        text(#","geocode":"#, sync.geocode)
        text(#","send_interval":"#, sendInterval)
        text(#","endpoint":"#, endpoint.map(RedactedURL.shown))
        text(#","token":"#, token.map(SettingKey.redactedToken))
        writer.appendRaw(#","trip":"#)
        tripJSON(into: &writer)
        text(#","journal":"#, journalPath)
        text(#","packaged_journal":"#, packagedJournal)
        footprintJSON(into: &writer)
        text(#","tracking_off":"#, trackingOff)
        listsJSON(into: &writer)
        writer.appendRaw("}\n")
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The journal's size on disk.
    private func footprintJSON(into writer: inout JSONWriter) {
        writer.appendRaw(#","journal_bytes":"#)
        writer.appendInteger(footprint.bytes)
        writer.appendRaw(#","segments":"#)
        writer.appendInteger(footprint.segments)
        writer.appendRaw(#","bytes_per_point":"#)
        if let bytesPerPoint { writer.appendDecimal(bytesPerPoint, maxFractionDigits: 1) } else { writer.appendNull() }
    }

    private func noFixJSON(into writer: inout JSONWriter) {
        guard let noFix else { return writer.appendNull() }
        writer.appendRaw(#"{"input":"#)
        writer.appendString(noFix.input)
        writer.appendRaw(#","since":"#)
        writer.appendString(ISO8601UTC.string(from: noFix.since))
        writer.appendRaw("}")
    }

    private func tripJSON(into writer: inout JSONWriter) {
        guard let (trip, summary) = trip else { return writer.appendNull() }
        writer.appendRaw(#"{"mode":"#)
        writer.appendString(trip.mode)
        writer.appendRaw(#","start":"#)
        writer.appendString(trip.id)
        writer.appendRaw(#","duration":"#)
        writer.appendInteger(now - trip.start)
        writer.appendRaw(#","distance":"#)
        writer.appendInteger(TripRecord.wholeMetres(summary.distance))
        writer.appendRaw("}")
    }

    /// The settings' problems and the destinations, each a list.
    private func listsJSON(into writer: inout JSONWriter) {
        writer.appendRaw(#","settings_problems":["#)
        for (index, problem) in settingsProblems.enumerated() {
            if index > 0 { writer.appendRaw(",") }
            writer.appendString(problem.description)
        }
        writer.appendRaw("]")
        writer.appendRaw(#","destinations":["#)
        for (index, destination) in destinations.enumerated() {
            if index > 0 { writer.appendRaw(",") }
            destination.json(into: &writer)
        }
        writer.appendRaw("]")
    }
}
