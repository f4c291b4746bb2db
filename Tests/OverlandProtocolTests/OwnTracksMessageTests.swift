import OverlandJSON
import Testing
import OverlandProtocol

@Suite struct OwnTracksMessageTests {
    static let identity = OwnTracksIdentity(deviceID: "alice/van")
    static let topic = OwnTracksTopic(deviceID: "alice/van", username: nil)
    static let device = DeviceMetadata(deviceID: "alice/van", batteryState: .unplugged, batteryLevel: 0.8, wifi: "")

    static func messages(_ line: [UInt8], retain: Bool = false) -> [OwnTracksMessage] {
        OwnTracksMessage.messages(forRecord: line[...], identity: identity, topic: topic, retainLocation: retain)
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func locationUsesTheHTTPEncoderWithThePublishTopic() throws {
        let point = FeatureEncodingTests.example
        let messages = Self.messages(point.jsonLine() + [0x0A])
        let message = try #require(messages.first)
        #expect(messages.count == 1)
        #expect(message.topic == "owntracks/alice/van")
        #expect(!message.retained)
        var expected = OwnTracksLocation(point: point, identity: Self.identity)
        expected.topic = "owntracks/alice/van"
        #expect(message.payload == expected.jsonBody())
        #expect(Self.text(message.payload) == #"{"_type":"location","lat":45.490975,"lon":-77.696315,"tst":1443711600,"acc":5,"alt":12,"vel":15,"cog":271,"batt":80,"bs":1,"tid":"an","topic":"owntracks/alice/van"}"#)
    }

    @Test func payloadTopicFollowsACustomTopic() throws {
        let topic = try OwnTracksTopic(validating: "home/trackers/van")
        let messages = OwnTracksMessage.messages(forRecord: FeatureEncodingTests.example.jsonLine()[...],
                                                 identity: Self.identity, topic: topic, retainLocation: true)
        let message = try #require(messages.first)
        #expect(message.topic == "home/trackers/van" && message.retained)
        let json = try JSONParser.parse(message.payload)
        #expect(json["topic"]?.string == "home/trackers/van")
    }

    @Test func wifiMeansConnectivityW() throws {
        var point = FeatureEncodingTests.example
        point.wifi = "home-network"
        let message = OwnTracksMessage.location(point, identity: Self.identity, topic: Self.topic, retained: false)
        #expect(Self.text(message.payload).hasSuffix(#","tid":"an","conn":"w","topic":"owntracks/alice/van"}"#))
        #expect(!Self.text(message.payload).contains("home-network"))
    }

    @Test func answerToReportLocationCarriesTheTrigger() throws {
        let message = OwnTracksMessage.location(FeatureEncodingTests.example, identity: Self.identity, topic: Self.topic,
                                                retained: false, trigger: "r")
        #expect(Self.text(message.payload).hasSuffix(#","tid":"an","t":"r","topic":"owntracks/alice/van"}"#))
        let plain = OwnTracksLocation(point: FeatureEncodingTests.example, identity: Self.identity).jsonBody()
        #expect(!Self.text(plain).contains(#""t":"#), "the HTTP mode's body is unchanged")
    }

    @Test func visitArrivalIsAnEnterTransition() throws {
        let visit = VisitRecord(latitude: 45.490975, longitude: -77.696315, arrival: 1_443_700_000, departure: nil,
                                horizontalAccuracy: 50, device: Self.device)
        let messages = Self.messages(visit.jsonLine())
        let message = try #require(messages.first)
        #expect(messages.count == 1)
        #expect(message.topic == "owntracks/alice/van/event" && !message.retained)
        #expect(Self.text(message.payload) == #"{"_type":"transition","wtst":1443700000,"lat":45.490975,"lon":-77.696315,"tst":1443700000,"acc":50,"event":"enter","desc":"visit","t":"c","tid":"an"}"#)
    }

    @Test func visitDepartureIsALeaveWithTheArrivalAsWaypointTime() throws {
        let visit = VisitRecord(latitude: 45.490975, longitude: -77.696315, arrival: 1_443_700_000,
                                departure: 1_443_711_600, horizontalAccuracy: 50, device: Self.device)
        let message = try #require(Self.messages(visit.jsonLine()).first)
        let json = try JSONParser.parse(message.payload)
        #expect(json["_type"]?.string == "transition")
        #expect(json["event"]?.string == "leave")
        #expect(json["wtst"]?.int == 1_443_700_000)
        #expect(json["tst"]?.int == 1_443_711_600)
        #expect(json["acc"]?.int == 50 && json["desc"]?.string == "visit" && json["t"]?.string == "c")
    }

    @Test func tripsAndActionsHaveNoOwnTracksMessage() {
        let trip = TripRecord(mode: "car", start: 1_443_700_000, end: 1_443_711_600,
                              startLocation: FeatureEncodingTests.example.jsonLine(), endLocation: nil, distance: 1234,
                              stoppedAutomatically: false, longitude: -77.69, latitude: 45.49, device: Self.device)
        #expect(Self.messages(trip.jsonLine()).isEmpty)
        for action in ["paused_location_updates", "resumed_location_updates", "exited_pause_region"] {
            #expect(Self.messages(ActionRecord(action: action, timestamp: 1_443_700_000, device: Self.device).jsonLine()).isEmpty)
        }
    }

    @Test(arguments: ["", "{", "null", "[]", #"{"type":"Feature"}"#, "not json at all",
                      #"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"timestamp":"yesterday"}}"#,
                      #"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,200]},"properties":{"action":"visit","arrival_date":"2015-10-01T15:00:00Z"}}"#,
                      #"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"action":"visit","arrival_date":5}}"#])
    func unreadableRecordsGiveNothing(_ line: String) {
        #expect(Self.messages(Array(line.utf8)).isEmpty)
    }

    @Test func deeplyNestedRecordGivesNothing() {
        let line = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(Self.messages(Array(line.utf8)).isEmpty)
    }

    @Test func lastWill() {
        #expect(Self.text(OwnTracksLWT.payload(tst: 1_443_711_600)) == #"{"_type":"lwt","tst":1443711600}"#)
        #expect(Self.text(OwnTracksLWT.payload(tst: 0)) == #"{"_type":"lwt","tst":0}"#)
    }
}

@Suite struct VisitRecordDecodingTests {
    @Test(arguments: [nil, Int64(1_443_711_600)])
    func roundTrip(_ departure: Int64?) throws {
        let visit = VisitRecord(latitude: -33.8567844, longitude: 151.213108, arrival: 1_443_700_000, departure: departure,
                                horizontalAccuracy: 50, device: OwnTracksMessageTests.device)
        let decoded = try VisitRecord(json: try JSONParser.parse(visit.jsonLine()))
        #expect(decoded == visit)
    }

    @Test func locationsAndTripsAreNotVisits() throws {
        #expect(throws: FeatureDecodingError.notALocation) {
            try VisitRecord(json: try JSONParser.parse(FeatureEncodingTests.example.jsonLine()))
        }
    }
}
