import OverlandJSON
import OverlandProtocol
import Testing

/// The receivers: each protocol's batch rule, encoding and acknowledgement.
@Suite struct ReceiverTests {
    static let point = LocationFeature(
        longitude: -77.6963150, latitude: 45.4909750, timestamp: 1_443_711_600, altitude: 12, speed: 4.25,
        course: 271, horizontalAccuracy: 5, verticalAccuracy: 8, speedAccuracy: 0.5, courseAccuracy: 4,
        motion: [.driving], batteryState: .unplugged, batteryLevel: 0.8, wifi: "", deviceID: "van")
    static var line: [UInt8] { point.jsonLine(options: .standard) }
    static let tripLine = Array(#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"type":"trip","timestamp":"2015-10-01T15:00:00Z"}}"#.utf8)

    static func request(_ wireProtocol: WireProtocol, _ options: ReceiverOptions, lines: [[UInt8]] = [line]) throws -> ReceiverRequest {
        let receiver = try #require(Receivers.receiver(for: wireProtocol, options: options))
        var encoder = receiver.makeEncoder()
        for line in lines { _ = encoder.append(line[...]) }
        return encoder.finish(current: nil, newest: nil)
    }

    static func object(_ request: ReceiverRequest) throws -> JSONValue {
        try JSONParser.parse(request.body, limits: JSONLimits(maxDepth: 8, maxBytes: 1 << 20))
    }

    // MARK: - The table and the batch rules

    @Test func everyHTTPProtocolHasItsReceiverAndMQTTIsLeftForItsSender() {
        let options = ReceiverOptions(endpoint: "http://127.0.0.1/")
        #expect(Receivers.receiver(for: .overland, options: options)?.wireProtocol == .overland)
        #expect(Receivers.receiver(for: .owntracks, options: options)?.wireProtocol == .owntracks)
        #expect(Receivers.receiver(for: .traccar, options: options)?.wireProtocol == .traccar)
        #expect(Receivers.receiver(for: .mqtt, options: options) == nil)
    }

    @Test func batchRulesAndAcknowledgements() throws {
        var options = ReceiverOptions(endpoint: "http://127.0.0.1/", batchSize: 500)
        let overland = try #require(Receivers.receiver(for: .overland, options: options))
        #expect(overland.batchRule == .batches(size: 500) && overland.acknowledgement == .resultOK)
        let owntracks = try #require(Receivers.receiver(for: .owntracks, options: options))
        #expect(owntracks.batchRule == .onePerRequest && owntracks.acknowledgement == .any2xx)
        let traccar = try #require(Receivers.receiver(for: .traccar, options: options))
        #expect(traccar.batchRule == .onePerRequest && traccar.acknowledgement == .status200)
        options.newestOnly = true
        options.consider2xxSuccessful = true
        for wireProtocol in [WireProtocol.overland, .owntracks, .traccar] {
            #expect(Receivers.receiver(for: wireProtocol, options: options)?.batchRule == .newestOnly)
        }
        #expect(Receivers.receiver(for: .overland, options: options)?.acknowledgement == .any2xx)
    }

    @Test func receiversOfLocationsRefuseTripsAndCarryOnePoint() throws {
        for wireProtocol in [WireProtocol.owntracks, .traccar] {
            let receiver = try #require(Receivers.receiver(for: wireProtocol, options: ReceiverOptions(endpoint: "http://h/", deviceID: "van")))
            var encoder = receiver.makeEncoder()
            let trip = encoder.append(Self.tripLine[...])
            let point = encoder.append(Self.line[...])
            let second = encoder.append(Self.line[...])
            #expect(!trip && point)
            #expect(!second, "one point per request")
            #expect(encoder.count == 1)
            encoder.reset()
            #expect(encoder.count == 0)
        }
        let overland = try #require(Receivers.receiver(for: .overland, options: ReceiverOptions(endpoint: "http://h/")))
        var encoder = overland.makeEncoder()
        let trip = encoder.append(Self.tripLine[...])
        let point = encoder.append(Self.line[...])
        #expect(trip && point && encoder.count == 2)
    }

    // MARK: - Overland

    @Test func overlandWritesStoredLinesWithBearerToken() throws {
        let request = try Self.request(.overland, ReceiverOptions(endpoint: "http://h/overland", token: "t0k"))
        #expect(String(decoding: request.body, as: UTF8.self) == #"{"locations":["# + String(decoding: Self.line, as: UTF8.self) + "]}")
        #expect(request.header("Authorization") == "Bearer t0k")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.url == "http://h/overland")
    }

    @Test func overlandExpandsPlaceholdersFromTheLastPointWhenNoNewerIsKnown() throws {
        let request = try Self.request(.overland, ReceiverOptions(endpoint: "http://h/in?lat=%LAT&lon=%LON"))
        #expect(request.url == "http://h/in?lat=45.490975&lon=-77.696315", "\(request.url)")
    }

    @Test func dawarichTakesTheKeyAsApiKeyAndNoHeader() throws {
        let options = ReceiverOptions(endpoint: "https://d.example/api/v1/overland/batches", token: "k/1", profile: .dawarich)
        let request = try Self.request(.overland, options)
        #expect(request.url == "https://d.example/api/v1/overland/batches?api_key=k%2F1")
        #expect(request.header("Authorization") == nil)
        let owntracks = try Self.request(.owntracks, ReceiverOptions(endpoint: "https://d.example/api/v1/owntracks/points?api_key=mine",
                                                                      token: "k", deviceID: "alice/phone", profile: .dawarich))
        #expect(owntracks.url == "https://d.example/api/v1/owntracks/points?api_key=mine", "a key in the url stays")
        #expect(owntracks.header("Authorization") == nil)
    }

    // MARK: - OwnTracks

    @Test func ownTracksSendsOneMessageWithBasicAuthAndLimitHeaders() throws {
        let request = try Self.request(.owntracks, ReceiverOptions(endpoint: "http://h/pub", token: "alice:pw", deviceID: "alice/phone"))
        #expect(String(decoding: request.body, as: UTF8.self) == #"{"_type":"location","lat":45.490975,"lon":-77.696315,"tst":1443711600,"acc":5,"alt":12,"vel":15,"cog":271,"batt":80,"bs":1,"tid":"ne","topic":"owntracks/alice/phone"}"#)
        #expect(request.header("Authorization") == "Basic YWxpY2U6cHc=")
        #expect(request.header("X-Limit-U") == "alice" && request.header("X-Limit-D") == "phone")
        #expect(request.url == "http://h/pub")
    }

    @Test func homeAssistantGetsATopicWithUserAndDevice() throws {
        let bare = try Self.object(Self.request(.owntracks, ReceiverOptions(endpoint: "http://h/api/webhook/abc", deviceID: "van")))
        #expect(bare["topic"]?.string == "owntracks/van", "without the profile, as configured")
        let request = try Self.request(.owntracks, ReceiverOptions(endpoint: "http://h/api/webhook/abc", deviceID: "van", profile: .homeAssistant))
        #expect(try Self.object(request)["topic"]?.string == "owntracks/van/van")
        #expect(request.header("X-Limit-U") == "van" && request.header("X-Limit-D") == "van")
        let full = try Self.request(.owntracks, ReceiverOptions(endpoint: "http://h/api/webhook/abc", deviceID: "alice/phone", profile: .homeAssistant))
        #expect(try Self.object(full)["topic"]?.string == "owntracks/alice/phone")
    }

    @Test func recorderGetsUserAndDeviceInTheQueryToo() throws {
        let request = try Self.request(.owntracks, ReceiverOptions(endpoint: "http://h/pub", token: "bob:secret", deviceID: "van",
                                                                   profile: .owntracksRecorder))
        #expect(request.url == "http://h/pub?u=bob&d=van")
        #expect(request.header("X-Limit-U") == "bob" && request.header("X-Limit-D") == "van")
        #expect(request.header("Authorization") == "Basic Ym9iOnNlY3JldA==")
        #expect(try Self.object(request)["topic"]?.string == "owntracks/bob/van")
    }

    // MARK: - Traccar

    @Test func traccarBodyHasTheOsmAndJSONFieldsInTheirUnits() throws {
        let request = try Self.request(.traccar, ReceiverOptions(endpoint: "http://h:5055/", deviceID: "van"))
        #expect(String(decoding: request.body, as: UTF8.self) == #"{"location":{"timestamp":"2015-10-01T15:00:00Z","coords":{"latitude":45.490975,"longitude":-77.696315,"accuracy":5,"speed":4.25,"heading":271,"altitude":12},"is_moving":true,"battery":{"level":0.8,"is_charging":false}},"device_id":"van"}"#)
        #expect(request.header("Content-Type") == "application/json", "selects the decoder's json branch")
        #expect(request.header("Authorization") == nil)
    }

    @Test func traccarUnknownsAreNegativeAndMotionFollowsThePoint() {
        var point = Self.point
        point.speed = -1
        point.course = -1
        point.horizontalAccuracy = -1
        point.motion = []
        point.batteryState = .unknown
        var position = TraccarPosition(point: point, deviceID: "x")
        #expect(position.speed == -1 && position.heading == -1 && position.accuracy == -1)
        #expect(position.batteryLevel == -1 && !position.isCharging && !position.isMoving)
        point.motion = [.stationary]
        point.speed = 3
        #expect(!TraccarPosition(point: point, deviceID: "x").isMoving, "stationary says so")
        point.motion = []
        #expect(TraccarPosition(point: point, deviceID: "x").isMoving, "unknown motion: the speed decides")
        point.batteryState = .full
        point.batteryLevel = 1
        position = TraccarPosition(point: point, deviceID: "x")
        #expect(position.isCharging && position.batteryLevel == 1)
        let text = String(decoding: position.jsonBody(), as: UTF8.self)
        #expect(text.contains(#""battery":{"level":1,"is_charging":true}"#), "\(text)")
    }

    @Test func traccarAcknowledgesOnly200() {
        #expect(Reply(status: 200, body: [UInt8](), acknowledgement: .status200).isDelivered)
        #expect(!Reply(status: 202, body: Array(#"{"result":"ok"}"#.utf8), acknowledgement: .status200).isDelivered)
        #expect(!Reply(status: 400, body: [UInt8](), acknowledgement: .status200).isDelivered)
        if case .wrongEndpoint = Reply(status: 404, body: [UInt8](), acknowledgement: .status200).outcome {} else {
            Issue.record("404 (an unknown device) is a configuration error")
        }
    }
}
