import OverlandJSON

/// How `overland config`, `overland setup` and `overland destination` show settings: text
/// for people, JSON for scripts. The token is redacted everywhere except `overland config
/// get token`.
public enum SettingsText {
    /// A value as shown in tables and change lines: "(none)" when not set.
    public static func shown(_ value: String) -> String {
        value.isEmpty ? "(none)" : value
    }

    /// The value of `key` in `settings` as shown to people, the token and the endpoint's
    /// secrets redacted (`SettingKey.shown`).
    public static func redactedValue(of key: SettingKey, in settings: Settings) -> String {
        key.shown(key.get(from: settings))
    }

    /// `overland config list`: one line per key, the key, its value and "(default)" when it
    /// holds the default, in aligned columns.
    public static func table(_ entries: [SettingEntry]) -> [String] {
        let keyWidth = entries.map(\.key.name.count).max() ?? 0
        // Long values (an endpoint) do not push every marker to the right.
        let valueWidth = min(24, entries.map { shown($0.value).count }.max() ?? 0)
        return entries.map { entry in
            let name = padded(entry.key.name, to: keyWidth)
            guard entry.isDefault else { return name + "  " + shown(entry.value) }
            return name + "  " + padded(shown(entry.value), to: valueWidth) + "  (default)"
        }
    }

    /// `overland config list --json`: one object, each key mapped to its value (a string,
    /// or null when not set) and whether that is the default, in the file's order.
    public static func json(_ entries: [SettingEntry]) -> String {
        var writer = JSONWriter()
        writer.appendRaw("{" as StaticString)
        for (index, entry) in entries.enumerated() {
            if index > 0 { writer.appendRaw("," as StaticString) }
            writer.appendString(entry.key.name)
            writer.appendRaw(":{\"value\":" as StaticString)
            if entry.value.isEmpty { writer.appendNull() } else { writer.appendString(entry.value) }
            writer.appendRaw(",\"default\":" as StaticString)
            writer.appendBool(entry.isDefault)
            writer.appendRaw("}" as StaticString)
        }
        writer.appendRaw("}\n" as StaticString)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// `overland config keys`: per key, its name and what it does, then below it the
    /// values it allows and its default.
    public static func keyTable(_ keys: [SettingKey]) -> [String] {
        let width = keys.map(\.name.count).max() ?? 0
        let indent = String(repeating: " ", count: width + 2)
        return keys.flatMap { key in
            [padded(key.name, to: width) + "  " + key.summary,
             indent + key.allowedValues + "; default: " + (key.defaultValue.isEmpty ? "not set" : key.defaultValue)]
        }
    }

    /// The changes, one per line (`batch_size: 200 -> 500`), or `nothing` when there are none.
    public static func changeLines(_ changes: [SettingChange], nothing: String) -> [String] {
        changes.isEmpty ? [nothing] : changes.map(\.description)
    }

    /// Notes for the environment variables that override `keys` when the tools run:
    /// `overland config` shows the file alone, which would otherwise mislead.
    public static func environmentNotes(for keys: [String]) -> [String] {
        let overrides = [("OVERLAND_URL", "endpoint"), ("OVERLAND_TOKEN", "token"),
                         ("OVERLAND_DEVICE_ID", "device_id"), ("OVERLAND_JOURNAL", "journal")]
        let environment = ProcessEnvironment.current
        return overrides.compactMap { variable, key in
            guard keys.contains(key), let value = environment[variable], !value.isEmpty else { return nil }
            return "note: $\(variable) is set: when the tools run, it overrides the file's \(key)"
        }
    }

    /// `key`'s line when a command left it as it was: "batch_size: 500 (unchanged)".
    public static func unchanged(_ key: SettingKey, in settings: Settings, _ why: String = "unchanged") -> String {
        "\(key.name): \(shown(redactedValue(of: key, in: settings))) (\(why))"
    }

    /// `text` padded with spaces to `width` characters.
    public static func padded(_ text: String, to width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
