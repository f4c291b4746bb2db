import OverlandJSON

/// Applies the `set` object of a server's reply (protocol section 7) to `settings`.
///
/// Only the keys present are applied: `send_interval` and `trip_mode` at the top level,
/// the profile keys under `main` and `trip` (`trip` takes `prevent_screen_lock` but not
/// `tracking_mode`, `visit_tracking`, `pause_automatically` or `resume_with_geofence`).
/// Types are strict: strings for choices, a number for `batch_size`, Booleans for the
/// switches. Anything else, including this project's own keys (a server must not
/// redirect the endpoint or read the token), is left alone and reported.
public func applyServerSet(_ set: JSONValue, to settings: inout Settings) -> SetOutcome {
    var outcome = SetOutcome()
    let old = settings
    guard case .object(let members) = set else {
        outcome.warnings.append(SetWarning(key: "set", reason: .invalidValue(value: JSONText.render(set, limit: JSONText.serverValueLimit), allowed: "an object")))
        return outcome
    }
    func apply(_ field: Field, _ value: JSONValue) {
        if !field.assign(&settings, value) {
            outcome.warnings.append(SetWarning(
                key: field.filePath, reason: .invalidValue(value: JSONText.render(value, limit: JSONText.serverValueLimit), allowed: field.allowed)))
        }
    }
    for key in members.keys.sorted() {
        let value = members[key]!
        switch key {
        case "main", "trip":
            let section: Field.Section = key == "main" ? .main : .trip
            guard case .object(let profile) = value else {
                outcome.warnings.append(SetWarning(
                    key: key, reason: .invalidValue(value: JSONText.render(value, limit: JSONText.serverValueLimit), allowed: "an object of \(key) settings")))
                continue
            }
            for member in profile.keys.sorted() {
                if let field = Field.field(in: section, key: member) {
                    apply(field, profile[member]!)
                } else {
                    outcome.warnings.append(SetWarning(key: key + "." + member, reason: .unknownKey))
                }
            }
        default:
            if let field = Field.field(in: .top, key: key), field.remote {
                apply(field, value)
            } else if Field.field(in: .top, key: key) != nil {
                outcome.warnings.append(SetWarning(key: key, reason: .notRemotelySettable))
            } else {
                outcome.warnings.append(SetWarning(key: key, reason: .unknownKey))
            }
        }
    }
    outcome.changes = settings.differences(from: old)
    outcome.sendingTurnedOff = old.sendInterval != .off && settings.sendInterval == .off
    return outcome
}
