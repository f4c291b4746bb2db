import TestSupport
import Foundation
import OverlandNMEA
import OverlandProtocol
import Testing

@testable import OverlandRecorder

/// `Recorder.feature`: every key of the protocol's location Feature (section 1), in its
/// type, with -1 for unknowns; and the encoded line as a strict receiver parses it.
@Suite struct RecorderFeatureTests {
    static let device = DeviceSnapshot(batteryState: .unplugged, batteryLevel: 0.8, wifi: "Café \"home\"")

    static var configuration: RecorderConfiguration {
        var configuration = RecorderConfiguration()
        configuration.deviceID = "van"
        configuration.uniqueID = "0f6b9a5e-2c1d-4e8f-9a7b-3c2d1e0f4a5b"
        configuration.tripStart = baseTime - 60 // 2020-02-14T18:04:42Z
        return configuration
    }

    /// The keys every location point carries, whatever is known.
    static let alwaysPresent = ["timestamp", "altitude", "speed", "course", "horizontal_accuracy", "vertical_accuracy",
                                "speed_accuracy", "course_accuracy", "motion", "battery_state", "battery_level", "wifi",
                                "device_id"]

    @Test func everyKnownValueIsMapped() {
        let fix = makeFix(0, altitude: 311.4, speed: 25.256, course: 271.4, horizontalAccuracy: 4.6, verticalAccuracy: 7.5,
                          speedAccuracy: 0.456, courseAccuracy: 4)
        let feature = Recorder.feature(for: fix, device: Self.device, configuration: Self.configuration)
        #expect(feature.longitude == -77.696315 && feature.latitude == 45.490975)
        #expect(feature.timestamp == baseTime)
        #expect(feature.altitude == 311)
        #expect(feature.speed == 25.256, "kept whole; the encoder writes 2 decimals")
        #expect(feature.course == 271)
        #expect(feature.horizontalAccuracy == 5)
        #expect(feature.verticalAccuracy == 8, "7.5 rounds half away from zero")
        #expect(feature.speedAccuracy == 0.456)
        #expect(feature.courseAccuracy == 4)
        #expect(feature.motion == [.driving])
        #expect(feature.batteryState == .unplugged && feature.batteryLevel == 0.8)
        #expect(feature.wifi == "Café \"home\"")
        #expect(feature.deviceID == "van")
        #expect(feature.uniqueID == "0f6b9a5e-2c1d-4e8f-9a7b-3c2d1e0f4a5b")
        #expect(feature.tripID == "2020-02-14T18:04:42Z")
        #expect(feature.trackingStats == nil)
    }

    @Test func unknownValuesAreMinusOne() {
        let fix = makeFix(0, altitude: nil, speed: nil, course: nil, horizontalAccuracy: nil, verticalAccuracy: nil)
        let feature = Recorder.feature(for: fix, device: .none, configuration: RecorderConfiguration())
        #expect(feature.altitude == 0, "altitude has no unknown: 0, with a vertical accuracy of -1")
        #expect(feature.verticalAccuracy == -1)
        #expect(feature.speed == -1 && feature.course == -1)
        #expect(feature.horizontalAccuracy == -1 && feature.speedAccuracy == -1 && feature.courseAccuracy == -1)
        #expect(feature.motion == [])
        #expect(feature.batteryState == .unknown && feature.batteryLevel == 0 && feature.wifi == "")
        #expect(feature.deviceID == "" && feature.uniqueID == nil && feature.tripID == nil)
    }

    @Test func noAltitudeMeansNoVerticalAccuracy() {
        // A 2D fix whose decoder still estimated a vertical accuracy: it describes nothing.
        let twoD = Recorder.feature(for: makeFix(0, altitude: nil, verticalAccuracy: 12), device: .none, configuration: .init())
        #expect(twoD.altitude == 0 && twoD.verticalAccuracy == -1)
        for altitude in [Double.nan, .infinity, -.infinity] {
            let feature = Recorder.feature(for: makeFix(0, altitude: altitude, verticalAccuracy: 12), device: .none, configuration: .init())
            #expect(feature.altitude == 0 && feature.verticalAccuracy == -1, "altitude \(altitude)")
        }
    }

    @Test(arguments: [(-12.6, -13), (-0.4, 0), (0.5, 1), (76.5, 77), (1146.49, 1146), (8848.86, 8849)])
    func altitudeIsRoundedHalfAwayFromZero(altitude: Double, expected: Int) {
        let feature = Recorder.feature(for: makeFix(0, altitude: altitude), device: .none, configuration: .init())
        #expect(feature.altitude == expected)
    }

    @Test(arguments: [(0.0, 0), (0.4, 0), (0.5, 1), (271.4, 271), (359.4, 359), (359.5, 0), (359.9, 0), (360.0, 0),
                      (-0.1, -1), (-1, -1), (Double.nan, -1), (Double.infinity, -1)])
    func courseIsAWholeDegreeBelow360(course: Double, expected: Int) {
        let feature = Recorder.feature(for: makeFix(0, course: course), device: .none, configuration: .init())
        #expect(feature.course == expected)
    }

    @Test func negativeOrNonFiniteMeasuresAreUnknown() {
        let fix = makeFix(0, speed: -0.5, horizontalAccuracy: -3, verticalAccuracy: .nan, speedAccuracy: -1, courseAccuracy: .infinity)
        let feature = Recorder.feature(for: fix, device: .none, configuration: .init())
        #expect(feature.speed == -1 && feature.motion == [])
        #expect(feature.horizontalAccuracy == -1 && feature.verticalAccuracy == -1)
        #expect(feature.speedAccuracy == -1 && feature.courseAccuracy == -1)
        let nan = Recorder.feature(for: makeFix(0, speed: .nan), device: .none, configuration: .init())
        #expect(nan.speed == -1 && nan.motion == [])
    }

    /// Issue 21: `altMSL` -1e19 or `epv` 1e19 trapped the logger (SIGILL) in the integer
    /// conversion. Every value out of range is left out and counted; the point stays.
    @Test(arguments: [-1e19, 1e19, 9.3e18, -9.3e18, 2_147_483_648, -2_147_483_648, Double.greatestFiniteMagnitude, -1e300])
    func anAltitudeOutOfRangeIsLeftOutNotTrappedOn(altitude: Double) {
        var recorder = Recorder(configuration: .init())
        let point = recorder.point(for: makeFix(0, altitude: altitude, verticalAccuracy: 3), device: .none)
        #expect(point?.altitude == 0 && point?.verticalAccuracy == -1, "altitude \(altitude) is left out")
        #expect(recorder.statistics.valuesLeftOut == 1)
    }

    @Test func everyMeasureOutOfRangeIsLeftOutAndCounted() {
        var recorder = Recorder(configuration: .init())
        let fix = makeFix(0, altitude: 100, speed: 1e300, course: 1e19, horizontalAccuracy: 1e19, verticalAccuracy: 1e19,
                          speedAccuracy: 3e8, courseAccuracy: 1e10)
        let point = recorder.point(for: fix, device: .none)
        #expect(point?.altitude == 100)
        #expect(point?.speed == -1 && point?.course == -1 && point?.motion == [])
        #expect(point?.horizontalAccuracy == -1 && point?.verticalAccuracy == -1)
        #expect(point?.speedAccuracy == -1 && point?.courseAccuracy == -1)
        #expect(recorder.statistics.valuesLeftOut == 6)
        // The largest values kept: 32-bit whole numbers, and the speed of light.
        let edge = Recorder.feature(for: makeFix(0, altitude: 2_147_483_647, speed: 299_792_458, horizontalAccuracy: 2_147_483_647),
                                    device: .none, configuration: .init())
        #expect(edge.altitude == 2_147_483_647 && edge.speed == 299_792_458 && edge.horizontalAccuracy == 2_147_483_647)
    }

    /// Issue 22: a sub-metre accuracy became `horizontal_accuracy` 0, which Home Assistant
    /// ignores. A known accuracy is at least 1 m; unknown stays -1.
    @Test(arguments: [(0.0, 1), (0.2, 1), (0.49, 1), (0.5, 1), (0.7, 1), (1.4, 1), (1.5, 2), (9.5, 10)])
    func aKnownAccuracyIsNeverZero(accuracy: Double, expected: Int) {
        let feature = Recorder.feature(for: makeFix(0, altitude: 10, horizontalAccuracy: accuracy, verticalAccuracy: accuracy),
                                       device: .none, configuration: .init())
        #expect(feature.horizontalAccuracy == expected && feature.verticalAccuracy == expected, "\(accuracy)")
    }

    /// Issue 22: an old capture imported during a trip was folded into it. Only fixes from
    /// the trip's start on carry its id.
    @Test func onlyFixesInsideTheTripCarryItsID() {
        var configuration = RecorderConfiguration()
        configuration.tripStart = baseTime + 10
        #expect(Recorder.feature(for: makeFix(9), device: .none, configuration: configuration).tripID == nil)
        #expect(Recorder.feature(for: makeFix(10), device: .none, configuration: configuration).tripID == "2020-02-14T18:05:52Z")
        #expect(Recorder.feature(for: makeFix(-86_400), device: .none, configuration: configuration).tripID == nil)
    }

    @Test func motionFollowsTheSpeed() {
        for (speed, motion) in [(0.2, Motion.stationary), (1.4, .walking), (3.0, .running), (6.0, .cycling), (25.0, .driving)] {
            #expect(Recorder.feature(for: makeFix(0, speed: speed), device: .none, configuration: .init()).motion == [motion])
        }
    }

    @Test func pointCarriesTheConfigurationAndTheDevice() {
        var recorder = Recorder(configuration: Self.configuration)
        let point = recorder.point(for: makeFix(0), device: Self.device)
        #expect(point?.deviceID == "van" && point?.uniqueID == Self.configuration.uniqueID && point?.tripID == "2020-02-14T18:04:42Z")
        #expect(point?.batteryState == .unplugged && point?.batteryLevel == 0.8 && point?.wifi == "Café \"home\"")
    }

    // MARK: The encoded line

    /// Parses the line as a receiver would, and checks each key's JSON type on the raw text.
    func checkLine(_ feature: LocationFeature, options: FeatureEncodingOptions = .standard,
                   sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let line = String(decoding: feature.jsonLine(options: options), as: UTF8.self)
        #expect(!line.contains("\n"), sourceLocation: sourceLocation)
        let object = try #require(try JSONScan.object(line.utf8),
                                  sourceLocation: sourceLocation)
        #expect(object["type"] as? String == "Feature", sourceLocation: sourceLocation)
        let geometry = try #require(object["geometry"] as? [String: Any], sourceLocation: sourceLocation)
        #expect(geometry["type"] as? String == "Point", sourceLocation: sourceLocation)
        let coordinates = try #require(geometry["coordinates"] as? [NSNumber], sourceLocation: sourceLocation)
        #expect(coordinates.count == 2, sourceLocation: sourceLocation)
        #expect(coordinates.first?.doubleValue == feature.longitude, "longitude first", sourceLocation: sourceLocation)
        let properties = try #require(object["properties"] as? [String: Any], sourceLocation: sourceLocation)
        for key in Self.alwaysPresent {
            #expect(properties[key] != nil, "\(key) is always present", sourceLocation: sourceLocation)
        }
        let timestamp = try #require(properties["timestamp"] as? String, sourceLocation: sourceLocation)
        #expect(timestamp.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil, "\(timestamp)", sourceLocation: sourceLocation)
        for key in ["altitude", "course", "horizontal_accuracy", "vertical_accuracy"] {
            let text = rawValue(of: key, in: line) ?? ""
            #expect(isIntegerText(text), "\(key) is \(text): an integer", sourceLocation: sourceLocation)
        }
        for key in ["speed", "speed_accuracy", "course_accuracy", "battery_level"] {
            let text = rawValue(of: key, in: line) ?? ""
            let integer = key == "speed" ? options.integerSpeed : key == "battery_level" ? false : options.integerAccuracies
            #expect(integer ? isIntegerText(text) : hasAtMostDecimals(text, 2), "\(key) is \(text)", sourceLocation: sourceLocation)
        }
        let level = try #require(properties["battery_level"] as? NSNumber, sourceLocation: sourceLocation).doubleValue
        #expect((0...1).contains(level), sourceLocation: sourceLocation)
        let motion = try #require(properties["motion"] as? [String], sourceLocation: sourceLocation)
        #expect(motion.allSatisfy { Motion(rawValue: $0) != nil }, sourceLocation: sourceLocation)
        let state = try #require(properties["battery_state"] as? String, sourceLocation: sourceLocation)
        #expect(BatteryState(rawValue: state) != nil, sourceLocation: sourceLocation)
        #expect(properties["wifi"] is String && properties["device_id"] is String, sourceLocation: sourceLocation)
        return properties
    }

    @Test func encodedLineHasEveryKeyInItsType() throws {
        let fix = makeFix(0, altitude: 311.4, speed: 25.256, course: 359.7, horizontalAccuracy: 4.6, verticalAccuracy: 7.5,
                          speedAccuracy: 0.456, courseAccuracy: 4.126)
        let feature = Recorder.feature(for: fix, device: Self.device, configuration: Self.configuration)
        let properties = try checkLine(feature)
        #expect(properties["timestamp"] as? String == "2020-02-14T18:05:42Z")
        #expect((properties["altitude"] as? NSNumber)?.intValue == 311)
        #expect((properties["speed"] as? NSNumber)?.doubleValue == 25.26)
        #expect((properties["course"] as? NSNumber)?.intValue == 0, "359.7 rounds to 360, which is 0")
        #expect((properties["speed_accuracy"] as? NSNumber)?.doubleValue == 0.46)
        #expect((properties["course_accuracy"] as? NSNumber)?.doubleValue == 4.13)
        #expect(properties["motion"] as? [String] == ["driving"])
        #expect(properties["battery_state"] as? String == "unplugged")
        #expect((properties["battery_level"] as? NSNumber)?.doubleValue == 0.8)
        #expect(properties["wifi"] as? String == "Café \"home\"")
        #expect(properties["device_id"] as? String == "van")
        #expect(properties["unique_id"] as? String == Self.configuration.uniqueID)
        #expect(properties["trip_id"] as? String == "2020-02-14T18:04:42Z")
        #expect(Set(properties.keys) == Set(Self.alwaysPresent + ["unique_id", "trip_id"]))
    }

    @Test func encodedLineOfAnUnknownFix() throws {
        let fix = makeFix(0, altitude: nil, speed: nil, course: nil, horizontalAccuracy: nil, verticalAccuracy: nil)
        let properties = try checkLine(Recorder.feature(for: fix, device: .none, configuration: .init()))
        for key in ["speed", "course", "horizontal_accuracy", "vertical_accuracy", "speed_accuracy", "course_accuracy"] {
            #expect((properties[key] as? NSNumber)?.intValue == -1, "\(key)")
        }
        #expect((properties["altitude"] as? NSNumber)?.intValue == 0)
        #expect(properties["motion"] as? [String] == [])
        #expect(properties["battery_state"] as? String == "unknown")
        #expect((properties["battery_level"] as? NSNumber)?.doubleValue == 0)
        #expect(properties["wifi"] as? String == "" && properties["device_id"] as? String == "")
        #expect(Set(properties.keys) == Set(Self.alwaysPresent), "no unique_id or trip_id when not set")
    }

    @Test func integerSpeedEncodingForWayfinder() throws {
        let fix = makeFix(0, speed: 25.256, speedAccuracy: 0.456, courseAccuracy: 4.6)
        let properties = try checkLine(Recorder.feature(for: fix, device: Self.device, configuration: Self.configuration),
                                       options: .wayfinder)
        #expect((properties["speed"] as? NSNumber)?.intValue == 25)
        #expect((properties["speed_accuracy"] as? NSNumber)?.intValue == 1, "0.456 is known: at least 1, never 0")
        #expect((properties["course_accuracy"] as? NSNumber)?.intValue == 5)
    }

    @Test func coordinatesHaveAtMostSevenDecimals() throws {
        var fix = makeFix(0)
        fix.latitude = 45.123456789
        fix.longitude = -77.987654321
        let line = String(decoding: Recorder.feature(for: fix, device: .none, configuration: .init()).jsonLine(), as: UTF8.self)
        #expect(line.contains(#""coordinates":[-77.9876543,45.1234568]"#), "\(line)")
    }
}
