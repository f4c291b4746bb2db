extension Settings {
    /// The settings that differ from `other`, in the file's order: `other` is the old
    /// value, `self` the new one.
    public func differences(from other: Settings) -> [SettingChange] {
        SettingKey.all.compactMap { key in
            guard key.field.section != .wifiZone, key.field.current(self) != key.field.current(other) else { return nil }
            var old = key.get(from: other)
            var new = key.get(from: self)
            if key.name == "token" {
                old = SettingKey.redactedToken(old)
                new = SettingKey.redactedToken(new)
            }
            return SettingChange(key: key.name, old: old, new: new)
        }
    }
}
