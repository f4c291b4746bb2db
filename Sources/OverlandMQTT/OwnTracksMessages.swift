import OverlandJSON
import OverlandProtocol

/// What the sender publishes, and where: OwnTracks messages on the device topic
/// (https://owntracks.org/booklet/tech/json/), built with OverlandProtocol's encoders.
public struct OwnTracksMessages: Sendable {
    /// One message to publish.
    public struct Message: Sendable, Equatable {
        public var topic: String
        public var payload: [UInt8]
        public var retain: Bool
    }

    public let deviceTopic: String
    let identity: OwnTracksIdentity

    public init(destination: MQTTDestination) {
        deviceTopic = destination.deviceTopic
        var identity = OwnTracksIdentity(deviceID: destination.deviceID, fallbackUser: destination.credentials.username)
        // The message's `topic` is the topic it is published on.
        identity.topic = deviceTopic
        self.identity = identity
    }

    /// The message for a journal record: a location for a location point; nil for a record
    /// with no OwnTracks equivalent (it counts as skipped).
    public func message(forRecord line: some Collection<UInt8>, retain: Bool = false) -> Message? {
        if let point = try? LocationFeature(jsonLine: line) {
            return location(point, retain: retain)
        }
        return nil
    }

    /// A `location` message for `point`; `trigger` is OwnTracks' `t` (`r`: an answer to
    /// `reportLocation`), left out when nil.
    public func location(_ point: LocationFeature, retain: Bool, trigger: String? = nil) -> Message {
        var payload = OwnTracksLocation(point: point, identity: identity).jsonBody()
        if let trigger, payload.last == UInt8(ascii: "}") {
            var writer = JSONWriter(reservingCapacity: 16)
            writer.appendRaw(#","t":"#)
            writer.appendString(trigger)
            payload.insert(contentsOf: writer.bytes, at: payload.count - 1)
        }
        return Message(topic: deviceTopic, payload: payload, retain: retain)
    }

    /// OwnTracks' last will, `{"_type":"lwt","tst":N}` on the device topic: the broker
    /// publishes it when the connection drops without a DISCONNECT, and Home Assistant's
    /// OwnTracks integration then shows the tracker as away/offline.
    public func lastWill(connectedAt time: Int64) -> MQTTClientOptions.Will {
        var writer = JSONWriter(reservingCapacity: 40)
        writer.appendRaw(#"{"_type":"lwt","tst":"#)
        writer.appendInteger(time)
        writer.appendRaw("}")
        return MQTTClientOptions.Will(topic: deviceTopic, payload: writer.bytes, retain: false)
    }

    /// The topic OwnTracks devices take commands on.
    public var commandTopic: String { deviceTopic + "/cmd" }
}
