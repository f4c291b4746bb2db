import OverlandJSON
import OverlandProtocol
import Testing

@testable import OverlandProtocol
@testable import OverlandSync

/// The readers: the requests each receiver's read API takes and its answers read into
/// stored points, hostile answers included. The shapes are the receivers' own
/// (docs/receivers.md, "Reading back", cites each source).
@Suite struct ReadBackReaderTests {
    static let t0: Int64 = 1_709_251_200  // 2024-03-01T00:00:00Z

    private func reply(_ text: String, headers: [SyncRequest.Header] = []) -> HTTPReply {
        HTTPReply(status: 200, headers: headers, body: Array(text.utf8))
    }

    // MARK: OwnTracks Recorder (http.c: user, device, from, to; storage.c make_times)

    @Test func recorderAsksPastBothExclusiveBoundsForTheNamesItFiled() {
        let reader = RecorderReader(url: "http://127.0.0.1:8083/api/0/locations", user: "Bob", device: "van 1", token: "bob:s3cret")
        let request = reader.request(from: Self.t0, through: Self.t0 + 59, page: 0)
        #expect(request.method == "GET")
        #expect(request.body.isEmpty)
        // storage.c skips `secs <= from || secs >= to`: a second either side includes the
        // first point (00:00:00) and the last; util.c filed "van 1" as "van-1".
        #expect(request.url == "http://127.0.0.1:8083/api/0/locations?user=bob&device=van-1"
                + "&from=2024-02-29T23%3A59%3A59&to=2024-03-01T00%3A01%3A00&fields=tst%2Clat%2Clon")
        #expect(request.header("Authorization") == "Basic Ym9iOnMzY3JldA==")
        #expect(request.replyLimit == 32 << 20, "an answer may hold more than an acknowledgement's 1 MiB")
    }

    @Test(arguments: [("alice", "alice"), ("Alice", "alice"), ("My Van", "my-van"), ("my_van.2", "my-van-2"), ("Zoë", "zo--"),
                      ("VAN-1", "van-1")])
    func recorderNamesAsUtilCFilesThem(_ name: String, _ filed: String) {
        #expect(RecorderReader.filed(name) == filed)
    }

    @Test func recorderAnswerKeepsLocationsAndLeavesOtherRecordsOut() throws {
        let reader = RecorderReader(url: "http://h/api/0/locations", user: "bob", device: "van", token: nil)
        let page = try reader.parse(reply(#"{"data":[{"_type":"location","tst":1709251200,"lat":45.5,"lon":-77.7,"isotst":"x"},"#
                                          + #"{"_type":"transition","tst":1709251201},{"tst":1709251202,"lat":"91","lon":0}],"status":200}"#), page: 0)
        #expect(page.points == [StoredPoint(time: Self.t0, latitude: 45.5, longitude: -77.7)])
        #expect(!page.hasMore)
        #expect(reader.request(from: Self.t0, through: Self.t0, page: 0).header("Authorization") == nil)
    }

    @Test(arguments: ["", "[]", #"{"data":{}}"#, #"{"data":"#, String(repeating: "[", count: 5000)])
    func recorderRefusesAnAnswerWithoutData(_ body: String) {
        let reader = RecorderReader(url: "http://h/api/0/locations", user: "bob", device: "van", token: nil)
        #expect(throws: ReadBackError.self) { try reader.parse(reply(body), page: 0) }
    }

    // MARK: Dawarich (points_controller.rb: start_at, end_at, page, per_page, X-Total-Pages)

    @Test func dawarichPagesUntilTheLastAndReadsStringCoordinates() throws {
        let reader = DawarichReader(url: "https://d.example/api/v1/points", apiKey: "k&y", perPage: 2)
        let request = reader.request(from: Self.t0, through: Self.t0 + 10, page: 1)
        #expect(request.url == "https://d.example/api/v1/points?api_key=k%26y&start_at=2024-03-01T00%3A00%3A00Z"
                + "&end_at=2024-03-01T00%3A00%3A10Z&page=2&per_page=2&order=asc")
        let body = #"[{"id":1,"timestamp":1709251200,"latitude":"45.5","longitude":"-77.7"},{"timestamp":1709251201.9,"latitude":45.6,"longitude":-77.6}]"#
        let first = try reader.parse(reply(body, headers: [.init("X-Current-Page", "1"), .init("X-Total-Pages", "3")]), page: 0)
        #expect(first.hasMore)
        #expect(first.points.count == 2)
        #expect(first.points.last?.time == Self.t0 + 1, "a fraction is cut to its second")
        let last = try reader.parse(reply(body, headers: [.init("X-Total-Pages", "3")]), page: 2)
        #expect(!last.hasMore)
        #expect(try !reader.parse(reply("[]", headers: [.init("X-Total-Pages", "99")]), page: 0).hasMore, "an empty page ends it")
    }

    // MARK: Traccar (PositionResource.java: deviceId, from, to)

    @Test func traccarLooksTheDeviceUpThenReadsItsPositions() throws {
        let reader = TraccarReader(origin: "http://t:8082", uniqueID: "van", token: "admin:pw")
        let setup = try #require(reader.setupRequest())
        #expect(setup.url == "http://t:8082/api/devices?uniqueId=van")
        let resolved = try reader.resolved(by: reply(#"[{"id":7,"uniqueId":"van","name":"Van"}]"#))
        #expect(resolved.setupRequest() == nil)
        #expect(resolved.request(from: Self.t0, through: Self.t0 + 9, page: 0).url
                == "http://t:8082/api/positions?deviceId=7&from=2024-03-01T00%3A00%3A00Z&to=2024-03-01T00%3A00%3A10Z")
        let page = try resolved.parse(reply(#"[{"deviceId":7,"fixTime":"2024-03-01T01:00:00.000+01:00","latitude":45.5,"longitude":-77.7}]"#), page: 0)
        #expect(page.points == [StoredPoint(time: Self.t0, latitude: 45.5, longitude: -77.7)])
        #expect(throws: ReadBackError.self) { try reader.resolved(by: reply(#"[{"id":7,"uniqueId":"car"}]"#)) }
    }

    // MARK: Home Assistant (history/__init__.py: /api/history/period/{datetime}, filter_entity_id, end_time)

    @Test func homeAssistantFindsTheTrackerByItsDeviceIdentifierFirst() throws {
        let reader = HomeAssistantReader(origin: "http://ha:8123", user: "Bob", device: "Van-1", token: "LLAT")
        let lookup = try #require(reader.setupRequest())
        #expect(lookup.method == "POST" && lookup.url == "http://ha:8123/api/template" && lookup.header("Authorization") == "Bearer LLAT")
        let template = try #require(try JSONParser.parse(lookup.body)["template"]?.string)
        #expect(template.contains("integration_entities('owntracks')") && template.contains("('owntracks', 'bob_van_1') in"))
        #expect(template.contains("expand('device_tracker.bob_van_1')"))
        // A decoy holds device_tracker.bob_van_1: Home Assistant named the device's tracker _2.
        let resolved = try #require(try reader.resolved(by: reply(#"{"ours":["device_tracker.bob_van_1_2"],"taken":["device_tracker.bob_van_1"]}"#))
                                    as? HomeAssistantReader)
        #expect(resolved.entityID == "device_tracker.bob_van_1_2" && resolved.setupRequest() == nil)
        #expect(resolved.request(from: Self.t0, through: Self.t0, page: 0).url.contains("filter_entity_id=device_tracker.bob_van_1_2&"))
        #expect(throws: ReadBackError("Home Assistant has no tracker of the owntracks integration for this device "
                                      + "(device identifier bob_van_1) yet; device_tracker.bob_van_1 is another entity, not read")) {
            try reader.resolved(by: reply(#"{"ours":[],"taken":["device_tracker.bob_van_1"]}"#))
        }
        #expect(throws: ReadBackError.self) { try reader.resolved(by: reply(#"["device_tracker.bob_van_1"]"#)) }
        #expect(HomeAssistantReader.jinjaString("a'b }}{{ c") == "'abc'", "nothing from a device id ends the string")
    }

    @Test func homeAssistantReadsTheTrackersHistoryWithAttributes() throws {
        let reader = HomeAssistantReader(origin: "http://ha:8123", entityID: "device_tracker.bob_van_1", token: "LLAT")
        #expect(reader.setupRequest() == nil)
        let request = reader.request(from: Self.t0, through: Self.t0 + 59, page: 0)
        #expect(request.url == "http://ha:8123/api/history/period/2024-03-01T00:00:00Z?filter_entity_id=device_tracker.bob_van_1"
                + "&end_time=2024-03-01T00%3A01%3A00Z&significant_changes_only=0")
        #expect(request.header("Authorization") == "Bearer LLAT")
        #expect(!reader.keepsFixTime)
        let body = #"[[{"entity_id":"device_tracker.bob_van_1","state":"not_home","attributes":{"source_type":"gps","latitude":45.5,"#
            + #""longitude":-77.7,"gps_accuracy":5,"battery_level":80},"last_changed":"2024-03-01T00:00:00+00:00","#
            + #""last_updated":"2024-03-01T00:00:03.512345+00:00"},{"entity_id":"device_tracker.bob_van_1","state":"unavailable","attributes":{}}]]"#
        let page = try reader.parse(reply(body), page: 0)
        #expect(page.points == [StoredPoint(time: Self.t0 + 3, latitude: 45.5, longitude: -77.7)])
    }

    // MARK: Compass (Api.php query: token, start, end, format)

    @Test func compassReadsFeaturesWithTheirDevice() throws {
        let reader = CompassReader(origin: "https://c.example", readToken: "R")
        #expect(reader.request(from: Self.t0, through: Self.t0 + 1, page: 0).url
                == "https://c.example/api/query?token=R&start=2024-03-01T00%3A00%3A00Z&end=2024-03-01T00%3A00%3A01Z&format=full")
        let body = #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[-77.7,45.5]},"#
            + #""properties":{"timestamp":"2024-03-01T00:00:00Z","device_id":"van"}},{"geometry":null,"properties":{"action":"x"}}]}"#
        #expect(try reader.parse(reply(body), page: 0).points == [StoredPoint(time: Self.t0, latitude: 45.5, longitude: -77.7, device: "van")])
        #expect(throws: ReadBackError("Compass answered 'invalid token'")) { try reader.parse(reply(#"{"error":"invalid token"}"#), page: 0) }
    }

    // MARK: Shared parts

    @Test(arguments: [
        ("2024-03-01T00:00:00Z", Optional<Int64>(1_709_251_200)), ("2024-03-01T00:00:00.999Z", 1_709_251_200),
        ("2024-03-01T02:30:00+02:30", 1_709_251_200), ("2024-02-29T19:00:00-05:00", 1_709_251_200),
        ("2024-03-01T00:00:00", nil), ("2024-03-01T00:00:00+24:00", nil), ("garbage", nil),
        ("2024-03-01T00:00:00.Z", 1_709_251_200), (String(repeating: "9", count: 80), nil),
    ])
    func isoTimes(_ text: String, _ expected: Int64?) {
        #expect(ReadBackHTTP.isoSeconds(text) == expected)
    }

    @Test func hostileNumbersAreLeftOutNotTrapped() throws {
        let reader = RecorderReader(url: "http://h/x", user: "u", device: "d", token: nil)
        #expect(throws: ReadBackError.self, "a number past a double: the whole answer is refused") {
            try reader.parse(reply(#"{"data":[{"tst":1,"lat":1e999,"lon":1}]}"#), page: 0)
        }
        let body = #"{"data":[{"tst":1e300,"lat":1,"lon":1},{"tst":-1e300,"lat":1,"lon":1},{"tst":1,"lat":1e200,"lon":1},"#
            + #"{"tst":1,"lat":null,"lon":1},{"tst":"x","lat":1,"lon":1},{"tst":1,"lat":-90,"lon":180}]}"#
        #expect(try reader.parse(reply(body), page: 0).points == [StoredPoint(time: 1, latitude: -90, longitude: 180)])
    }

    @Test func originDropsPathQueryAndUserInformation() {
        #expect(ReadBackHTTP.origin(of: "https://bob:pw@r.example:8443/pub?u=bob#x") == "https://r.example:8443")
        #expect(ReadBackHTTP.origin(of: "http://127.0.0.1:8083") == "http://127.0.0.1:8083")
    }

    // MARK: Which reader

    @Test func readersFollowProfileAndProtocol() throws {
        var configuration = SyncConfiguration(endpoint: "http://127.0.0.1:8083/pub", token: "bob:pw", deviceID: "van")
        configuration.wireProtocol = .owntracks
        configuration.profile = .owntracksRecorder
        let recorder = try #require(try ReadBackReaders.reader(for: configuration, verifyURL: nil, verifyToken: nil) as? RecorderReader)
        #expect(recorder.url == "http://127.0.0.1:8083/api/0/locations")
        #expect(recorder.user == "bob" && recorder.device == "van", "the Basic user completes a device id without '/'")
        let elsewhere = try #require(try ReadBackReaders.reader(for: configuration, verifyURL: "https://rec.example/ot/", verifyToken: nil) as? RecorderReader)
        #expect(elsewhere.url == "https://rec.example/ot/api/0/locations")

        configuration.profile = .homeAssistant
        #expect(throws: ReadBackError.self) { try ReadBackReaders.reader(for: configuration, verifyURL: nil, verifyToken: nil) }
        configuration.wireProtocol = .overland
        configuration.profile = .wayfinder
        #expect(throws: ReadBackError(ReadBackSupport.problem(protocol: .overland, profile: .wayfinder)!)) {
            try ReadBackReaders.reader(for: configuration, verifyURL: nil, verifyToken: nil)
        }
        configuration.profile = .none
        #expect(throws: ReadBackError.self) { try ReadBackReaders.reader(for: configuration, verifyURL: nil, verifyToken: nil) }
    }

    // MARK: mqtt destinations

    /// The reader of an mqtt destination publishing on `topic`, as its sender's route asks.
    private func brokerReader(topic: String, discovery: ReadBackTarget.Discovery?, verifyURL: String?,
                              verifyToken: String?) throws(ReadBackError) -> any ReadBackReader {
        var configuration = SyncConfiguration(endpoint: "mqtt://127.0.0.1:1883", token: "broker-pw", deviceID: "van")
        configuration.wireProtocol = .mqtt
        return try ReadBackReaders.reader(for: configuration, verifyURL: verifyURL, verifyToken: verifyToken,
                                          broker: ReadBackTarget.Broker(topic: topic, discovery: discovery))
    }

    @Test func brokerReadersFollowDiscoveryAndNeedVerifyURL() throws {
        let recorder = try #require(try brokerReader(topic: "owntracks/alice/van", discovery: nil,
                                                     verifyURL: "http://rec.example:8083/", verifyToken: nil) as? RecorderReader)
        #expect(recorder.url == "http://rec.example:8083/api/0/locations")
        #expect(recorder.user == "alice" && recorder.device == "van", "the topic's second and third level, as the Recorder files it")
        #expect(recorder.token == nil, "the broker's password is not the Recorder's")
        let deeper = try #require(try brokerReader(topic: "/fleet/Bob/truck/extra", discovery: nil,
                                                   verifyURL: "http://r", verifyToken: "u:p") as? RecorderReader)
        #expect(deeper.user == "bob" && deeper.device == "truck" && deeper.token == "u:p", "as the Recorder files them")
        #expect(throws: ReadBackError.self) {
            try brokerReader(topic: "vans/van", discovery: nil, verifyURL: "http://r", verifyToken: nil)
        }

        let discovery = ReadBackTarget.Discovery(objectID: "owntracks_alice_van", identifier: "overland_owntracks_alice_van")
        let home = try #require(try brokerReader(topic: "owntracks/alice/van", discovery: discovery,
                                                 verifyURL: "http://ha:8123", verifyToken: "LLAT") as? HomeAssistantReader)
        #expect(home.entityID == "device_tracker.owntracks_alice_van" && home.origin == "http://ha:8123")
        #expect(home.tracker == HomeAssistantReader.Tracker(integration: "mqtt", identifier: "overland_owntracks_alice_van"))
        #expect(throws: ReadBackError.self) {
            try brokerReader(topic: "owntracks/alice/van", discovery: discovery, verifyURL: "http://ha:8123", verifyToken: nil)
        }
        let problem = try #require(ReadBackSupport.problem(protocol: .mqtt, profile: .none))
        #expect(problem.contains("set verify_url"))
        #expect(ReadBackSupport.problem(protocol: .mqtt, profile: .none, verifyURL: "http://r") == nil)
        #expect(throws: ReadBackError(problem)) {
            try brokerReader(topic: "owntracks/alice/van", discovery: nil, verifyURL: nil, verifyToken: nil)
        }
    }
}
