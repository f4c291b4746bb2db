extension Settings {
    /// The settings that differ from `other`, in the file's order: `other` is the old
    /// value, `self` the new one, both as shown to people (`SettingKey.shown`: the token and
    /// the endpoint's secrets redacted).
    public func differences(from other: Settings) -> [SettingChange] {
        SettingKey.all.compactMap { key in
            guard key.field.section != .wifiZone, key.field.current(self) != key.field.current(other) else { return nil }
            return SettingChange(key: key.name, old: key.shown(key.get(from: other)), new: key.shown(key.get(from: self)))
        }
    }
}
