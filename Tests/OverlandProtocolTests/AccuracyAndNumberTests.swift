import OverlandJSON
import OverlandProtocol
import Testing

/// Issue 22 (a known accuracy is never 0) and issue 21 (no number traps an encoder), on the
/// encoders of every protocol.
@Suite struct AccuracyAndNumberTests {
    static func point(horizontalAccuracy: Int = 5, speed: Double = 4.25, speedAccuracy: Double = 0.5,
                      courseAccuracy: Double = 2) -> LocationFeature {
        LocationFeature(longitude: -77.69, latitude: 45.49, timestamp: 1_772_000_000, altitude: 12, speed: speed, course: 10,
                        horizontalAccuracy: horizontalAccuracy, verticalAccuracy: 3, speedAccuracy: speedAccuracy,
                        courseAccuracy: courseAccuracy, batteryState: .full, batteryLevel: 1, deviceID: "alice/van")
    }

    @Test(arguments: [(0.0, 1), (0.2, 1), (0.5, 1), (1.49, 1), (1.5, 2), (2_147_483_647, 2_147_483_647)])
    func aKnownAccuracyIsAWholeNumberOfAtLeastOne(value: Double, expected: Int) {
        #expect(LocationFeature.wholeAccuracy(value) == expected)
    }

    @Test(arguments: [-0.5, -1, 2_147_483_647.5, 1e19, .infinity, .nan, -Double.infinity])
    func noAccuracyAReceiverCanTakeIsNil(value: Double) {
        #expect(LocationFeature.wholeAccuracy(value) == nil)
    }

    /// Home Assistant's OwnTracks integration ignores a location of `acc` 0 (56 of 2,170
    /// points were lost so). A stored accuracy of 0 (an older logger's) goes out as 1.
    @Test func ownTracksAccIsAtLeastOne() {
        let zero = OwnTracksLocation(point: Self.point(horizontalAccuracy: 0), identity: OwnTracksIdentity(deviceID: "alice/van"))
        #expect(zero.accuracy == 1)
        let text = String(decoding: zero.jsonBody(), as: UTF8.self)
        #expect(text.contains(#""acc":1,"#), "\(text)")
        let unknown = OwnTracksLocation(point: Self.point(horizontalAccuracy: -1), identity: OwnTracksIdentity(deviceID: "alice/van"))
        #expect(unknown.accuracy == nil)
    }

    /// A speed of 1e300 m/s in a journal became `vel` 0; no km/h that large exists: left out.
    @Test func anOwnTracksSpeedNoIntegerHoldsIsLeftOut() {
        for speed in [1e300, 1e18, Double.greatestFiniteMagnitude] {
            let message = OwnTracksLocation(point: Self.point(speed: speed), identity: OwnTracksIdentity(deviceID: "alice/van"))
            #expect(message.velocity == nil, "\(speed)")
        }
        let normal = OwnTracksLocation(point: Self.point(speed: 10), identity: OwnTracksIdentity(deviceID: "alice/van"))
        #expect(normal.velocity == 36)
    }

    /// The `wayfinder` profile writes accuracies as whole numbers: 0.3 was 0.
    @Test func wayfinderRoundsAKnownAccuracyUpToOne() {
        var body = RequestBodyWriter(profile: .wayfinder)
        let line = #"{"type":"Feature","geometry":null,"properties":{"speed":0.3,"horizontal_accuracy":0.4,"vertical_accuracy":0.0,"speed_accuracy":0.3,"course_accuracy":0.01,"altitude":0.3}}"#
        body.appendLocation(Array(line.utf8))
        body.finish()
        let out = String(decoding: body.bytes, as: UTF8.self)
        #expect(out.contains(#""speed":0,"#), "a speed may be 0: \(out)")
        #expect(out.contains(#""horizontal_accuracy":1,"#) && out.contains(#""vertical_accuracy":1,"#), "\(out)")
        #expect(out.contains(#""speed_accuracy":1,"#) && out.contains(#""course_accuracy":1,"#), "\(out)")
        #expect(out.contains(#""altitude":0}"#), "an altitude may be 0: \(out)")
    }

    /// The encoder's own whole-number option (`integer_speed`) and its 2 decimals.
    @Test func theEncoderNeverWritesAKnownAccuracyAsZero() {
        let tiny = Self.point(speedAccuracy: 0.3, courseAccuracy: 0.001)
        let whole = String(decoding: tiny.jsonLine(options: .wayfinder), as: UTF8.self)
        #expect(whole.contains(#""speed_accuracy":1,"course_accuracy":1,"#), "\(whole)")
        let decimals = String(decoding: tiny.jsonLine(), as: UTF8.self)
        #expect(decimals.contains(#""speed_accuracy":0.3,"course_accuracy":0,"#), "as given, 2 decimals: \(decimals)")
        let unknown = String(decoding: Self.point(speedAccuracy: -1, courseAccuracy: .nan).jsonLine(options: .wayfinder), as: UTF8.self)
        #expect(unknown.contains(#""speed_accuracy":-1,"course_accuracy":-1,"#), "\(unknown)")
    }

    @Test func aTripDistanceIsWholeMetresWhateverTheSum() {
        #expect(TripRecord.wholeMetres(1234.5) == 1235)
        #expect(TripRecord.wholeMetres(-3) == 0 && TripRecord.wholeMetres(.nan) == 0)
        #expect(TripRecord.wholeMetres(1e300) == 2_147_483_647 && TripRecord.wholeMetres(.infinity) == 2_147_483_647)
    }
}
