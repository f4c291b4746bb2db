import OverlandJSON
import OverlandProtocol

/// What the sender publishes, and where: OwnTracks messages on the device topic, built
/// with OverlandProtocol's encoders (`OwnTracksMessage`: a location per point, a
/// `transition` per visit arrival and departure on `TOPIC/event`, nothing for trips and
/// actions; `OwnTracksLWT`; `HomeAssistantDiscovery`).
public struct OwnTracksMessages: Sendable {
    /// One message to publish.
    public typealias Message = OwnTracksMessage

    public let topic: OwnTracksTopic
    let identity: OwnTracksIdentity
    let destination: MQTTDestination

    public var deviceTopic: String { topic.value }

    /// The messages of `destination`; its topic must have been validated.
    public init(destination: MQTTDestination) {
        self.destination = destination
        topic = (try? OwnTracksTopic(validating: destination.deviceTopic))
            ?? OwnTracksTopic(deviceID: destination.deviceID, username: destination.credentials.username)
        identity = OwnTracksIdentity(deviceID: destination.deviceID, fallbackUser: destination.credentials.username)
    }

    /// The messages for a journal record, in order (none: the record counts as skipped).
    public func messages(forRecord line: ArraySlice<UInt8>, retainLocation: Bool = false) -> [Message] {
        OwnTracksMessage.messages(forRecord: line, identity: identity, topic: topic, retainLocation: retainLocation)
    }

    /// A `location` message for `point`; `trigger` is OwnTracks' `t` (`r`: an answer to
    /// `reportLocation`).
    public func location(_ point: LocationFeature, retain: Bool, trigger: String? = nil) -> Message {
        OwnTracksMessage.location(point, identity: identity, topic: topic, retained: retain, trigger: trigger)
    }

    /// OwnTracks' last will, `{"_type":"lwt","tst":N}` on the device topic: the broker
    /// publishes it when the connection drops without a DISCONNECT, and Home Assistant then
    /// shows the tracker as unavailable (the discovery config's availability).
    public func lastWill(connectedAt time: Int64) -> MQTTClientOptions.Will {
        MQTTClientOptions.Will(topic: topic.value, payload: OwnTracksLWT.payload(tst: time), retain: false)
    }

    /// The topic OwnTracks devices take commands on.
    public var commandTopic: String { topic.command }

    /// The tracker's name in the discovery config: the device part (`van` of `alice/van`):
    /// Home Assistant shows the device name before the entity name, so the whole id would
    /// read "alice/van alice/van".
    public var trackerName: String {
        identity.device ?? topic.value.split(separator: "/").last.map(String.init) ?? topic.value
    }

    /// The discovery config's object id, one tracker per device topic: `owntracks/alice/van`
    /// is `owntracks_alice_van`, and Home Assistant's entity `device_tracker.owntracks_alice_van`.
    public var discoveryObjectID: String { HomeAssistantDiscovery.objectID(sanitising: topic.value) }

    /// The identifier of the tracker's device in Home Assistant's registry (under `mqtt`):
    /// how read-back finds the entity whatever Home Assistant named it.
    public var discoveryIdentifier: String { "overland_" + discoveryObjectID }

    /// Home Assistant's discovery config for the device, retained: a `device_tracker`
    /// whose attributes and availability are read from the OwnTracks messages on the device
    /// topic (one publish per point serves OwnTracks and Home Assistant alike).
    public func discovery() -> Message {
        let source = trackerName
        let config = HomeAssistantDiscovery.deviceTracker(
            objectID: discoveryObjectID, name: source, jsonAttributesTopic: topic.value,
            jsonAttributesTemplate: HomeAssistantDiscovery.ownTracksAttributesTemplate,
            availability: .ownTracks(topic),
            device: HomeAssistantDiscovery.Device(identifiers: [discoveryIdentifier], name: source, model: "overland-log"),
            prefix: destination.discoveryPrefix)
        return Message(topic: config.topic, payload: config.payload, retained: true)
    }
}
