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
                      "mqtt://host/topic", "mqtt://u:p@host", "mqtt://[::1", "mqtt://ho st", "mqtt://host:", "mqtt://host:1883/x"])
    func refused(url: String) {
        #expect(throws: ReceiverURLError.self) { try MQTTBrokerURL(parsing: url) }
        do {
            _ = try MQTTBrokerURL(parsing: url)
        } catch {
            #expect(error.description.hasPrefix("broker url '"), "\(error)")
            #expect(!error.description.contains("\n"))
        }
        // The sender refuses it as a configuration error, with the same message.
        var destination = MQTTDestination(name: "home", url: url, deviceID: "alice/van")
        destination.topic = "owntracks/alice/van"
        #expect(throws: MQTTError.configuration(message(url))) {
            _ = try destination.validate()
        }
    }

    func message(_ url: String) -> String {
        do { _ = try MQTTBrokerURL(parsing: url); return "" } catch { return error.description }
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
        #expect(MQTTTopic.ownTracksDefault(deviceID: "van", user: nil) == "owntracks/user/van")
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
        #expect(throws: MQTTError.self) { try destination.validate() }
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
        let message = try #require(messages.messages(forRecord: line[...]).first)
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

    @Test func discoveryIsRetainedUnderThePrefixAndReadsTheDeviceTopic() throws {
        var destination = MQTTDestination(name: "home", url: "mqtt://b", deviceID: "alice/van")
        destination.discovery = true
        let message = OwnTracksMessages(destination: destination).discovery()
        #expect(message.retained)
        #expect(message.topic == "homeassistant/device_tracker/owntracks_alice_van/config")
        let value = try JSONParser.parse(message.payload)
        #expect(value["json_attributes_topic"]?.string == "owntracks/alice/van")
        #expect(value["availability"]?[0]?["topic"]?.string == "owntracks/alice/van")
        #expect(value["source_type"]?.string == "gps")
        #expect(value["unique_id"]?.string == "overland_owntracks_alice_van")
    }
}
