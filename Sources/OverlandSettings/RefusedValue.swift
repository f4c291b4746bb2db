import OverlandJSON

/// How a value the settings refused is quoted in the message, by the one rule for secrets:
/// a token is never shown, not even in part, whatever it holds (a number, a string with a
/// control character; only an empty one shows as `""`); a url is shown with its secrets redacted (`RedactedURL`); any other
/// value as written.
enum RefusedValue {
    /// A value from a JSON file, for the message about key `key`.
    static func shown(key: String, _ value: JSONValue) -> String {
        if SettingKey.isSecret(key) { return quoted(SettingKey.redactedToken(value.string ?? SettingKey.hiddenToken)) }
        if SettingKey.holdsURL(key), let url = value.string { return quoted(RedactedURL.shown(url)) }
        return JSONText.render(value)
    }

    /// A value typed on the command line, for the message about key `key`.
    static func shown(key: String, text: String) -> String {
        if SettingKey.isSecret(key) { return quoted(SettingKey.redactedToken(text)) }
        if SettingKey.holdsURL(key) { return quoted(RedactedURL.shown(text)) }
        return quoted(text)
    }
}
