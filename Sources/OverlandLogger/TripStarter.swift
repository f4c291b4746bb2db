import OverlandJournal
import OverlandRecorder
import OverlandSettings

/// Starting a trip by hand (`overland trip start`), as the app's button does.
public enum TripStarter {
    /// Starts a trip in `mode` (nil: the settings' trip mode) at `now` in the journal at
    /// `journalPath`, created only when `create` (the default journal, for a trip started
    /// before the first fix: one named by a flag, the environment or the settings must
    /// exist, so that a typo makes no new journal). The mode becomes the default for the
    /// next trip, saved in the settings file at `settingsPath`, as in the app. Returns the
    /// mode and the trip started or the one already running (then nothing changes).
    public static func start(mode: String?, journalPath: String, create: Bool, settings: Settings, settingsPath: String,
                             now: Int64) throws -> (mode: String, outcome: Trip.StartOutcome) {
        let journal = try Journal(path: journalPath, create: create, deviceID: DeviceIdentity.resolve(flag: nil, settings: settings),
                                  machine: UniqueID.ofThisMachine())
        let mode = mode ?? settings.tripMode.rawValue
        let outcome = try Trip.start(mode: mode, in: journal, now: now)
        if case .started = outcome, let chosen = TripMode(rawValue: mode), chosen != settings.tripMode {
            _ = try SettingsFile.update(path: settingsPath) { $0.tripMode = chosen }
        }
        return (mode, outcome)
    }
}
