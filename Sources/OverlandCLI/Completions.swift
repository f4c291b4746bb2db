import ArgumentParser
import OverlandExport
import OverlandRecorder
import OverlandSettings
import OverlandProtocol

/// The values the shell completions offer (`overland --generate-completion-script bash`):
/// from the same lists the commands accept, never a copy of them.
enum Completions {
    /// `overland export --format`.
    static var exportFormats: CompletionKind { .list(ExportFormat.allCases.map(\.rawValue)) }
    /// `overland config get|set|unset KEY`.
    static var settingKeys: CompletionKind { .list(SettingKey.all.map(\.name)) }
    /// `overland config preset NAME`.
    static var presets: CompletionKind { .list(Preset.allCases.map(\.rawValue)) }
    /// `overland destination set NAME KEY`.
    static var destinationKeys: CompletionKind { .list(DestinationKey.all.map(\.name)) }
    /// `overland destination add --protocol`.
    static var protocols: CompletionKind { .list(WireProtocol.allCases.map(\.name)) }
    /// `overland destination add --profile`.
    static var profiles: CompletionKind { .list(ReceiverProfile.allCases.map(\.name)) }
    /// `overland trip start --mode`.
    static var tripModes: CompletionKind { .list(Trip.modes) }

    /// The configured destinations, `default` included when the settings have an endpoint
    /// (`destination show|set`, `overland-sync --to`), read when the shell asks.
    static var destinationNames: CompletionKind { .custom { words, _, prefix in
        configuredNames(words: words, includingDefault: true).filter { $0.hasPrefix(prefix) }
    } }

    /// The destinations of destinations.json (`destination remove`: the default one is
    /// not removed that way).
    static var namedDestinations: CompletionKind { .custom { words, _, prefix in
        configuredNames(words: words, includingDefault: false).filter { $0.hasPrefix(prefix) }
    } }

    /// The names configured for the settings file the command line names (`--config`),
    /// else the default one; none when they cannot be read (a completion says nothing).
    static func configuredNames(words: [String], includingDefault: Bool) -> [String] {
        let flag = words.firstIndex(of: "--config").flatMap { words.indices.contains($0 + 1) ? words[$0 + 1] : nil }
            ?? words.first { $0.hasPrefix("--config=") }.map { String($0.dropFirst("--config=".count)) }
        let settingsPath = SettingsFile.resolvePath(flag: flag)
        var names = ((try? DestinationsFile.load(path: DestinationsFile.path(settingsPath: settingsPath))) ?? []).map(\.name)
        if includingDefault, (try? SettingsFile.load(path: settingsPath))?.endpoint != nil {
            names.insert(Destination.defaultName, at: 0)
        }
        return names
    }
}
