import OverlandJSON

/// Applies the environment variables that cron jobs and services use to `settings`:
/// `OVERLAND_URL` (endpoint), `OVERLAND_TOKEN`, `OVERLAND_DEVICE_ID` and
/// `OVERLAND_JOURNAL`.
///
/// Precedence is flags > environment > file > defaults: call this after loading the
/// file and apply flags after it. Empty variables count as unset. A value that the
/// setting refuses is an error naming the variable (never silently dropped). The journal
/// may be a relative path here, like a flag: it is resolved where the command runs.
/// Settings overlaid this way must not be saved: that would copy the environment into
/// the file.
public func applyEnvironment(_ environment: [String: String], to settings: inout Settings) throws(SettingsError) {
    func value(_ name: String, allowed: String, shown: (String) -> String = { $0 },
               _ validate: (String) -> String?) throws(SettingsError) -> String? {
        guard let text = environment[name], !text.isEmpty else { return nil }
        guard let valid = validate(text) else {
            throw .invalidValue(key: name, value: quoted(shown(text)), allowed: allowed, location: nil)
        }
        return valid
    }
    if let url = try value("OVERLAND_URL", allowed: Validation.endpointAllowed, shown: RedactedURL.shown, Validation.endpoint) {
        settings.endpoint = url
    }
    if let token = try value("OVERLAND_TOKEN", allowed: Validation.tokenAllowed, shown: SettingKey.redactedToken, Validation.token) {
        settings.token = token
    }
    if let deviceID = try value("OVERLAND_DEVICE_ID", allowed: Validation.deviceIDAllowed, Validation.deviceID) {
        settings.deviceID = deviceID
    }
    if let journal = try value("OVERLAND_JOURNAL", allowed: "a path", Validation.path) {
        settings.journal = journal
    }
}
