import OverlandSettings

/// How a mistake in the settings file that the logger passed over is told: by
/// `overland-log` once at start, and by `overland status` while the file has it.
enum SettingsProblem {
    /// What the logger uses instead of what it could not read.
    static func fallback(for problem: SettingsError) -> String {
        switch problem {
        case .unknownKey: return "passed over"
        case .invalidValue, .refusedValue: return "its key keeps its default"
        case .io, .malformed, .invalidSetupLink: return "every setting keeps its default"
        }
    }

    /// The line `overland-log` prints on stderr (after its name).
    static func loggerNotice(_ problem: SettingsError) -> String {
        "warning: settings: \(problem): \(fallback(for: problem)); logging goes on "
            + "('overland config' and 'overland-sync' refuse the file until it is fixed)"
    }

    /// The value of the `settings` line of `overland status`.
    static func statusText(_ problem: SettingsError) -> String {
        "\(problem): \(fallback(for: problem)) while overland-log logs on; "
            + "'overland config' and 'overland-sync' refuse the file until it is fixed"
    }
}
