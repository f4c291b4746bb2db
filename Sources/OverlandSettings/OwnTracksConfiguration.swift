import OverlandJSON

/// Applies the `configuration` object of an OwnTracks `setConfiguration` command (booklet,
/// "JSON", `_type=configuration`) to `settings`, with the validation of a server's `set`
/// (`applyServerSet`): each OwnTracks key is turned into the value of one of our
/// remotely settable keys and stored through that key's own check.
///
/// | OwnTracks             | here                  | values                                        |
/// |-----------------------|-----------------------|-----------------------------------------------|
/// | `locatorInterval`     | `min_time`            | seconds: 1, 5, 10, 30, 60, 300                |
/// | `locatorDisplacement` | `min_distance`        | metres: 0 (off), 1, 10, 50, 100, 500          |
/// | `monitoring`          | `tracking_mode`       | -1 quiet, 0 manual: off; 1 significant: significant; 2 move: standard |
/// | `locatorPriority`     | `desired_accuracy`    | 0 no power: 3km; 1 low: 1km; 2 balanced: 100m; 3 high: best |
/// | `pubRetain`           | the destination's retain flag, returned in `publishRetained` | true, false |
///
/// Connection, identity and secret keys (`host`, `port`, `url`, `username`, `password`,
/// `deviceId`, `tid`, `pubTopicBase`, TLS files, and this project's `endpoint`, `token`,
/// `device_id`...) are refused with a warning that never shows their value. Every other key
/// is ignored with one warning. `_type` must be absent or `configuration`. The caller
/// saves the settings and reports the changes and warnings.
public func applyOwnTracksConfiguration(_ configuration: JSONValue, to settings: inout Settings) -> OwnTracksConfigurationOutcome {
    var outcome = OwnTracksConfigurationOutcome()
    guard case .object(let members) = configuration else {
        outcome.warnings.append(OwnTracksConfigurationWarning(
            key: "configuration",
            reason: .invalidValue(value: JSONText.render(configuration, limit: JSONText.serverValueLimit), allowed: "an object")))
        return outcome
    }
    let old = settings
    for key in members.keys.sorted() {
        let value = members[key]!
        if key == "_type" {
            if value.string != "configuration" {
                outcome.warnings.append(OwnTracksConfigurationWarning(
                    key: key, reason: .invalidValue(value: JSONText.render(value, limit: JSONText.serverValueLimit), allowed: "\"configuration\"")))
            }
        } else if key == "pubRetain" {
            if let flag = value.bool {
                outcome.publishRetained = flag
            } else {
                outcome.warnings.append(OwnTracksConfigurationWarning(
                    key: key, reason: .invalidValue(value: JSONText.render(value, limit: JSONText.serverValueLimit), allowed: "true, false")))
            }
        } else if let mapping = OwnTracksKeyMapping.all[key] {
            if let translated = mapping.translate(value), let field = Field.field(in: .main, key: mapping.setting),
               field.remote, field.assign(&settings, translated) {
                continue
            }
            outcome.warnings.append(OwnTracksConfigurationWarning(
                key: key, reason: .invalidValue(value: JSONText.render(value, limit: JSONText.serverValueLimit), allowed: mapping.allowed)))
        } else if OwnTracksKeyMapping.refused.contains(key) {
            outcome.warnings.append(OwnTracksConfigurationWarning(key: key, reason: .refused))
        } else {
            outcome.warnings.append(OwnTracksConfigurationWarning(key: key, reason: .unknownKey))
        }
    }
    outcome.changes = settings.differences(from: old)
    return outcome
}
