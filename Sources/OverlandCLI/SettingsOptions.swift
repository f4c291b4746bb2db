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
}
