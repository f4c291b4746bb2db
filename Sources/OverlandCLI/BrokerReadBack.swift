import OverlandMQTT
import OverlandProtocol
import OverlandSettings
import OverlandSync

/// Reading back an mqtt destination through what its broker feeds (docs/receivers.md,
/// "Reading back"): the OwnTracks Recorder subscribed to the broker, or Home Assistant
/// when the destination publishes discovery, at `verify_url`.
enum BrokerReadBack {
    /// The reader for `mqtt` (the destination's keys as the sender publishes with them).
    static func reader(for mqtt: MQTTDestination, destination: Destination) throws(ReadBackError) -> any ReadBackReader {
        if let problem = ReadBackSupport.loggingModeProblem(mqtt.loggingMode) { throw ReadBackError(problem) }
        let messages = OwnTracksMessages(destination: mqtt)
        let discovery = ReadBackReaders.Discovery(objectID: messages.discoveryObjectID, identifier: messages.discoveryIdentifier)
        return try ReadBackReaders.reader(forBrokerTopic: messages.deviceTopic, discovery: mqtt.discovery ? discovery : nil,
                                          verifyURL: destination.verifyURL, verifyToken: destination.verifyToken)
    }

    /// What the pass knows the destination by (its device id, how it is sent, for the
    /// refusals' fingerprint) and reads through (the CA file, the timeouts).
    static func configuration(for mqtt: MQTTDestination) -> SyncConfiguration {
        var configuration = SyncConfiguration(endpoint: mqtt.url, token: mqtt.token, deviceID: mqtt.deviceID)
        configuration.wireProtocol = .mqtt
        configuration.caFile = mqtt.caFile
        configuration.requestTimeout = mqtt.requestTimeout
        configuration.connectTimeout = mqtt.connectTimeout
        return configuration
    }
}
