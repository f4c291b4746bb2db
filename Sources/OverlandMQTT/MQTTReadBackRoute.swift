import OverlandProtocol
import OverlandSync

extension MQTTDestinationSender {
    /// Read back through what its broker feeds (docs/receivers.md, "Reading back"): the
    /// OwnTracks Recorder subscribed to the broker, or Home Assistant when the destination
    /// publishes discovery (`BrokerFeed`); its missing points published again (`MQTTResender`).
    public var route: ReadBackRoute {
        let messages = OwnTracksMessages(destination: destination)
        let discovery = ReadBackTarget.Discovery(objectID: messages.discoveryObjectID, identifier: messages.discoveryIdentifier)
        return ReadBackRoute(configuration: destination.readBackConfiguration,
                             broker: ReadBackTarget.Broker(topic: messages.deviceTopic, discovery: destination.discovery ? discovery : nil)) {
            [self] journal, _ in MQTTResender(sender: self, journal: journal)
        }
    }

    public var readBackRoute: ReadBackRoute? { route }
}

extension MQTTDestination {
    /// What the pass knows the destination by (its device id, how it is sent, for the
    /// refusals' fingerprint; its logging mode, for verify's check) and reads through (the
    /// CA file, the timeouts).
    var readBackConfiguration: SyncConfiguration {
        var configuration = SyncConfiguration(endpoint: url, token: token, deviceID: deviceID)
        configuration.wireProtocol = .mqtt
        configuration.loggingMode = loggingMode
        configuration.caFile = caFile
        configuration.requestTimeout = requestTimeout
        configuration.connectTimeout = connectTimeout
        return configuration
    }
}
