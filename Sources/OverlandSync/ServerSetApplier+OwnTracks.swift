import OverlandJSON
import OverlandSettings

/// OwnTracks' `setConfiguration`, heard by an MQTT destination on `TOPIC/cmd`, onto the
/// settings file, with OverlandSettings' mapping (`applyOwnTracksConfiguration`: OwnTracks
/// keys onto remotely settable settings, with the checks of `set`; unknown keys ignored
/// with a warning; never an endpoint or a token): a remote change of the settings as a
/// server's `set` is, with the same file, clock and sink for each line.
extension ServerSetApplier {
    /// Applies `configuration`, heard by the destination `label` whose token is `token`;
    /// false when the settings could not be saved (said).
    @discardableResult
    public func applyOwnTracks(_ configuration: JSONValue, token: String?, label: String) -> Bool {
        // The warnings name `setConfiguration` themselves; the changes are prefixed with it.
        let tool = "\(label): "
        do {
            var outcome = OwnTracksConfigurationOutcome()
            let (old, new) = try SettingsFile.update(path: settingsPath) { settings in
                outcome = applyOwnTracksConfiguration(configuration, to: &settings)
            }
            if TrackingChange.recordIfChanged(from: old, to: new, by: "the mqtt broker of destination '\(label)' (setConfiguration)",
                                              now: now(), settingsPath: settingsPath) {
                say(tool + "setConfiguration: " + TrackingChange.remoteLine(isOff: TrackingChange.isOff(new)))
            }
            // A warning quotes what was sent, where the token may have been echoed.
            let secrets = token.map { [$0] } ?? []
            for warning in outcome.warnings {
                say(tool + SecretRedaction.hiding(secrets, in: warning.description))
            }
            if verbose {
                for change in outcome.changes { say(tool + "setConfiguration: \(change)") }
            }
            if let retain = outcome.publishRetained { applyPubRetain(retain, label: label) }
            return true
        } catch {
            say(tool + "setConfiguration: the settings were not saved: \(error)")
            return false
        }
    }

    /// `pubRetain` onto the destination's `pub_retain` in destinations.json; the default
    /// destination (the settings' endpoint) has no such key, and says so.
    private func applyPubRetain(_ retain: Bool, label: String) {
        let tool = "\(label): setConfiguration: "
        guard label != Destination.defaultName else {
            say(tool + "\"pubRetain\" ignored: the default destination has no pub_retain (an mqtt destination added with 'overland destination add' has)")
            return
        }
        do {
            let (old, new) = try DestinationsFile.update(path: DestinationsFile.path(settingsPath: settingsPath)) { destinations in
                guard let index = destinations.firstIndex(where: { $0.name == label }) else { return }
                destinations[index].pubRetain = retain
            }
            if verbose {
                for (before, after) in zip(old, new) {
                    for change in after.differences(from: before) { say(tool + "\(change)") }
                }
            }
        } catch {
            say(tool + "pub_retain was not saved: \(error)")
        }
    }
}
