/// What a server's `set` did.
public struct SetOutcome: Sendable, Equatable {
    /// The settings that changed, named as `overland config` names them.
    public var changes: [SettingChange] = []
    /// What was ignored, and why.
    public var warnings: [SetWarning] = []
    /// Whether `send_interval` went to "off": sending stopped, and with it the only way
    /// the server could turn it back on. The user must be told.
    public var sendingTurnedOff = false

    /// Creates an empty outcome.
    public init() {}
}
