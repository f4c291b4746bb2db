import OverlandSettings

extension SettingsOptions {
    /// `SettingsFile.change` of the settings file these options name: a file that cannot be
    /// read or parsed is a configuration or I/O error; a value refused is a usage error (64):
    /// it was typed on the command line.
    func update(
        _ change: (inout Settings) throws(SettingsError) -> Void
    ) throws -> (settings: Settings, changes: [SettingChange]) {
        do {
            return try SettingsFile.change(path: path, by: "a local command (overland)", now: SyncClock.now(), change)
        } catch let error as SettingsError {
            throw error.commandFailure
        } catch SettingsChangeRefusal.value(let error) {
            throw error.usageFailure
        } catch SettingsChangeRefusal.problem(let problem) {
            throw CommandFailure(problem, status: .usage)
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
