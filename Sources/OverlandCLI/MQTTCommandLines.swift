import OverlandJSON
import OverlandJournal
import OverlandMQTT
import OverlandProtocol
import OverlandSettings
import OverlandSync

/// What `overland-sync --watch` says and does about the commands its MQTT destinations
/// hear on `TOPIC/cmd` while it waits (`MQTTSenders.idle`).
struct MQTTCommandLines: Sendable {
    let settingsPath: String
    let verbose: Bool

    /// One command's outcome: said, and `setConfiguration` applied to the settings file
    /// with the checks of a server's `set` (`OwnTracksConfigurationApplier`).
    func report(_ sender: MQTTSender, _ outcome: MQTTSender.CommandOutcome) {
        let destination = sender.destination
        let tool = "overland-sync: \(destination.name): "
        switch outcome {
        case .reportedLocation(let published):
            if verbose || !published {
                Terminal.error(tool + "reportLocation: " + (published ? "the newest point published" : "no point in the journal to report"))
            }
        case .setConfiguration(let configuration, let retained):
            let applied = OwnTracksConfigurationApplier.apply(configuration, settingsPath: settingsPath, token: destination.token,
                                                              label: destination.name, verbose: verbose)
            if applied, let retained {
                do { try sender.rememberApplied(retained) } catch {
                    Terminal.error(tool + "setConfiguration: applied, but not remembered (it will be applied again): \(error)")
                }
            }
        case .reportedRecently:
            if verbose { Terminal.error(tool + "reportLocation: answered less than a second ago; once more when the second is up") }
        case .alreadyApplied:
            if verbose { Terminal.error(tool + "setConfiguration: the retained command was applied before; not again") }
        case .ignored(let why):
            Terminal.error(tool + "cmd ignored: \(why)")
        }
    }

    /// A connection lost while waiting: the next run reconnects.
    func lost(_ sender: MQTTSender, _ error: MQTTError) {
        Terminal.error("overland-sync: \(sender.destination.name): \(error.description)")
    }
}

/// OwnTracks' `setConfiguration` onto the settings file, with OverlandSettings' mapping
/// (`applyOwnTracksConfiguration`: OwnTracks keys onto remotely settable settings, with the
/// checks of `set`; unknown keys ignored with a warning; never an endpoint or a token).
enum OwnTracksConfigurationApplier {
    /// Applies `configuration`; false when the settings could not be saved (said on stderr).
    @discardableResult
    static func apply(_ configuration: JSONValue, settingsPath: String, token: String?, label: String, verbose: Bool) -> Bool {
        // The warnings name `setConfiguration` themselves; the changes are prefixed with it.
        let tool = "overland-sync: \(label): "
        do {
            var outcome = OwnTracksConfigurationOutcome()
            let (old, new) = try SettingsFile.update(path: settingsPath) { settings in
                outcome = applyOwnTracksConfiguration(configuration, to: &settings)
            }
            TrackingNotice.changed(from: old, to: new, by: "the mqtt broker of destination '\(label)' (setConfiguration)",
                                   settingsPath: settingsPath, tool: tool + "setConfiguration: ")
            // A warning quotes what was sent, where the token may have been echoed.
            let secrets = token.map { [$0] } ?? []
            for warning in outcome.warnings {
                Terminal.error(tool + SecretRedaction.hiding(secrets, in: warning.description))
            }
            if verbose {
                for change in outcome.changes { Terminal.error(tool + "setConfiguration: \(change)") }
            }
            if let retain = outcome.publishRetained { applyPubRetain(retain, settingsPath: settingsPath, label: label, verbose: verbose) }
            return true
        } catch {
            Terminal.error(tool + "setConfiguration: the settings were not saved: \(error)")
            return false
        }
    }

    /// `pubRetain` onto the destination's `pub_retain` in destinations.json; the default
    /// destination (the settings' endpoint) has no such key, and says so.
    private static func applyPubRetain(_ retain: Bool, settingsPath: String, label: String, verbose: Bool) {
        let tool = "overland-sync: \(label): setConfiguration: "
        guard label != Destination.defaultName else {
            Terminal.error(tool + "\"pubRetain\" ignored: the default destination has no pub_retain (an mqtt destination added with 'overland destination add' has)")
            return
        }
        do {
            let (old, new) = try DestinationsFile.update(path: DestinationsFile.path(settingsPath: settingsPath)) { destinations in
                guard let index = destinations.firstIndex(where: { $0.name == label }) else { return }
                destinations[index].pubRetain = retain
            }
            if verbose {
                for (before, after) in zip(old, new) {
                    for change in after.differences(from: before) { Terminal.error(tool + "\(change)") }
                }
            }
        } catch {
            Terminal.error(tool + "pub_retain was not saved: \(error)")
        }
    }
}
