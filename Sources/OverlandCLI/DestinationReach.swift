import OverlandJournal
import OverlandMQTT
import OverlandProtocol
import OverlandSettings
import OverlandSync

/// A destination as `destination audit` and `destination resend` reach it: how it is sent
/// (its configuration, for an mqtt destination its broker's), how it is read back (as the
/// sync's read-back reads it: `ReadBackStep`) and how points go to it again (its own path).
struct DestinationReach {
    let destination: Destination
    let configuration: SyncConfiguration
    /// An mqtt destination's broker settings; nil for an HTTP receiver.
    let broker: MQTTDestination?

    init(_ destination: Destination, settings: Settings) {
        self.destination = destination
        if case .mqttBroker = Receivers.carrier(of: destination.wireProtocol, url: destination.url) {
            let mqtt = DestinationSenders(settings: settings, trip: nil).mqtt(destination)
            configuration = BrokerReadBack.configuration(for: mqtt)
            broker = mqtt
        } else {
            configuration = DestinationSenders(settings: settings, trip: nil).http(destination)
            broker = nil
        }
    }

    /// The configured destination `name` as the journal options' settings describe it; what
    /// the sync would refuse of it is refused here in the same words (78).
    static func configured(_ name: String, options: JournalOptions) throws -> DestinationReach {
        let settings = try options.settings()
        let destination = try DestinationCommand.configured(name, settings: settings, options: options.settingsOptions)
        if let problem = destination.problems(settings: settings).first {
            throw CommandFailure("\(name): \(problem)", status: .configuration)
        }
        return DestinationReach(destination, settings: settings)
    }

    /// The reader of the receiver's store, or a configuration error (78) naming what to set.
    func reader() throws -> any ReadBackReader {
        do {
            if let broker { return try BrokerReadBack.reader(for: broker, destination: destination) }
            return try ReadBackReaders.reader(for: configuration, verifyURL: destination.verifyURL, verifyToken: destination.verifyToken)
        } catch {
            throw CommandFailure("\(destination.name): \(error)", status: .configuration)
        }
    }

    /// How points go to the destination again: its broker, or its HTTP receiver's requests
    /// through `transport`.
    func resender(journal: Journal, transport: any Transport) -> any ReadBackResender {
        let cursor = CursorName(destination.name) ?? .default
        if let broker { return MQTTResender(sender: MQTTDestinationSender(name: cursor, destination: broker), journal: journal) }
        return HTTPResender(configuration: configuration, transport: transport, journal: journal, cursor: cursor)
    }

    /// The destination's own lock (`DestinationsRun.destinationLockName`), held while a sync
    /// sends to it or reads it back; 75 when another process holds it.
    func lock(_ journal: Journal) throws -> JournalLock {
        guard let lock = try journal.tryLock(DestinationsRun.destinationLockName(CursorName(destination.name) ?? .default)) else {
            throw CommandFailure("\(destination.name): another overland process is sending to or reading back this destination: "
                                 + "try again when it is done", status: .tryLater)
        }
        return lock
    }

    /// Runs `body` with an HTTP transport for the destination (its read API and, for an
    /// HTTP receiver, its sending); a failure becomes one line with the destination's secrets
    /// hidden: 78 when the receiver's answer cannot be read as configured, 75 otherwise.
    func run<Value: Sendable>(_ body: @escaping @Sendable (any Transport) async throws -> Value) throws -> Value {
        let configuration = configuration
        let outcome = MultiCall.runToCompletion { () -> Result<Value, any Error> in
            do {
                return .success(try await HTTPClientTransport.withTransport(configuration: configuration) { try await body($0) })
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let value): return value
        case .failure(let error as JournalError): throw error
        case .failure(let error as CommandFailure): throw error
        case .failure(let error):
            let text = SecretRedaction.hiding(url: destination.url, token: destination.token,
                                              others: destination.verifyToken.map { [$0] } ?? [], in: "\(error)")
            // As the sync says it: an answer that cannot be read is the user's to fix.
            let configurationError = (error as? ReadBackError)?.isConfiguration == true
            throw CommandFailure("\(destination.name): \(configurationError ? "verify" : "reading back"): \(text)",
                                 status: configurationError ? .configuration : .tryLater)
        }
    }
}
