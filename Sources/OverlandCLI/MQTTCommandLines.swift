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
    /// with the checks of a server's `set` (`ServerSetApplier.applyOwnTracks`).
    func report(_ sender: MQTTSender, _ outcome: MQTTSender.CommandOutcome) {
        let destination = sender.destination
        let tool = "overland-sync: \(destination.name): "
        switch outcome {
        case .reportedLocation(let published):
            if verbose || !published {
                Terminal.error(tool + "reportLocation: " + (published ? "the newest point published" : "no point in the journal to report"))
            }
        case .setConfiguration(let configuration, let retained):
            let applier = ServerSetApplier(settingsPath: settingsPath, verbose: verbose)
            let applied = applier.applyOwnTracks(configuration, token: destination.token, label: destination.name)
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
