/// What an OwnTracks `setConfiguration` did to the settings.
public struct OwnTracksConfigurationOutcome: Sendable, Equatable {
    /// The settings that changed, named as `overland config` names them.
    public var changes: [SettingChange] = []
    /// What was ignored, and why: one per key.
    public var warnings: [OwnTracksConfigurationWarning] = []
    /// `pubRetain`, when present and a Boolean: whether the destination should publish its
    /// locations retained. A setting of the MQTT destination, not of `Settings`: the caller
    /// applies it where it keeps its destinations.
    public var publishRetained: Bool?

    /// Creates an empty outcome.
    public init() {}
}
