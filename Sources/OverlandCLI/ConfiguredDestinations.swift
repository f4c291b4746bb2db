import OverlandJournal
import OverlandSettings

extension SettingsOptions {
    /// `destinations.json`, beside the settings file these options name.
    var destinationsPath: String { DestinationsFile.path(settingsPath: path) }

    /// The destinations in `destinations.json` (none without the file), with a warning
    /// when the file is exposed. A file that cannot be read is an error (78, 74 or 77).
    func loadDestinationsFile() throws -> [Destination] {
        let path = destinationsPath
        let destinations: [Destination]
        do {
            destinations = try DestinationsFile.load(path: path)
        } catch {
            throw error.commandFailure
        }
        DestinationsExposureWarning.once(path: path, holdsToken: destinations.contains { $0.token != nil })
        return destinations
    }

    /// Every configured destination: the default one (the settings' endpoint, token...,
    /// when an endpoint is set) first, then those of `destinations.json` by name.
    func destinations(settings: Settings) throws -> [Destination] {
        (Destination(settings: settings).map { [$0] } ?? []) + (try loadDestinationsFile())
    }
}

extension JournalOptions {
    /// The journal and the cursors of every configured destination: the readers whose
    /// acknowledgements make a point sent (`journal stats`, `export --unsent`). nil when no
    /// destination is configured: the journal's own cursor files say then. A destination's
    /// cursor file that no configuration names holds nothing.
    func openWithReaders() throws -> (journal: Journal, readers: [CursorName]?) {
        let settings = try settings()
        let readers = try settingsOptions.destinations(settings: settings).compactMap { CursorName($0.name) }
        return (try Journal(path: path(with: settings)), readers.isEmpty ? nil : readers)
    }
}

/// Warns once per run when `destinations.json` is exposed (see `SettingsExposureWarning`).
enum DestinationsExposureWarning {
    nonisolated(unsafe) private static var warned = false

    static func once(path: String, holdsToken: Bool) {
        guard !warned, let problem = DestinationsFile.exposure(path: path, holdsToken: holdsToken) else { return }
        warned = true
        let tool = CommandLine.arguments.first.map { String($0.split(separator: "/").last ?? "overland") } ?? "overland"
        Terminal.error("\(tool): warning: \(problem)")
    }
}
