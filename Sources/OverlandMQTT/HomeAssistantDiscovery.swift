import OverlandJSON

/// Home Assistant MQTT discovery for the device (https://www.home-assistant.io/integrations/device_tracker.mqtt/,
/// https://www.home-assistant.io/integrations/mqtt/#mqtt-discovery): a `device_tracker`
/// config, retained, on `PREFIX/device_tracker/OBJECT_ID/config`, so that the device
/// appears in Home Assistant without YAML.
///
/// The tracker reads its position from the OwnTracks messages on the device topic, as its
/// JSON attributes topic: Home Assistant takes `latitude`, `longitude` and `gps_accuracy`
/// from the attributes, so a template renames OwnTracks' `lat`, `lon` and `acc` (and
/// `batt` to `battery_level`), and passes over the `lwt` message. The same topic is its
/// availability: the `lwt` the broker publishes when the device disappears makes it
/// `offline`, the next location `online`.
public struct HomeAssistantDiscovery: Sendable {
    public let objectID: String
    public let prefix: String
    public let deviceTopic: String
    public let deviceName: String

    public init(destination: MQTTDestination, messages: OwnTracksMessages) {
        let source = destination.deviceID.isEmpty ? messages.deviceTopic : destination.deviceID
        // Home Assistant's object ids: [a-zA-Z0-9_-].
        objectID = "overland_" + String(source.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-")
                ? Character(scalar) : "_"
        }.prefix(64))
        prefix = destination.discoveryPrefix
        deviceTopic = messages.deviceTopic
        deviceName = source
    }

    /// `PREFIX/device_tracker/OBJECT_ID/config`.
    public var configTopic: String { "\(prefix)/device_tracker/\(objectID)/config" }

    /// The config, compact JSON, keys as Home Assistant documents them.
    public func payload() -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 1024)
        writer.appendRaw(#"{"name":null,"unique_id":"#)
        writer.appendString(objectID)
        writer.appendRaw(#","object_id":"#)
        writer.appendString(objectID)
        writer.appendRaw(#","source_type":"gps","json_attributes_topic":"#)
        writer.appendString(deviceTopic)
        writer.appendRaw(#","json_attributes_template":"#)
        writer.appendString("{% if value_json._type == 'location' %}{{ {'latitude': value_json.lat, 'longitude': value_json.lon, "
            + "'gps_accuracy': value_json.acc | default(0), 'altitude': value_json.alt, 'velocity': value_json.vel, "
            + "'course': value_json.cog, 'battery_level': value_json.batt} | tojson }}{% else %}{{ this.attributes | tojson }}{% endif %}")
        writer.appendRaw(#","availability_topic":"#)
        writer.appendString(deviceTopic)
        writer.appendRaw(#","availability_template":"#)
        writer.appendString("{{ 'offline' if value_json._type == 'lwt' else 'online' }}")
        writer.appendRaw(#","payload_available":"online","payload_not_available":"offline","device":{"identifiers":["#)
        writer.appendString(objectID)
        writer.appendRaw(#"],"name":"#)
        writer.appendString(deviceName)
        writer.appendRaw(#","manufacturer":"Overland","model":"overland-log","sw_version":"overland"},"origin":{"name":"overland"}}"#)
        return writer.bytes
    }

    /// The retained config message.
    public func message() -> OwnTracksMessages.Message {
        OwnTracksMessages.Message(topic: configTopic, payload: payload(), retain: true)
    }
}
