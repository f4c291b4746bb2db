/// How a mistake in the settings file that the logger passed over is told: by
/// `overland-log` once at start, and by `overland status` while the file has it.
extension SettingsError {
    /// What the logger uses instead of what it could not read.
    public var fallback: String {
        switch self {
        case .unknownKey: return "passed over"
        case .invalidValue, .refusedValue: return "its key keeps its default"
        case .io, .malformed, .invalidSetupLink: return "every setting keeps its default"
        }
    }

    /// The line `overland-log` prints on stderr (after its name).
    public var loggerNotice: String {
        "warning: settings: \(self): \(fallback); logging goes on "
            + "('overland config' and 'overland-sync' refuse the file until it is fixed)"
    }

    /// The value of the `settings` line of `overland status`.
    public var statusText: String {
        "\(self): \(fallback) while overland-log logs on; "
            + "'overland config' and 'overland-sync' refuse the file until it is fixed"
    }
}
