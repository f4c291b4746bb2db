import OverlandJournal
import OverlandSettings

/// Tracking off is said out loud: who turned it off and when is recorded
/// (`TrackingChange`), a remote change is announced by the sync, and `overland-log` and
/// `overland status` name it first.
enum TrackingNotice {
    /// Records a change of tracking between `old` and `new` made by `by`; when `tool` is
    /// given (a remote change), says on stderr that tracking went off or back on.
    static func changed(from old: Settings, to new: Settings, by: String, settingsPath: String, tool: String?) {
        guard TrackingChange.recordIfChanged(from: old, to: new, by: by, now: SyncClock.now(), settingsPath: settingsPath),
              let tool else { return }
        Terminal.error(tool + TrackingChange.remoteLine(isOff: TrackingChange.isOff(new)))
    }

    /// The line for settings that log nothing, or nil when tracking is on.
    static func line(for settings: Settings, settingsPath: String) -> String? {
        guard TrackingChange.isOff(settings) else { return nil }
        var fixes: [String] = []
        if settings.main.trackingMode == .off { fixes.append("'overland config set tracking_mode standard'") }
        if !settings.trackingEnabled { fixes.append("'overland config set tracking_enabled true'") }
        return TrackingChange.offLine(TrackingChange.load(settingsPath: settingsPath, matching: settings))
            + ": nothing is logged until " + fixes.joined(separator: " and ")
    }
}
