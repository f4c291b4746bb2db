import OverlandSettings

/// Where overland-sync hands an mqtt destination to the MQTT sender (one call per run,
/// like `SyncEngine.run(holding:)` for the http protocols). This build has no MQTT sender:
/// such a destination is refused with one line and exit 78, and the others are sent to.
enum MQTTDestination {
    /// The refusal, for the destination's line.
    static let unavailable = "protocol mqtt is not supported by this build of overland-sync: "
        + "the destination is kept and its points wait in the journal"
}
