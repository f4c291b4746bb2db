/// Which commands a destination's broker may give (`TOPIC/cmd`). Any client allowed to
/// publish on the topic can send them, so changing the settings is opt-in. Declared once:
/// the settings' `commands` key and the MQTT sender take this type.
public enum RemoteCommands: String, Sendable, CaseIterable, Hashable {
    /// None: every command is ignored with one line.
    case none
    /// `reportLocation` only (the default): it publishes the newest point, and changes nothing.
    case report
    /// Also `setConfiguration`: the settings a server's `set` may change (tracking among them).
    case all
}
