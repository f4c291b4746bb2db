import OverlandJSON
import Testing
import OverlandProtocol

/// The discovery payload against Home Assistant's documented `device_tracker` MQTT schema
/// ("MQTT device tracker", configuration variables; "MQTT", discovery topic format).
@Suite struct HomeAssistantDiscoveryTests {
    /// Every key the documentation lists for an MQTT device_tracker, with its JSON type.
    static let documentedKeys: [String: String] = [
        "availability": "array", "availability_mode": "string", "availability_template": "string",
        "availability_topic": "string", "device": "object", "icon": "string", "json_attributes_template": "string",
        "json_attributes_topic": "string", "name": "string", "object_id": "string", "payload_available": "string",
        "payload_home": "string", "payload_not_available": "string", "payload_not_home": "string",
        "payload_reset": "string", "qos": "number", "source_type": "string", "state_topic": "string",
        "unique_id": "string", "value_template": "string",
    ]
    static let availabilityKeys: [String: String] = [
        "payload_available": "string", "payload_not_available": "string", "topic": "string", "value_template": "string",
    ]
    static let deviceKeys: [String: String] = [
        "configuration_url": "string", "connections": "array", "hw_version": "string", "identifiers": "array",
        "manufacturer": "string", "model": "string", "name": "string", "suggested_area": "string",
        "sw_version": "string", "via_device": "string",
    ]

    static func kind(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    static func checkSchema(_ members: [String: JSONValue], _ schema: [String: String]) {
        for (key, value) in members {
            #expect(schema[key] != nil, "undocumented key \(key)")
            #expect(schema[key] == kind(value), "\(key) is \(kind(value)), documented as \(schema[key] ?? "-")")
        }
    }

    static let topic = OwnTracksTopic(deviceID: "alice/van", username: nil)

    static func discovery(objectID: String = "owntracks_alice_van") -> (topic: String, payload: [UInt8]) {
        HomeAssistantDiscovery.deviceTracker(
            objectID: objectID, name: "Van", jsonAttributesTopic: "overland/owntracks_alice_van/attributes",
            availability: .ownTracks(topic), device: HomeAssistantDiscovery.Device(identifiers: ["overland_owntracks_alice_van"], name: "van"))
    }

    @Test func payloadFollowsTheDocumentedSchema() throws {
        let (topic, payload) = Self.discovery()
        #expect(topic == "homeassistant/device_tracker/owntracks_alice_van/config")
        let json = try JSONParser.parse(payload)
        let members = try #require(json.object)
        Self.checkSchema(members, Self.documentedKeys)
        #expect(members["name"]?.string == "Van")
        #expect(members["unique_id"]?.string == "overland_owntracks_alice_van")
        // Home Assistant 2024.2 on names an entity of its device's name "DEVICE ENTITY"
        // (device_tracker.van_van): the object id makes it device_tracker.owntracks_alice_van.
        #expect(members["object_id"]?.string == "owntracks_alice_van")
        #expect(members["json_attributes_topic"]?.string == "overland/owntracks_alice_van/attributes")
        #expect(members["source_type"]?.string == "gps")
        #expect(["gps", "router", "bluetooth", "bluetooth_le"].contains(members["source_type"]?.string ?? ""))
        #expect(members["state_topic"] == nil, "the position comes from the attributes")
        // Documented conditions: state_topic may be left out only when json_attributes_topic
        // is given; the device registry needs unique_id and identifiers (or connections).
        #expect(members["state_topic"] != nil || members["json_attributes_topic"]?.string?.isEmpty == false)
        #expect(members["unique_id"]?.string?.isEmpty == false)
        #expect(members["qos"]?.int == 1)

        let availability = try #require(members["availability"]?.array)
        #expect(availability.count == 1)
        let first = try #require(availability.first?.object)
        Self.checkSchema(first, Self.availabilityKeys)
        #expect(first["topic"]?.string == "owntracks/alice/van")
        #expect(first["value_template"]?.string?.contains("lwt") == true)

        let device = try #require(members["device"]?.object)
        Self.checkSchema(device, Self.deviceKeys)
        let identifiers = try #require(device["identifiers"]?.array)
        #expect(!identifiers.isEmpty, "the documentation requires identifiers or connections")
        #expect(identifiers.allSatisfy { $0.string?.isEmpty == false })
    }

    @Test func stateTopicAndPlainAvailabilityWhenAsked() throws {
        let (_, payload) = HomeAssistantDiscovery.deviceTracker(
            objectID: "van", name: "", stateTopic: "van/state", jsonAttributesTopic: "van/attributes",
            availability: .init(topic: "van/status", payloadAvailable: "up", payloadNotAvailable: "down"),
            device: .init(identifiers: [], name: "Van", model: "pi", softwareVersion: "1.0"))
        let members = try #require(try JSONParser.parse(payload).object)
        Self.checkSchema(members, Self.documentedKeys)
        #expect(members["state_topic"]?.string == "van/state")
        #expect(members["name"]?.string == "Van")
        let first = try #require(members["availability"]?[0]?.object)
        #expect(first["payload_available"]?.string == "up" && first["payload_not_available"]?.string == "down")
        let device = try #require(members["device"]?.object)
        Self.checkSchema(device, Self.deviceKeys)
        #expect(device["identifiers"]?[0]?.string == "overland_van")
        #expect(device["sw_version"]?.string == "1.0" && device["model"]?.string == "pi")
    }

    @Test(arguments: [("owntracks/alice/van", "owntracks_alice_van"), ("Van-1_x", "Van-1_x"), ("", "overland"),
                      ("///", "overland"), ("../../etc", "______etc"), ("+/#", "overland"), ("jörg", "j_rg"),
                      ("a\u{0}b", "a_b")])
    func objectIDsUseTheAllowedCharacters(_ text: String, _ expected: String) {
        let id = HomeAssistantDiscovery.objectID(sanitising: text)
        #expect(id == expected)
        #expect(id.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" })
        let (topic, _) = Self.discovery(objectID: text)
        #expect(topic == "homeassistant/device_tracker/\(expected)/config")
    }

    @Test func attributesFromTheOwnTracksTopicThroughATemplate() throws {
        let attributesTopic = HomeAssistantDiscovery.attributesTopic(objectID: "owntracks/alice/van")
        #expect(attributesTopic == "homeassistant/device_tracker/owntracks_alice_van/attributes")
        let (_, payload) = HomeAssistantDiscovery.deviceTracker(
            objectID: "owntracks/alice/van", name: "Van", jsonAttributesTopic: Self.topic.value,
            jsonAttributesTemplate: HomeAssistantDiscovery.ownTracksAttributesTemplate,
            availability: .ownTracks(Self.topic), device: .init(identifiers: ["x"], name: "van"))
        let members = try #require(try JSONParser.parse(payload).object)
        Self.checkSchema(members, Self.documentedKeys)
        #expect(members["json_attributes_topic"]?.string == "owntracks/alice/van")
        let template = try #require(members["json_attributes_template"]?.string)
        for (owntracks, homeAssistant) in [("lat", "latitude"), ("lon", "longitude"), ("acc", "gps_accuracy"), ("batt", "battery_level")] {
            #expect(template.contains("'\(homeAssistant)': value_json.\(owntracks)"))
        }
    }

    @Test func objectIDIsBounded() {
        #expect(HomeAssistantDiscovery.objectID(sanitising: String(repeating: "a", count: 10_000)).count == 64)
    }

    @Test func hostileNamesStayValidJSON() throws {
        let (_, payload) = HomeAssistantDiscovery.deviceTracker(
            objectID: "x", name: "\"}\u{0}\u{1B}[2J", jsonAttributesTopic: "t", availability: nil,
            device: .init(identifiers: ["\\\""], name: "\n"))
        let members = try #require(try JSONParser.parse(payload).object)
        #expect(members["name"]?.string == "\"}\u{0}\u{1B}[2J")
        #expect(members["availability"] == nil)
    }

    @Test func attributesForALocation() throws {
        let attributes = HomeAssistantDiscovery.attributes(for: FeatureEncodingTests.example)
        #expect(String(decoding: attributes, as: UTF8.self) == #"{"latitude":45.490975,"longitude":-77.696315,"gps_accuracy":5,"altitude":12,"velocity":15,"course":271,"battery_level":80,"battery_status":"unplugged","timestamp":"2015-10-01T15:00:00Z"}"#)
        let json = try JSONParser.parse(attributes)
        #expect(json["latitude"]?.double != nil && json["longitude"]?.double != nil && json["gps_accuracy"]?.double != nil)
    }

    @Test func attributesLeaveUnknownsOut() throws {
        let point = LocationFeature(longitude: 2.2945, latitude: 48.8584, timestamp: 1_701_795_025)
        let json = try JSONParser.parse(HomeAssistantDiscovery.attributes(for: point))
        let members = try #require(json.object)
        // Altitude too: 0 with no vertical accuracy is unknown (LocationFeature.knownAltitude).
        #expect(Set(members.keys) == ["latitude", "longitude", "timestamp"])
    }

    @Test func attributesForRecords() {
        #expect(HomeAssistantDiscovery.attributes(forRecord: FeatureEncodingTests.example.jsonLine()[...]) != nil)
        let action = ActionRecord(action: "paused_location_updates", timestamp: 0,
                                  device: DeviceMetadata(deviceID: "", batteryState: .unknown, batteryLevel: 0, wifi: ""))
        #expect(HomeAssistantDiscovery.attributes(forRecord: action.jsonLine()[...]) == nil)
        #expect(HomeAssistantDiscovery.attributes(forRecord: Array("{".utf8)[...]) == nil)
    }
}
