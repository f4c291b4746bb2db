import OverlandJSON
import OverlandProtocol
import OverlandSettings

/// The status as aligned lines of a label and a value, a block per destination.
extension Status {
    public func text() -> String {
        var lines: [(String, String)] = []
        // First: a mistake in the settings file changes what the logger does.
        for problem in settingsProblems { lines.append(("settings", problem.statusText)) }
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
}
