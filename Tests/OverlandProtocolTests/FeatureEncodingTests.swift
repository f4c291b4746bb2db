import OverlandJSON
import Testing
import OverlandProtocol

@Suite struct FeatureEncodingTests {
    /// The example Feature of the protocol reference, section 1.
    static let example = LocationFeature(
        longitude: -77.6963150, latitude: 45.4909750, timestamp: 1_443_711_600, altitude: 12, speed: 4.25,
        course: 271, horizontalAccuracy: 5, verticalAccuracy: 8, speedAccuracy: 0.5, courseAccuracy: 4,
        motion: [.driving], batteryState: .unplugged, batteryLevel: 0.8, wifi: "", deviceID: "van")

    static func line(_ feature: LocationFeature, options: FeatureEncodingOptions = .standard) -> String {
        String(decoding: feature.jsonLine(options: options), as: UTF8.self)
    }

    @Test func exampleFeatureByteForByte() {
        #expect(Self.line(Self.example) == #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-77.696315,45.490975]},"properties":{"timestamp":"2015-10-01T15:00:00Z","altitude":12,"speed":4.25,"course":271,"horizontal_accuracy":5,"vertical_accuracy":8,"speed_accuracy":0.5,"course_accuracy":4,"motion":["driving"],"battery_state":"unplugged","battery_level":0.8,"wifi":"","device_id":"van"}}"#)
    }

    @Test func unknownsAndOptionalKeysByteForByte() {
        let feature = LocationFeature(
            longitude: 2.2945, latitude: 48.8584, timestamp: 1_701_795_025, altitude: -3,
            motion: [], batteryState: .unknown, batteryLevel: 0, wifi: "Café \"Wi-Fi\" \\ 😀",
            deviceID: "alice/phone", uniqueID: "5B6E0C2A-1F3D-4E8B-9A7C-0D1E2F3A4B5C", tripID: "2023-12-05T16:50:25Z")
        #expect(Self.line(feature) == #"{"type":"Feature","geometry":{"type":"Point","coordinates":[2.2945,48.8584]},"properties":{"timestamp":"2023-12-05T16:50:25Z","altitude":-3,"speed":-1,"course":-1,"horizontal_accuracy":-1,"vertical_accuracy":-1,"speed_accuracy":-1,"course_accuracy":-1,"motion":[],"battery_state":"unknown","battery_level":0,"wifi":"Café \"Wi-Fi\" \\ 😀","device_id":"alice/phone","unique_id":"5B6E0C2A-1F3D-4E8B-9A7C-0D1E2F3A4B5C","trip_id":"2023-12-05T16:50:25Z"}}"#)
    }

    @Test func trackingStatsAndReceiverQuirksByteForByte() {
        var feature = Self.example
        feature.speed = 4.5
        feature.speedAccuracy = 0.26
        feature.courseAccuracy = 12.349
        feature.motion = [.walking, .stationary]
        feature.batteryState = .charging
        feature.batteryLevel = 0.456
        feature.trackingStats = TrackingStats(
            pauses: true, activity: "fitness", desiredAccuracy: 10, deferred: 0, significantChange: "enabled",
            locationsInPayload: 3)
        let expectedTail = #","motion":["walking","stationary"],"battery_state":"charging","battery_level":0.46,"wifi":"","device_id":"van","pauses":true,"activity":"fitness","desired_accuracy":10,"deferred":0,"significant_change":"enabled","locations_in_payload":3}}"#
        let standard = Self.line(feature)
        #expect(standard.contains(#""speed":4.5,"#))
        #expect(standard.contains(#""speed_accuracy":0.26,"course_accuracy":12.35"#))
        #expect(standard.hasSuffix(expectedTail))
        let wayfinder = Self.line(feature, options: .wayfinder)
        #expect(wayfinder.contains(#""speed":5,"#))
        #expect(wayfinder.contains(#""speed_accuracy":1,"course_accuracy":12"#), "a known accuracy is never 0 (issue 22)")
        #expect(wayfinder.hasSuffix(expectedTail))
        let speedOnly = Self.line(feature, options: FeatureEncodingOptions(integerSpeed: true))
        #expect(speedOnly.contains(#""speed":5,"course":271,"#))
        #expect(speedOnly.contains(#""speed_accuracy":0.26,"#))
        var unknownSpeed = feature
        unknownSpeed.speed = -1
        #expect(Self.line(unknownSpeed, options: .wayfinder).contains(#""speed":-1,"#))
    }

    @Test func unusableValuesAreMappedNotWrittenRaw() throws {
        var feature = Self.example
        feature.longitude = .nan
        feature.speed = .infinity
        feature.speedAccuracy = -0.3
        feature.courseAccuracy = .nan
        feature.course = -7
        feature.horizontalAccuracy = -2
        feature.batteryLevel = 1.7
        let text = Self.line(feature)
        #expect(text.contains(#""coordinates":[0,45.490975]"#))
        #expect(text.contains(#""speed":-1,"course":-1,"horizontal_accuracy":-1,"#))
        #expect(text.contains(#""speed_accuracy":-1,"course_accuracy":-1,"#))
        #expect(text.contains(#""battery_level":1,"#))
        feature.batteryLevel = -.nan
        #expect(Self.line(feature).contains(#""battery_level":0,"#))
        feature.batteryLevel = -0.2
        #expect(Self.line(feature).contains(#""battery_level":0,"#))
    }

    @Test func appendsToTheCallersBufferWithoutNewline() {
        var buffer = Array("previous\n".utf8)
        Self.example.encodeJSONLine(into: &buffer)
        #expect(buffer.starts(with: Array("previous\n{".utf8)))
        #expect(buffer.last == UInt8(ascii: "}"))
        #expect(!buffer.dropFirst(9).contains(UInt8(ascii: "\n")))
        #expect(Array(buffer.dropFirst(9)) == Self.example.jsonLine())
    }

    static let alwaysPresent = [
        "timestamp", "altitude", "speed", "course", "horizontal_accuracy", "vertical_accuracy", "speed_accuracy",
        "course_accuracy", "motion", "battery_state", "battery_level", "wifi", "device_id",
    ]

    /// Every line is one valid JSON object with every always-present key, of the right
    /// type, in protocol order, and the numbers the protocol wants as integers are integers.
    @Test(arguments: FeatureDecodingTests.roundTripFeatures)
    func everyLineHasEveryKeyInOrder(feature: LocationFeature) throws {
        for options in [FeatureEncodingOptions.standard, .wayfinder] {
            let bytes = feature.jsonLine(options: options)
            #expect(!bytes.contains(UInt8(ascii: "\n")) && !bytes.contains(UInt8(ascii: " ")) || feature.wifi.contains(" ") || feature.deviceID.contains(" "))
            #expect(JSONValidator.isValidObject(bytes))
            let json = try JSONParser.parse(bytes)
            #expect(json["type"]?.string == "Feature")
            #expect(json["geometry"]?["type"]?.string == "Point")
            #expect(json["geometry"]?["coordinates"]?.array?.count == 2)
            let properties = try #require(json["properties"]?.object)
            for key in Self.alwaysPresent {
                #expect(properties[key] != nil, "missing \(key)")
            }
            for key in ["altitude", "course", "horizontal_accuracy", "vertical_accuracy"] {
                #expect(properties[key]?.int != nil, "\(key) is not an integer")
            }
            if options.integerSpeed {
                for key in ["speed", "speed_accuracy", "course_accuracy"] {
                    #expect(properties[key]?.int != nil, "\(key) is not an integer")
                }
            }
            #expect(properties["timestamp"]?.string.flatMap(ISO8601UTC.parse) == feature.timestamp)
            #expect(properties["battery_state"]?.string.flatMap(BatteryState.init(rawValue:)) != nil)
            #expect((properties["battery_level"]?.double).map { (0...1).contains($0) } == true)
            #expect(properties["motion"]?.array?.allSatisfy { $0.string.flatMap(Motion.init(rawValue:)) != nil } == true)
            #expect((properties["unique_id"] != nil) == (feature.uniqueID != nil))
            #expect((properties["trip_id"] != nil) == (feature.tripID != nil))
            #expect((properties["pauses"] != nil) == (feature.trackingStats != nil))

            // Key order, read off the text itself (a dictionary cannot show it).
            let text = String(decoding: bytes, as: UTF8.self)
            var keys = ["type", "geometry", "coordinates", "properties"] + Self.alwaysPresent
            if feature.uniqueID != nil { keys.append("unique_id") }
            if feature.tripID != nil { keys.append("trip_id") }
            if feature.trackingStats != nil {
                keys += ["pauses", "activity", "desired_accuracy", "deferred", "significant_change", "locations_in_payload"]
            }
            var searchFrom = text.startIndex
            for key in keys {
                let found = try #require(text[searchFrom...].firstRange(of: "\"\(key)\":"), "\(key) out of order")
                searchFrom = found.upperBound
            }
        }
    }
}

/// The logger appends what these encoders write without validating it again (it is the
/// hot path of an import): whatever the values, the output must be one valid JSON object.
@Suite struct EncoderOutputIsAlwaysValidJSONTests {
    static let doubles: [Double] = [0, -0.0, 1e-300, -1e-300, 1e300, -1e300, .nan, .infinity, -.infinity,
                                    .greatestFiniteMagnitude, .leastNonzeroMagnitude, 0.1, -180, 180.0000001, 123_456_789.123456789]
    static let integers: [Int] = [0, -1, 1, .max, .min, 4_000, -430]
    static let timestamps: [Int64] = [0, -1, 1, .max, .min, 253_402_300_799, 253_402_300_800, -62_135_596_801]
    static let strings: [String] = ["", "van", "\u{0}\u{1}\u{1F}\u{7F}", "\"\\/\n\r\t\u{8}\u{C}", "😀 网络 ünï", "\u{2028}\u{2029}\u{FEFF}"]

    @Test func locationFeatures() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<3_000 {
            func pick<T>(_ values: [T]) -> T { values[Int(generator.next() % UInt64(values.count))] }
            let feature = LocationFeature(
                longitude: pick(Self.doubles), latitude: pick(Self.doubles), timestamp: pick(Self.timestamps),
                altitude: pick(Self.integers), speed: pick(Self.doubles), course: pick(Self.integers),
                horizontalAccuracy: pick(Self.integers), verticalAccuracy: pick(Self.integers),
                speedAccuracy: pick(Self.doubles), courseAccuracy: pick(Self.doubles),
                motion: round % 2 == 0 ? Motion.allCases : [], batteryState: pick(BatteryState.allCases),
                batteryLevel: pick(Self.doubles), wifi: pick(Self.strings), deviceID: pick(Self.strings),
                uniqueID: round % 3 == 0 ? nil : pick(Self.strings), tripID: round % 5 == 0 ? nil : pick(Self.strings),
                trackingStats: round % 4 == 0 ? TrackingStats(activity: pick(Self.strings), desiredAccuracy: pick(Self.integers)) : nil)
            for options in [FeatureEncodingOptions.standard, .wayfinder] {
                let line = feature.jsonLine(options: options)
                #expect(JSONValidator.isValidObject(line), "\(String(decoding: line, as: UTF8.self))")
            }
        }
    }

    @Test func longestPossibleFeatureFitsItsReservation() throws {
        // The encoder reserves a bound up front and traps if it writes past it: push every
        // part to its longest (escapes, huge numbers, repeated motions, every option).
        let control = String(repeating: "\u{1}", count: 300)
        let stats = TrackingStats(pauses: false, activity: control, desiredAccuracy: .min, deferred: .min,
                                  significantChange: control, locationsInPayload: .min)
        let feature = LocationFeature(
            longitude: -.greatestFiniteMagnitude, latitude: -.greatestFiniteMagnitude, timestamp: .min, altitude: .min,
            speed: .greatestFiniteMagnitude, course: .max, horizontalAccuracy: .max, verticalAccuracy: .max,
            speedAccuracy: .greatestFiniteMagnitude, courseAccuracy: .greatestFiniteMagnitude,
            motion: Array(repeating: .stationary, count: 50), batteryState: .unplugged, batteryLevel: 0.99999,
            wifi: control, deviceID: control, uniqueID: control, tripID: control, trackingStats: stats)
        for options in [FeatureEncodingOptions.standard, .wayfinder] {
            var buffer = Array("prefix".utf8)
            feature.encodeJSONLine(into: &buffer, options: options)
            #expect(buffer.starts(with: "prefix".utf8))
            let line = Array(buffer.dropFirst(6))
            #expect(line == feature.jsonLine(options: options))
            #expect(JSONValidator.isValidObject(line))
            // Integers this large are out of the decoder's range: read the JSON itself.
            let properties = try #require(try JSONParser.parse(line)["properties"])
            #expect(properties["wifi"]?.string == control && properties["significant_change"]?.string == control)
        }
    }

    @Test func actionAndVisitRecords() {
        for (index, text) in Self.strings.enumerated() {
            let device = DeviceMetadata(deviceID: text, batteryState: .charging, batteryLevel: Self.doubles[index * 2 % Self.doubles.count], wifi: text)
            let action = ActionRecord(action: text, timestamp: Self.timestamps[index % Self.timestamps.count], device: device)
            #expect(JSONValidator.isValidObject(action.jsonLine()))
            for value in Self.doubles {
                let visit = VisitRecord(latitude: value, longitude: -value, arrival: Self.timestamps[index % Self.timestamps.count],
                                        departure: index % 2 == 0 ? nil : .max, horizontalAccuracy: .min, device: device)
                #expect(JSONValidator.isValidObject(visit.jsonLine()), "\(String(decoding: visit.jsonLine(), as: UTF8.self))")
            }
        }
    }
}
