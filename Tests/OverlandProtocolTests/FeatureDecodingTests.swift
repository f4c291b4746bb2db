import OverlandJSON
import Testing
import OverlandProtocol

@Suite struct FeatureDecodingTests {
    static let roundTripFeatures: [LocationFeature] = [
        FeatureEncodingTests.example,
        LocationFeature(longitude: 0, latitude: 0, timestamp: 0),
        LocationFeature(longitude: -180, latitude: -90, timestamp: 253_402_300_799, altitude: -430, speed: 0,
            course: 0, horizontalAccuracy: 0, verticalAccuracy: 0, speedAccuracy: 0, courseAccuracy: 0,
            motion: Motion.allCases, batteryState: .full, batteryLevel: 1, wifi: "", deviceID: ""),
        LocationFeature(longitude: 179.9999999, latitude: 89.9999999, timestamp: 1_700_000_000, altitude: 8_848,
            speed: 250.75, course: 359, horizontalAccuracy: 4_000, verticalAccuracy: 3, speedAccuracy: 1.25,
            courseAccuracy: 0.01, motion: [.cycling], batteryState: .charging, batteryLevel: 0.05,
            wifi: "ünïcödé ☕️ 网络", deviceID: "bike/黄", uniqueID: "", tripID: "2023-12-05T16:50:25Z"),
        LocationFeature(longitude: 13.4049537, latitude: 52.5200066, timestamp: 1_443_711_601,
            wifi: "quote \" backslash \\ slash / tab \t newline \n nul \u{0} del \u{7F}",
            deviceID: "\"van\"\\", uniqueID: "id\u{1F}x",
            trackingStats: TrackingStats(pauses: false, activity: "automotive_navigation", desiredAccuracy: -1,
                deferred: 100, significantChange: "exclusive", locationsInPayload: 12)),
        LocationFeature(longitude: -0.0000001, latitude: 0.0000001, timestamp: 1, speed: 0.01, batteryLevel: 0.99,
            deviceID: String(repeating: "x", count: 50), trackingStats: TrackingStats()),
    ]

    @Test(arguments: roundTripFeatures)
    func roundTrips(feature: LocationFeature) throws {
        let line = feature.jsonLine()
        #expect(try LocationFeature(jsonLine: line) == feature)
        #expect(try LocationFeature(jsonLine: line + [0x0A]) == feature)
        #expect(try LocationFeature(json: JSONParser.parse(line)) == feature)
    }

    @Test func readsKnownLine() throws {
        let line = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-122.030581,37.331800]},"properties":{"timestamp":"2015-10-01T15:00:00.123+00:00","altitude":34.0,"speed":4.2,"course":270.6,"horizontal_accuracy":5,"vertical_accuracy":8,"speed_accuracy":0.5,"course_accuracy":4,"motion":["driving","flying"],"battery_state":"sleeping","battery_level":0.8,"wifi":"","device_id":"van","extra":[1,2]}}"#
        let feature = try LocationFeature(jsonLine: Array(line.utf8))
        #expect(feature.longitude == -122.030581 && feature.latitude == 37.3318)
        #expect(feature.timestamp == 1_443_711_600)
        #expect(feature.altitude == 34 && feature.course == 271)
        #expect(feature.motion == [.driving])
        #expect(feature.batteryState == .unknown)
        #expect(feature.uniqueID == nil && feature.tripID == nil && feature.trackingStats == nil)
    }

    @Test func missingAlwaysPresentKeysReadAsUnknown() throws {
        let line = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[1.5,2.5,100]},"properties":{"timestamp":"1970-01-01T00:00:10Z","wifi":null}}"#
        #expect(try LocationFeature(jsonLine: line.utf8) == LocationFeature(longitude: 1.5, latitude: 2.5, timestamp: 10))
    }

    static let refused: [(String, FeatureDecodingError)] = [
        (#"{"type":"Feature""#, .invalidJSON(JSONError(.unexpectedEnd, at: 17))),
        (#"[]"#, .notAFeature),
        (#"{"type":"FeatureCollection","features":[]}"#, .notAFeature),
        (#"{"type":"Feature","geometry":{"type":"LineString","coordinates":[[1,2],[3,4]]},"properties":{}}"#, .notAFeature),
        (#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1]},"properties":{}}"#, .notAFeature),
        (#"{"type":"Feature","geometry":{"type":"Point","coordinates":["1",2]},"properties":{}}"#, .invalidValue(key: "coordinates")),
        (#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]}}"#, .missingKey("properties")),
        (#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{}}"#, .missingKey("timestamp")),
        (#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"timestamp":1443711600}}"#, .invalidValue(key: "timestamp")),
        (#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"timestamp":"2015-10-01 15:00:00"}}"#, .invalidValue(key: "timestamp")),
        (#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"timestamp":"2015-10-01T15:00:00Z","speed":"4"}}"#, .invalidValue(key: "speed")),
        (#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"timestamp":"2015-10-01T15:00:00Z","altitude":1e300}}"#, .invalidValue(key: "altitude")),
        (#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"timestamp":"2015-10-01T15:00:00Z","motion":"driving"}}"#, .invalidValue(key: "motion")),
        (#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"timestamp":"2015-10-01T15:00:00Z","device_id":7}}"#, .invalidValue(key: "device_id")),
        (#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"timestamp":"2015-10-01T15:00:00Z","pauses":"yes"}}"#, .invalidValue(key: "pauses")),
        (#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"type":"trip","mode":"car","timestamp":"2015-10-01T15:00:00Z"}}"#, .notALocation),
        (#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"action":"visit","timestamp":"2015-10-01T15:00:00Z"}}"#, .notALocation),
    ]

    @Test(arguments: refused)
    func refuses(line: String, expected: FeatureDecodingError) {
        #expect(throws: expected) { try LocationFeature(jsonLine: line.utf8) }
    }

    @Test func errorDescriptions() {
        #expect(FeatureDecodingError.invalidValue(key: "timestamp").description == "invalid value for key 'timestamp'")
        #expect(FeatureDecodingError.invalidJSON(JSONError(.unexpectedEnd, at: 3)).description == "invalid json: unexpected end of input at offset 3")
    }
}

extension LocationFeature: CustomTestStringConvertible {
    public var testDescription: String {
        String(decoding: jsonLine(), as: UTF8.self)
    }
}
