import OverlandProtocol
@testable import OverlandSettings
import Testing

/// `overland destination set` runs the sync's own checks (issue 22): a topic, a broker url,
/// an http endpoint, an OwnTracks device id are refused with the words the sync would use.
@Suite struct DestinationValidationTests {
    func mqtt() -> Destination { Destination(name: "home", url: "mqtt://127.0.0.1:1883", wireProtocol: .mqtt) }

    func refusal(_ key: String, _ value: String, in destination: Destination) -> String? {
        var changed = destination
        do throws(SettingsError) {
            try DestinationKey(named: key).set(value, in: &changed, settings: Settings())
            return nil
        } catch {
            return error.description
        }
    }

    @Test(arguments: ["a//b", "$SYS/x", String(repeating: "t", count: 310), "/a", "a/", "a/+/b", "a/#"])
    func topicsTheSenderRefuses(topic: String) throws {
        let message = try #require(refusal("topic", topic, in: mqtt()))
        var expected = ""
        do { _ = try OwnTracksTopic(validating: topic) } catch { expected = error.description }
        #expect(message == expected)
    }

    @Test(arguments: ["mqtt://127.0.0.1:1883/x", "mqtt://h:", "mqtt://u:p@h", "mqtt://h:0", "http://h"])
    func brokerURLsTheSenderRefuses(url: String) throws {
        let message = try #require(refusal("url", url, in: mqtt()))
        var expected = ""
        do { _ = try MQTTBrokerURL(parsing: url) } catch { expected = error.description }
        #expect(message == expected)
    }

    @Test(arguments: ["http://127.0.0.1:/api/webhook/s3cretHookId", "http://h:70000/", "ftp://h/", "http:///x", "http://h /x"])
    func endpointsTheSyncRefuses(url: String) throws {
        let destination = Destination(name: "x", url: "http://127.0.0.1:8080/")
        let message = try #require(refusal("url", url, in: destination))
        var expected = ""
        do { try ReceiverURL.checkHTTP(url) } catch { expected = error.description }
        #expect(message == expected)
        #expect(!message.contains("s3cretHookId"), "a webhook id in the path is a secret (RedactedURL)")
    }

    @Test func deviceIDsWithTwoSlashesForOwnTracksNames() throws {
        #expect(refusal("device_id", "alice/van/2", in: mqtt())?.contains("has more than one '/'") == true)
        var owntracks = Destination(name: "rec", url: "http://127.0.0.1:8083/pub", wireProtocol: .owntracks)
        #expect(refusal("device_id", "alice/van/2", in: owntracks) != nil)
        #expect(refusal("device_id", "alice/van", in: owntracks) == nil)
        // An overland receiver takes it; switching to owntracks then is refused.
        var overland = Destination(name: "ov", url: "http://127.0.0.1:8080/")
        #expect(refusal("device_id", "alice/van/2", in: overland) == nil)
        overland.deviceID = "alice/van/2"
        #expect(refusal("protocol", "owntracks", in: overland)?.contains("has more than one '/'") == true)
        owntracks.deviceID = nil
        #expect(refusal("profile", "owntracks-recorder", in: owntracks) == nil)
    }

    @Test func commandsAndPubRetain() throws {
        var destination = mqtt()
        #expect(destination.commands == .report && destination.pubRetain)
        try DestinationKey(named: "commands").set("all", in: &destination, settings: Settings())
        try DestinationKey(named: "pub_retain").set("false", in: &destination, settings: Settings())
        #expect(destination.commands == .all && !destination.pubRetain)
        #expect(refusal("commands", "some", in: destination)?.contains("none") == true)
        let overland = Destination(name: "ov", url: "http://127.0.0.1:8080/")
        #expect(refusal("commands", "all", in: overland) != nil)
        // Written and read back the same.
        var other = mqtt()
        other.name = "other"
        let bytes = DestinationsFile.encode([destination, other])
        let decoded = try DestinationsFile.decode(bytes, path: "destinations.json")
        #expect(decoded == [destination, other])
    }
}
