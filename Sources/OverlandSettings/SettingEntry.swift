/// One line of `overland config list`.
public struct SettingEntry: Sendable, Equatable {
    /// The key.
    public var key: SettingKey
    /// The value as text, the token redacted; "" when not set.
    public var value: String
    /// Whether the value is the default.
    public var isDefault: Bool
}
