import OverlandJournal
import OverlandMQTT
import OverlandProtocol
import OverlandSettings
import OverlandSync

/// `DestinationReach` as the commands use it: found by name in the settings, its failures
/// turned into one line and a status.
extension DestinationReach {
    /// The configured destination `name` as the journal options' settings describe it; what
    /// the sync would refuse of it is refused here in the same words (78).
    static func configured(_ name: String, options: JournalOptions) throws -> DestinationReach {
        let settings = try options.settings()
        let destination = try DestinationCommand.configured(name, settings: settings, options: options.settingsOptions)
        if let problem = destination.problems(settings: settings).first {
            throw CommandFailure("\(name): \(problem)", status: .configuration)
        }
        return DestinationReach(destination, senders: try DestinationSenders(settings: settings, journal: nil))
    }

    /// The reader of the receiver's store, or a configuration error (78) naming what to set.
    func checkedReader() throws -> any ReadBackReader {
        do { return try reader() } catch { throw CommandFailure("\(destination.name): \(error)", status: .configuration) }
    }

    /// The destination's lock; 75 when another process holds it.
    func checkedLock(_ journal: Journal) throws -> JournalLock {
        guard let lock = try lock(journal) else {
            throw CommandFailure("\(destination.name): another overland process is sending to or reading back this destination: "
                                 + "try again when it is done", status: .tryLater)
        }
        return lock
    }

    /// Runs `body` to its end; a failure becomes one line with the destination's secrets
    /// hidden: 78 when the receiver's answer cannot be read as configured, 75 otherwise.
    func run<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) throws -> Value {
        let outcome = MultiCall.runToCompletion { () -> Result<Value, any Error> in
            do { return .success(try await body()) } catch { return .failure(error) }
        }
        switch outcome {
        case .success(let value): return value
        case .failure(let error as JournalError): throw error
        case .failure(let error as CommandFailure): throw error
        case .failure(let error):
            // As the sync says it: an answer that cannot be read is the user's to fix.
            let configurationError = (error as? ReadBackError)?.isConfiguration == true
            throw CommandFailure("\(destination.name): \(configurationError ? "verify" : "reading back"): \(hiding("\(error)"))",
                                 status: configurationError ? .configuration : .tryLater)
        }
    }
}
