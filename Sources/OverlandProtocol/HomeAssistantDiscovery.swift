import OverlandJSON

/// Home Assistant MQTT discovery for the device: a `device_tracker` entity that appears
/// without YAML (Home Assistant, "MQTT device tracker", "Using the discovery protocol").
///
/// The config goes, retained, to `homeassistant/device_tracker/<object_id>/config`:
///
///     {"name":"van","unique_id":"overland_owntracks_alice_van","object_id":"owntracks_alice_van",
///      "json_attributes_topic":"homeassistant/device_tracker/owntracks_alice_van/attributes",
///      "source_type":"gps","qos":1,
///      "availability":[{"topic":"owntracks/alice/van",
///                       "value_template":"{{ 'offline' if value_json._type == 'lwt' else 'online' }}"}],
///      "device":{"identifiers":["overland_owntracks_alice_van"],"name":"van","manufacturer":"overland"}}
///
/// What the tracker reads: no state topic. Home Assistant takes the position from the
/// JSON attributes (`latitude`, `longitude`, `gps_accuracy`: `attributes(for:)`) and
/// derives home / not_home / a zone name from its own zones, which this device cannot
/// know; a state topic would override that position until reset. `state_topic` is
/// written only when a caller passes one. The attributes come either as messages of their
/// own on `attributesTopic(objectID:)`, or from the OwnTracks device topic through
/// `ownTracksAttributesTemplate` (one publish per point serves both).
public enum HomeAssistantDiscovery {
    /// Home Assistant's default discovery prefix.
    public static let defaultPrefix = "homeassistant"

    /// Where the attributes of `attributes(for:)` go by default:
    /// `PREFIX/device_tracker/OBJECT_ID/attributes`, beside the config. Home Assistant's
    /// discovery reads only `.../config` under the prefix, and a broker ACL that lets the
    /// device publish its config lets it publish there; under the OwnTracks topic, Home
    /// Assistant's OwnTracks integration (subscribed to `owntracks/#`) would warn about
    /// every message without `_type`.
    public static func attributesTopic(objectID: String, prefix: String = defaultPrefix) -> String {
        prefix + "/device_tracker/" + Self.objectID(sanitising: objectID) + "/attributes"
    }

    /// A `json_attributes_template` that reads the attributes from the OwnTracks messages
    /// themselves, for a tracker whose `json_attributes_topic` is the OwnTracks device
    /// topic (no separate attributes messages): `lat`, `lon`, `acc`, `alt`, `vel`, `cog`,
    /// `batt` become `latitude`, `longitude`, `gps_accuracy`, `altitude`, `velocity`,
    /// `course`, `battery_level`; any other message there (the `lwt`) keeps the last
    /// attributes.
    public static let ownTracksAttributesTemplate =
        "{% if value_json._type == 'location' %}{{ {'latitude': value_json.lat, 'longitude': value_json.lon, "
        + "'gps_accuracy': value_json.acc | default(0), 'altitude': value_json.alt | default(0), "
        + "'velocity': value_json.vel | default(none), 'course': value_json.cog | default(none), "
        + "'battery_level': value_json.batt | default(none)} | tojson }}{% else %}{{ this.attributes | tojson }}{% endif %}"

    /// Where Home Assistant learns whether the device is there.
    public struct Availability: Sendable, Equatable {
        public var topic: String
        /// Defaults to Home Assistant's `online` when nil.
        public var payloadAvailable: String?
        /// Defaults to Home Assistant's `offline` when nil.
        public var payloadNotAvailable: String?
        /// A template turning a message into `payloadAvailable`/`payloadNotAvailable`.
        public var valueTemplate: String?

        public init(topic: String, payloadAvailable: String? = nil, payloadNotAvailable: String? = nil,
                    valueTemplate: String? = nil) {
            self.topic = topic
            self.payloadAvailable = payloadAvailable
            self.payloadNotAvailable = payloadNotAvailable
            self.valueTemplate = valueTemplate
        }

        /// Availability read from the OwnTracks device topic itself: the broker publishes
        /// the device's `lwt` there when it disappears (offline); any other message there,
        /// a `location`, means it is back (online). One MQTT will serves both OwnTracks
        /// and Home Assistant.
        public static func ownTracks(_ topic: OwnTracksTopic) -> Availability {
            Availability(topic: topic.value, valueTemplate: "{{ 'offline' if value_json._type == 'lwt' else 'online' }}")
        }
    }

    /// The device the tracker belongs to, in Home Assistant's device registry.
    public struct Device: Sendable, Equatable {
        /// At least one; Home Assistant groups entities by them.
        public var identifiers: [String]
        public var name: String
        public var manufacturer: String?
        public var model: String?
        public var softwareVersion: String?

        public init(identifiers: [String], name: String, manufacturer: String? = "overland", model: String? = nil,
                    softwareVersion: String? = nil) {
            self.identifiers = identifiers
            self.name = name
            self.manufacturer = manufacturer
            self.model = model
            self.softwareVersion = softwareVersion
        }
    }

    /// The discovery message for a GPS `device_tracker`: its topic
    /// (`PREFIX/device_tracker/OBJECT_ID/config`) and JSON payload. Publish it retained.
    ///
    /// `objectID` is made safe with `objectID(sanitising:)` (only `[a-zA-Z0-9_-]` is
    /// allowed in a discovery topic); `unique_id` is `overland_` and the object id, and
    /// `object_id` the object id (the entity id Home Assistant gives).
    /// An empty `name` takes the device's.
    public static func deviceTracker(
        objectID: String, name: String, stateTopic: String? = nil, jsonAttributesTopic: String,
        jsonAttributesTemplate: String? = nil, availability: Availability?, device: Device,
        prefix: String = defaultPrefix
    ) -> (topic: String, payload: [UInt8]) {
        let id = Self.objectID(sanitising: objectID)
        var writer = JSONWriter(reservingCapacity: 512)
        writer.appendRaw(#"{"name":"#)
        writer.appendString(name.isEmpty ? device.name : name)
        writer.appendRaw(#","unique_id":"#)
        writer.appendString("overland_" + id)
        // The entity id Home Assistant gives (`device_tracker.OBJECT_ID` while free), not
        // one made of the device's and the entity's names (`van_van` since 2024.2).
        // 2025.10 renamed the key `default_entity_id`; versions before drop that key
        // unread, and the reader finds the tracker by its device identifier either way.
        writer.appendRaw(#","object_id":"#)
        writer.appendString(id)
        if let stateTopic {
            writer.appendRaw(#","state_topic":"#)
            writer.appendString(stateTopic)
        }
        writer.appendRaw(#","json_attributes_topic":"#)
        writer.appendString(jsonAttributesTopic)
        if let jsonAttributesTemplate {
            writer.appendRaw(#","json_attributes_template":"#)
            writer.appendString(jsonAttributesTemplate)
        }
        writer.appendRaw(#","source_type":"gps","qos":1"#)
        if let availability {
            writer.appendRaw(#","availability":[{"topic":"#)
            writer.appendString(availability.topic)
            if let payload = availability.payloadAvailable {
                writer.appendRaw(#","payload_available":"#)
                writer.appendString(payload)
            }
            if let payload = availability.payloadNotAvailable {
                writer.appendRaw(#","payload_not_available":"#)
                writer.appendString(payload)
            }
            if let template = availability.valueTemplate {
                writer.appendRaw(#","value_template":"#)
                writer.appendString(template)
            }
            writer.appendRaw("}]")
        }
        writer.appendRaw(#","device":{"identifiers":["#)
        let identifiers = device.identifiers.isEmpty ? ["overland_" + id] : device.identifiers
        for (index, identifier) in identifiers.enumerated() {
            if index > 0 { writer.appendRaw(",") }
            writer.appendString(identifier)
        }
        writer.appendRaw(#"],"name":"#)
        writer.appendString(device.name)
        for (key, value) in [("manufacturer", device.manufacturer), ("model", device.model), ("sw_version", device.softwareVersion)] {
            guard let value else { continue }
            writer.appendRaw(",")
            writer.appendString(key)
            writer.appendRaw(":")
            writer.appendString(value)
        }
        writer.appendRaw("}}")
        return (prefix + "/device_tracker/" + id + "/config", writer.bytes)
    }

    /// `text` as a discovery object id: ASCII letters, digits, `_` and `-` kept, every
    /// other character (`/` among them) becomes `_`; at most 64 characters; `overland`
    /// when nothing is left. `owntracks/alice/van` gives `owntracks_alice_van`.
    public static func objectID(sanitising text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let allowed = (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
                || scalar == "_" || scalar == "-"
            result.unicodeScalars.append(allowed ? scalar : "_")
            if result.unicodeScalars.count == 64 { break }
        }
        return result.isEmpty || result.allSatisfy({ $0 == "_" }) ? "overland" : result
    }
}
