import OverlandJournal

extension SettingsFile {
    /// Loads the settings file at `path` alone (the environment must never be copied into
    /// it), lets `change` edit the settings and, when anything changed, saves the file
    /// atomically, all under the file's lock; then records tracking going off or on
    /// (`TrackingChange`, changed `by`, at `now`). Returns the new settings and what changed.
    ///
    /// A file that cannot be read or parsed stops everything before `change` runs (a
    /// `SettingsError`), so it is never overwritten. A value `change` refuses, or what the
    /// sync would refuse of a destination that inherits the settings (their device id,
    /// `Destination.newProblem`), is a `SettingsChangeRefusal`, and nothing is saved. A
    /// destinations file that cannot be read is said by every command that reads it, not here.
    public static func change(path: String, by: String, now: Int64, fileSystem: any FileSystem = POSIXFileSystem(),
                              _ change: (inout Settings) throws(SettingsError) -> Void) throws -> (settings: Settings, changes: [SettingChange]) {
        let (old, new) = try update(path: path, fileSystem: fileSystem) { settings in
            let before = settings
            do throws(SettingsError) { try change(&settings) } catch { throw SettingsChangeRefusal.value(error) }
            let named = (try? DestinationsFile.load(path: DestinationsFile.path(settingsPath: path), fileSystem: fileSystem)) ?? []
            if let problem = Destination.newProblem(settingsFrom: before, to: settings, named: named) {
                throw SettingsChangeRefusal.problem(problem)
            }
        }
        _ = TrackingChange.recordIfChanged(from: old, to: new, by: by, now: now, settingsPath: path, fileSystem: fileSystem)
        return (new, new.differences(from: old))
    }
}

/// Why `SettingsFile.change` saved nothing, the file being fine: what was typed is refused.
public enum SettingsChangeRefusal: Error, Sendable {
    /// The change itself refused a key or value.
    case value(SettingsError)
    /// The sync would refuse a destination that inherits the changed settings (this line says why).
    case problem(String)
}
