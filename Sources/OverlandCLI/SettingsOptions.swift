import ArgumentParser
import OverlandJournal
import OverlandProtocol
import OverlandRecorder
import OverlandSettings

/// `--config FILE`, shared by every command that reads the settings.
public struct SettingsOptions: ParsableArguments {
    @Option(name: .customLong("config"), help: ArgumentHelp(
        "The settings file.",
        discussion: "Default: $OVERLAND_CONFIG, else $XDG_CONFIG_HOME/overland/settings.json, else ~/.config/overland/settings.json.",
        valueName: "file"), completion: .file(extensions: ["json"]))
    public var configFile: String?

    public init() {}

    /// The settings file these options name.
    public var path: String { SettingsFile.resolvePath(flag: configFile) }

    /// The settings from the file (defaults when there is none), with the environment
    /// (`OVERLAND_URL`, `OVERLAND_TOKEN`, `OVERLAND_DEVICE_ID`, `OVERLAND_JOURNAL`) on top.
    public func load() throws -> Settings {
        var settings = try loadFile()
        do {
            try applyEnvironment(ProcessEnvironment.current, to: &settings)
        } catch {
            throw CommandFailure(error.description, status: .configuration)
        }
        return settings
    }

    /// The settings as far as the file can be read (`SettingsFile.loadTolerating(path:)`),
    /// with the environment on top, and what in the file was passed over. For the logger,
    /// which keeps logging over a mistake in the file, and `overland status`, which shows
    /// it; never for a command that saves the file. A bad environment variable still throws.
    public func loadTolerating() throws -> (settings: Settings, problems: [SettingsError]) {
        var (settings, problems) = SettingsFile.loadTolerating(path: path)
        if problems.isEmpty { SettingsExposureWarning.once(path: path, holdsToken: settings.token != nil) }
        do {
            try applyEnvironment(ProcessEnvironment.current, to: &settings)
        } catch {
            throw CommandFailure(error.description, status: .configuration)
        }
        return (settings, problems)
    }

    /// The settings file alone, as saved (for commands that change and save it).
    public func loadFile() throws -> Settings {
        let settings: Settings
        do {
            settings = try SettingsFile.load(path: path)
        } catch {
            throw error.commandFailure
        }
        SettingsExposureWarning.once(path: path, holdsToken: settings.token != nil)
        return settings
    }
}

extension SettingsError {
    var commandFailure: CommandFailure {
        switch category {
        case .configuration: return CommandFailure(description, status: .configuration)
        case .io: return CommandFailure(description, status: errno == 13 ? .noPermission : .ioError)
        }
    }
}

extension Settings {
    /// The journal: the flag, else the settings (file, then `OVERLAND_JOURNAL`), else the XDG default.
    func journalPath(flag: String?) -> String {
        flag ?? journal ?? Paths.defaultJournal
    }

    /// What the recorder does with fixes under these settings (the trip profile while a
    /// trip runs).
    func recorderConfiguration(deviceID: String, duringTrip: Bool) -> RecorderConfiguration {
        var configuration = RecorderConfiguration()
        let profile = profile(duringTrip: duringTrip)
        if !trackingEnabled {
            configuration.trackingMode = .off
        } else {
            switch main.trackingMode {
            case .off: configuration.trackingMode = .off
            case .standard: configuration.trackingMode = .standard
            case .significant: configuration.trackingMode = .significant
            case .both: configuration.trackingMode = .both
            }
        }
        configuration.minimumInterval = Int64(profile.minTime.seconds)
        configuration.minimumDistance = profile.minDistance.metres
        // nav and best ask for the best the receiver gives: no gate.
        switch profile.desiredAccuracy {
        case .nav, .best: configuration.accuracyGate = nil
        default: configuration.accuracyGate = profile.desiredAccuracy.metres
        }
        configuration.deviceID = deviceID
        configuration.uniqueID = includeUniqueID ? UniqueID.ofThisMachine() : nil
        configuration.stationaryFilter = stationaryFilter
        configuration.pauseAutomatically = main.pauseAutomatically
        configuration.resumeRadius = main.resumeWithGeofence.metres
        configuration.visitTracking = main.visitTracking
        if includeTrackingStats {
            configuration.trackingStats = TrackingStats(
                pauses: main.pauseAutomatically,
                activity: profile.activityType.trackingStatsName,
                desiredAccuracy: Int(profile.desiredAccuracy.metres),
                deferred: Int(profile.minDistance.metres ?? 0),
                significantChange: main.trackingMode.significantChangeName ?? "disabled",
                locationsInPayload: 1)
        }
        configuration.wifiZone = wifiZone
        return configuration
    }
}
