import OverlandJSON
import OverlandMQTT
import OverlandProtocol
import Testing

@Suite struct MQTTBrokerURLTests {
    @Test func schemesAndDefaultPorts() throws {
        let plain = try MQTTBrokerURL(parsing: "mqtt://broker.lan")
        #expect(plain.host == "broker.lan" && plain.port == 1883 && !plain.usesTLS)
        let tls = try MQTTBrokerURL(parsing: "MQTTS://broker.lan:8884/")
        #expect(tls.host == "broker.lan" && tls.port == 8884 && tls.usesTLS)
        let six = try MQTTBrokerURL(parsing: "mqtt://[::1]:1884")
        #expect(six.host == "::1" && six.port == 1884 && six.description == "[::1]:1884")
    }

    @Test(arguments: ["http://broker", "mqtt://", "mqtt://:1883", "mqtt://host:0", "mqtt://host:65536", "mqtt://host:12a",
                      "mqtt://host/topic", "mqtt://u:p@host", "mqtt://[::1", "mqtt://ho st"])
    func refused(url: String) {
        #expect(throws: MQTTError.self) { try MQTTBrokerURL(parsing: url) }
        do {
            _ = try MQTTBrokerURL(parsing: url)
        } catch {
            if case .configuration = error {} else { Issue.record("\(error) is not a configuration error") }
            #expect(!error.description.contains("\n"))
        }
    }
}

@Suite struct MQTTTopicTests {
    @Test(arguments: ["owntracks/alice/van", "a", "home/tracker 1", "ü/b"])
    func accepted(topic: String) throws {
        try MQTTTopic.validate(topic)
    }

    @Test(arguments: ["", "owntracks/+/van", "owntracks/#", "/owntracks", "owntracks/", "a//b", "$SYS/x", "a\u{0}b", "a\nb",
                      String(repeating: "x", count: 70_000)])
    func refused(topic: String) {
        #expect(throws: MQTTError.self) { try MQTTTopic.validate(topic) }
    }

    @Test func ownTracksDefault() {
        #expect(MQTTTopic.ownTracksDefault(deviceID: "alice/van", user: "bob") == "owntracks/alice/van")
        #expect(MQTTTopic.ownTracksDefault(deviceID: "van", user: "alice") == "owntracks/alice/van")
        #expect(MQTTTopic.ownTracksDefault(deviceID: "van", user: nil) == "owntracks/overland/van")
    }
}

@Suite struct MQTTClientIDTests {
    @Test func stableValidAndDistinct() {
        let id = MQTTClientID.derive(deviceID: "alice/van-2", destination: "home")
        #expect(id == MQTTClientID.derive(deviceID: "alice/van-2", destination: "home"))
        #expect((1...23).contains(id.count))
        #expect(id.unicodeScalars.allSatisfy { $0.isASCII && (("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)) })
        #expect(id != MQTTClientID.derive(deviceID: "alice/van-2", destination: "cloud"))
        #expect(id != MQTTClientID.derive(deviceID: "alice/van-3", destination: "home"))
        let empty = MQTTClientID.derive(deviceID: "", destination: "default")
        #expect((1...23).contains(empty.count))
    }
}

@Suite struct MQTTDestinationTests {
    @Test func credentialsFromUsernameOrToken() {
        var destination = MQTTDestination(name: "home", url: "mqtt://b", deviceID: "alice/van")
        destination.token = "alice:secret"
        #expect(destination.credentials.username == "alice" && destination.credentials.password == "secret")
        destination.username = "bob"
        destination.token = "pw:with:colons"
        #expect(destination.credentials.username == "bob" && destination.credentials.password == "pw:with:colons")
    }

    @Test func aPasswordWithoutAUserIsAConfigurationError() {
        var destination = MQTTDestination(name: "home", url: "mqtt://b", deviceID: "van")
        destination.token = "secret"
        #expect(throws: MQTTError.self) { try destination.validate() }
    }

    @Test func aBadTopicIsAConfigurationError() {
        var destination = MQTTDestination(name: "home", url: "mqtt://b", deviceID: "van")
        destination.topic = "owntracks/#"
        #expect(throws: MQTTError.configuration("topic 'owntracks/#' has a wildcard ('+' or '#'): a topic to publish to names one topic")) {
            try destination.validate()
        }
    }
}

@Suite struct MQTTCommandTests {
    @Test func ownTracksCommands() throws {
        #expect(MQTTCommand(payload: Array(#"{"_type":"cmd","action":"reportLocation"}"#.utf8)) == .reportLocation)
        let set = try #require(MQTTCommand(payload: Array(#"{"_type":"cmd","action":"setConfiguration","configuration":{"_type":"configuration","tid":"vn"}}"#.utf8)))
        guard case .setConfiguration(let configuration) = set else { Issue.record("\(set)"); return }
        #expect(configuration["tid"]?.string == "vn")
        #expect(MQTTCommand(payload: Array(#"{"_type":"cmd","action":"dump"}"#.utf8)) == .other("dump"))
        #expect(MQTTCommand(payload: Array(#"{"_type":"location"}"#.utf8)) == nil)
        #expect(MQTTCommand(payload: Array("not json".utf8)) == nil)
        #expect(MQTTCommand(payload: Array(#"{"_type":"cmd","action":"setConfiguration"}"#.utf8)) == nil)
    }
}

/// The discovery config against Home Assistant's documented schema for an MQTT device
/// tracker (https://www.home-assistant.io/integrations/device_tracker.mqtt/): the keys it
/// takes, with their types, and nothing else.
@Suite struct HomeAssistantDiscoveryTests {
    @Test func payloadFollowsTheDocumentedSchema() throws {
        var destination = MQTTDestination(name: "home", url: "mqtt://b", deviceID: "alice/van")
        destination.username = "alice"
        destination.discovery = true
        let messages = OwnTracksMessages(destination: destination)
        let discovery = HomeAssistantDiscovery(destination: destination, messages: messages)
        #expect(discovery.configTopic == "homeassistant/device_tracker/overland_alice_van/config")
        let message = discovery.message()
        #expect(message.retain)
        let value = try JSONParser.parse(message.payload)
        let object = try #require(value.object)
        let documented: Set<String> = [
            "availability", "availability_mode", "availability_template", "availability_topic", "device", "icon",
            "json_attributes_template", "json_attributes_topic", "name", "object_id", "origin", "payload_available",
            "payload_home", "payload_not_available", "payload_not_home", "payload_reset", "qos", "source_type",
            "state_topic", "unique_id", "value_template", "default_entity_id",
        ]
        #expect(Set(object.keys).subtracting(documented).isEmpty, "\(Set(object.keys).subtracting(documented))")
        #expect(object["json_attributes_topic"]?.string == "owntracks/alice/van")
        #expect(object["availability_topic"]?.string == "owntracks/alice/van")
        #expect(object["source_type"]?.string == "gps")
        #expect(object["unique_id"]?.string == "overland_alice_van")
        let device = try #require(object["device"]?.object)
        #expect(device["identifiers"]?.array?.first?.string == "overland_alice_van")
        #expect(device["name"]?.string == "alice/van")
        // The attributes template renames OwnTracks' keys to the ones Home Assistant reads.
        let template = try #require(object["json_attributes_template"]?.string)
        for key in ["'latitude': value_json.lat", "'longitude': value_json.lon", "'gps_accuracy'"] {
            #expect(template.contains(key))
        }
        #expect(object["availability_template"]?.string?.contains("lwt") == true)
    }
}

@Suite struct OwnTracksMessagesTests {
    @Test func locationOnTheDeviceTopicAndTheLastWill() throws {
        var destination = MQTTDestination(name: "home", url: "mqtt://b", deviceID: "van")
        destination.username = "alice"
        let messages = OwnTracksMessages(destination: destination)
        #expect(messages.deviceTopic == "owntracks/alice/van")
        #expect(messages.commandTopic == "owntracks/alice/van/cmd")
        let line = Array(#"{"type":"Feature","geometry":{"type":"Point","coordinates":[-77.5,45.5]},"properties":{"timestamp":"2024-03-01T00:00:00Z","altitude":10,"speed":10,"horizontal_accuracy":5,"vertical_accuracy":3,"course":90,"motion":["driving"],"battery_state":"unknown","battery_level":-1,"wifi":"","device_id":"van"}}"#.utf8)
        let message = try #require(messages.message(forRecord: line))
        #expect(message.topic == "owntracks/alice/van")
        let value = try JSONParser.parse(message.payload)
        #expect(value["_type"]?.string == "location")
        #expect(value["tst"]?.int == 1_709_251_200)
        #expect(value["vel"]?.int == 36)
        #expect(value["topic"]?.string == "owntracks/alice/van")
        let point = try LocationFeature(jsonLine: line)
        let answer = try JSONParser.parse(messages.location(point, retain: false, trigger: "r").payload)
        #expect(answer["t"]?.string == "r")
        let will = messages.lastWill(connectedAt: 1_700_000_000)
        #expect(will.topic == "owntracks/alice/van")
        #expect(String(decoding: will.payload, as: UTF8.self) == #"{"_type":"lwt","tst":1700000000}"#)
    }
}
