/// A setting that changed, for messages and logs; the token is redacted.
public struct SettingChange: Sendable, Equatable, CustomStringConvertible {
    /// The key's name, as `overland config` names it.
    public var key: String
    /// The value before, as text ("" for none).
    public var old: String
    /// The value after, as text ("" for none).
    public var new: String

    /// Creates a change.
    public init(key: String, old: String, new: String) {
        self.key = key
        self.old = old
        self.new = new
    }

    /// `batch_size: 200 -> 500`.
    public var description: String {
        "\(key): \(old.isEmpty ? "(none)" : old) -> \(new.isEmpty ? "(none)" : new)"
    }
}
