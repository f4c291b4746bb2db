import OverlandSettings

extension SettingsOptions {
    /// Loads the settings file (the file alone: the environment must never be copied into
    /// it), lets `change` edit the settings and, when anything changed, saves the file
    /// atomically, all under the settings file's lock. Returns the new settings and what changed, the token redacted.
    ///
    /// A file that cannot be read or parsed stops everything before `change` runs, so it
    /// is never overwritten. A value `change` refuses is a usage error (64): it was typed
    /// on the command line.
    func update(
        _ change: (inout Settings) throws(SettingsError) -> Void
    ) throws -> (settings: Settings, changes: [SettingChange]) {
        do {
            let (old, new) = try SettingsFile.update(path: path) { settings in
                let before = settings
                do throws(SettingsError) {
                    try change(&settings)
                } catch {
                    throw error.usageFailure
                }
                // What the sync would refuse of a destination that inherits the settings
                // (their device id), refused before it is saved. A destinations file that
                // cannot be read is said by every command that reads it, not here.
                let named = (try? DestinationsFile.load(path: DestinationsFile.path(settingsPath: path))) ?? []
                if let problem = Destination.newProblem(settingsFrom: before, to: settings, named: named) {
                    throw CommandFailure(problem, status: .usage)
                }
            }
            _ = TrackingChange.recordIfChanged(from: old, to: new, by: "a local command (overland)", now: SyncClock.now(), settingsPath: path)
            return (new, new.differences(from: old))
        } catch let error as SettingsError {
            throw error.commandFailure
        }
    }
}

extension SettingsOptions {
    /// `update`, then what changed, one line each, or `unchanged` of the new settings when
    /// nothing did (every `overland config` change, `destination set default`).
    @discardableResult
    func updatePrinting(unchanged: (Settings) -> String, _ change: (inout Settings) throws(SettingsError) -> Void) throws -> Settings {
        let (settings, changes) = try update(change)
        SettingsText.changeLines(changes, nothing: unchanged(settings)).forEach(Terminal.line)
        return settings
    }

    /// `key` set to `text` and saved, what changed printed (`config set`, `destination set default`).
    func set(_ key: SettingKey, to text: String) throws -> Settings {
        try updatePrinting(unchanged: { SettingsText.unchanged(key, in: $0) }) { settings throws(SettingsError) in
            try key.set(text, in: &settings)
        }
    }
}

extension SettingsError {
    /// The failure for a key, value, preset or link typed on the command line: a usage
    /// error (64), not a configuration one (78), since the file is fine.
    var usageFailure: CommandFailure {
        var message = description
        if case .unknownKey(_, _, let suggestions, _, _) = self, !suggestions.isEmpty {
            message += " ('overland config keys' lists every key)"
        }
        return CommandFailure(message, status: .usage)
    }
}

/// Parsing what the user typed, with refusals as usage errors.
enum CommandLineSettings {
    /// The key called `name`, or a usage error naming close matches or every key.
    static func key(_ name: String) throws -> SettingKey {
        do {
            return try SettingKey(named: name)
        } catch {
            throw error.usageFailure
        }
    }

    /// The preset called `name`, or a usage error naming the presets.
    static func preset(_ name: String) throws -> Preset {
        do {
            return try Preset(named: name)
        } catch {
            throw error.usageFailure
        }
    }

    /// The setup link `text`, or a usage error saying what is wrong with it.
    static func setupLink(_ text: String) throws -> SetupLink {
        do {
            return try SetupLink(parsing: text)
        } catch {
            throw error.usageFailure
        }
    }
}
