import OverlandJSON
import OverlandJournal
import OverlandSettings
import OverlandSync

/// One destination in `overland status`: where it sends, how much waits for it, and how
/// its last attempts went (its own cursor and state file in the journal).
struct DestinationStatus {
    var destination: Destination
    /// Records from its cursor to the journal's end.
    var backlog: UInt64
    var sync: SyncState
    /// Its url or token changed since its failures: the next run tries it.
    var destinationChanged = false
    /// Its cursor: the records before it are acknowledged.
    var acknowledged: UInt64 = 0
    /// The journal's first record: refused records before it were deleted by retention.
    var firstRecord: UInt64 = 0
    /// What the sync refuses of its settings (`Destination.problems`), or nil.
    var problem: String?

    /// The status of every destination of `journal`.
    static func read(_ destinations: [Destination], journal: Journal, settings: Settings) throws -> [DestinationStatus] {
        let first = try journal.segments().first?.firstSequence ?? 0
        return try destinations.map { destination in
            let cursor = CursorName(destination.name) ?? .default
            var sync = (try? SyncState.load(journal: journal, destination: destination.name)) ?? SyncState()
            let changed = sync.forgetFailures(unlessAgainst: destination.receiverFingerprint)
            return DestinationStatus(destination: destination, backlog: try journal.backlog(for: cursor), sync: sync,
                                     destinationChanged: changed, acknowledged: try journal.cursor(for: cursor), firstRecord: first,
                                     problem: destination.problems(settings: settings).first)
        }
    }

    /// The url as shown (`RedactedURL`: its secrets redacted).
    var url: String { RedactedURL.shown(destination.url) }

    /// The last error, while attempts keep failing, the destination's secrets hidden (a state
    /// file an older version wrote may hold them).
    var lastError: String? {
        sync.consecutiveFailures > 0 ? sync.lastError.map { SecretRedaction.hiding(url: destination.url, token: destination.token, in: $0) } : nil
    }

    /// A block of aligned lines, headed by the destination's name.
    func text(now: Int64) -> String {
        func ago(_ time: Int64) -> String { Format.duration(now - time) + " ago (\(ISO8601UTC.string(from: time)))" }
        var lines: [(String, String)] = [
            ("url", url),
            ("protocol", destination.wireProtocol.rawValue + (destination.profile == .none ? "" : ", profile \(destination.profile.name)")),
        ]
        if let problem { lines.append(("refused", "overland-sync sends nothing to it: \(problem)")) }
        lines += [
            ("queued", Plural.count(backlog, "point")),
            ("last sent", sync.lastSuccess.map(ago) ?? "never"),
        ]
        if let lastError {
            lines.append(("last error", "\(lastError) (\(Plural.count(sync.consecutiveFailures, "failed attempt")))"))
        }
        lines.append(("sending", Status.sending(destination.sendInterval.rawValue, sync: sync, changed: destinationChanged, now: now)))
        if destination.verify { lines.append(("read back", readBack)) }
        return "destination \(destination.name)\n" + Format.table(lines, indent: "  ")
    }

    /// The points still in the journal the receiver does not hold, as far as reading back
    /// knows: refused by the sync's passes or found not held by the last audit (the count
    /// `overland destination audit` gives, missing and moved). A state file written before
    /// these were kept by record gives its total.
    var refused: UInt64 {
        sync.refused.isEmpty ? sync.refusedRecords : sync.refused.count(from: firstRecord)
    }

    /// Read-back (`verify`): what the receiver acknowledged, what it is known to store
    /// (every record before the stored mark is stored or refused), and what it refused.
    var readBack: String {
        let stored = sync.storedThrough.map { "stored through record \($0)" } ?? "nothing read back yet"
        var text = "acknowledged through record \(acknowledged), \(stored), \(refused) refused"
        if refused > 0, let last = sync.lastRefusal {
            text += " (last: \(last))"
        }
        if let problem = readBackProblem { text += "; cannot be read back: \(problem)" }
        return text
    }

    /// Why the last pass could not read the receiver back as configured, its secrets hidden.
    var readBackProblem: String? {
        sync.readBackProblem.map {
            PrintableText.sanitised(SecretRedaction.hiding(url: destination.url, token: destination.token,
                                                           others: destination.verifyToken.map { [$0] } ?? [], in: $0),
                                    allowLineBreaks: false)
        }
    }

    /// One JSON object: name, url, protocol, profile, queued, last_sent, last_error,
    /// failed_attempts, next_attempt, send_interval, verify, acknowledged, stored_through,
    /// refused, read_back_problem, problem.
    func json(into writer: inout JSONWriter) {
        func time(_ value: Int64?) {
            if let value { writer.appendString(ISO8601UTC.string(from: value)) } else { writer.appendNull() }
        }
        writer.appendRaw(#"{"name":"#)
        writer.appendString(destination.name)
        writer.appendRaw(#","url":"#)
        writer.appendString(url)
        writer.appendRaw(#","protocol":"#)
        writer.appendString(destination.wireProtocol.rawValue)
        writer.appendRaw(#","profile":"#)
        writer.appendString(destination.profile.name)
        writer.appendRaw(#","queued":"#)
        writer.appendInteger(Int64(clamping: backlog))
        writer.appendRaw(#","last_sent":"#)
        time(sync.lastSuccess)
        writer.appendRaw(#","last_error":"#)
        if let lastError { writer.appendString(lastError) } else { writer.appendNull() }
        writer.appendRaw(#","failed_attempts":"#)
        writer.appendInteger(sync.consecutiveFailures)
        writer.appendRaw(#","next_attempt":"#)
        time(sync.nextAttempt)
        writer.appendRaw(#","send_interval":"#)
        writer.appendString(destination.sendInterval.rawValue)
        writer.appendRaw(#","verify":"#)
        writer.appendBool(destination.verify)
        writer.appendRaw(#","acknowledged":"#)
        writer.appendInteger(Int64(clamping: acknowledged))
        writer.appendRaw(#","stored_through":"#)
        if let stored = sync.storedThrough { writer.appendInteger(Int64(clamping: stored)) } else { writer.appendNull() }
        writer.appendRaw(#","refused":"#)
        writer.appendInteger(Int64(clamping: refused))
        writer.appendRaw(#","read_back_problem":"#)
        if let problem = readBackProblem { writer.appendString(problem) } else { writer.appendNull() }
        writer.appendRaw(#","problem":"#)
        if let problem { writer.appendString(problem) } else { writer.appendNull() }
        writer.appendRaw("}")
    }
}
