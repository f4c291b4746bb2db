import OverlandJSON
import OverlandSettings

/// Applies a server's `set` (its reply's settings) to the settings file: validated and
/// saved, with a line for each key or value ignored, for a change of tracking, and for
/// sending turned off. It prints nothing: each line goes to ``say``.
public struct ServerSetApplier: Sendable {
    public let settingsPath: String
    public let verbose: Bool
    /// Unix time now (the record of who turned tracking off, and when).
    public let now: @Sendable () -> Int64
    /// One line for the user, without the tool's name.
    public let say: @Sendable (String) -> Void

    public init(settingsPath: String, verbose: Bool, now: @escaping @Sendable () -> Int64,
                say: @escaping @Sendable (String) -> Void) {
        self.settingsPath = settingsPath
        self.verbose = verbose
        self.now = now
        self.say = say
    }

    /// Saves what the server set; a file that cannot be written is said, not thrown: the
    /// sync goes on.
    public func apply(_ set: JSONValue, token: String?) {
        do {
            var outcome = SetOutcome()
            let (old, new) = try SettingsFile.update(path: settingsPath) { settings in
                outcome = OverlandSettings.applyServerSet(set, to: &settings)
            }
            if TrackingChange.recordIfChanged(from: old, to: new, by: "the server of the default destination (its reply's set)",
                                              now: now(), settingsPath: settingsPath) {
                say("server set: " + TrackingChange.remoteLine(isOff: TrackingChange.isOff(new)))
            }
            for warning in outcome.warnings { say("server set: \(Self.shown(warning, token: token))") }
            if verbose {
                for change in outcome.changes { say("server set \(change)") }
            }
            if outcome.sendingTurnedOff {
                say("the server turned sending off (send_interval off): nothing will be sent until you run "
                    + "'overland config set send_interval 5m' (or another interval)")
            }
        } catch {
            say("the server's settings were not saved: \(error)")
        }
    }

    /// A warning quotes what the server sent (an unknown key, a refused value), where it may
    /// echo the token (whole, cut, padded or split): every run of its characters is hidden
    /// there. The project's own key names are not server text, and stay readable whatever
    /// the token holds ("token" itself).
    static func shown(_ warning: SetWarning, token: String?) -> SetWarning {
        var shown = warning
        let secrets = token.map { [$0] } ?? []
        switch warning.reason {
        case .unknownKey: shown.key = SecretRedaction.hiding(secrets, in: warning.key)
        case .invalidValue(let value, let allowed):
            shown.reason = .invalidValue(value: SecretRedaction.hiding(secrets, in: value), allowed: allowed)
        case .notRemotelySettable: break
        }
        return shown
    }
}
