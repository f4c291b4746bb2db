import OverlandJSON
import OverlandProtocol
import OverlandSettings

/// The status as one JSON object, for scripts.
extension Status {
    public func json() -> String {
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
