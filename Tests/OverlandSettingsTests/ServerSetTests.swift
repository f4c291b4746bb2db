import OverlandJSON
import Testing
@testable import OverlandSettings

@Suite("A server's set")
struct ServerSetTests {
    func json(_ text: String) throws -> JSONValue {
        try JSONParser.parse(text)
    }

    @Test func goodValuesAreApplied() throws {
        var settings = Settings()
        let outcome = applyServerSet(try json("""
            {"send_interval": "1m", "trip_mode": "train",
             "main": {"tracking_mode": "both", "visit_tracking": true, "desired_accuracy": "10m",
                      "activity_type": "fitness", "background_indicator": true, "pause_automatically": true,
                      "logging_mode": "latest", "batch_size": 1000, "resume_with_geofence": "2km",
                      "min_distance": "100m", "min_time": "30s"},
             "trip": {"desired_accuracy": "best", "activity_type": "air", "background_indicator": false,
                      "prevent_screen_lock": true, "logging_mode": "owntracks", "batch_size": 50,
                      "min_distance": "500m", "min_time": "5m"}}
            """), to: &settings)
        #expect(outcome.warnings == [])
        #expect(!outcome.sendingTurnedOff)
        #expect(outcome.changes.count == 21)
        #expect(outcome.changes.first == SettingChange(key: "send_interval", old: "5m", new: "1m"))
        #expect(settings.sendInterval == .oneMinute && settings.tripMode == .train)
        #expect(settings.main.trackingMode == .both && settings.main.visitTracking && settings.main.pauseAutomatically)
        #expect(settings.main.batchSize == .thousand && settings.main.resumeWithGeofence == .twoKilometres)
        #expect(settings.main.minTime == .thirtySeconds && settings.main.desiredAccuracy == .tenMetres)
        #expect(settings.trip.preventScreenLock && settings.trip.loggingMode == .owntracks)
        #expect(settings.trip.batchSize == .fifty && !settings.trip.backgroundIndicator)
    }

    @Test func onlyKeysPresentAreApplied() throws {
        var settings = Settings()
        settings.main.loggingMode = .latest
        let outcome = applyServerSet(try json(#"{"main": {"batch_size": 500}}"#), to: &settings)
        #expect(outcome.changes == [SettingChange(key: "batch_size", old: "200", new: "500")])
        #expect(settings.main.loggingMode == .latest)
        #expect(settings.trip.batchSize == .twoHundred)
    }

    @Test func badValuesAndWrongTypesAreIgnoredAndNamed() throws {
        var settings = Settings()
        let outcome = applyServerSet(try json("""
            {"send_interval": "2h", "trip_mode": 3,
             "main": {"batch_size": "500", "visit_tracking": "yes", "min_distance": "20m", "logging_mode": "all"},
             "trip": {"batch_size": 300}}
            """), to: &settings)
        #expect(settings == Settings())
        #expect(outcome.changes == [])
        #expect(outcome.warnings == [
            SetWarning(key: "main.batch_size", reason: .invalidValue(value: #""500""#, allowed: "50, 100, 200, 500, 1000")),
            SetWarning(key: "main.min_distance", reason: .invalidValue(value: #""20m""#, allowed: MinDistance.allowedNames)),
            SetWarning(key: "main.visit_tracking", reason: .invalidValue(value: #""yes""#, allowed: "true, false")),
            SetWarning(key: "send_interval", reason: .invalidValue(value: #""2h""#, allowed: SendInterval.allowedNames)),
            SetWarning(key: "trip.batch_size", reason: .invalidValue(value: "300", allowed: "50, 100, 200, 500, 1000")),
            SetWarning(key: "trip_mode", reason: .invalidValue(value: "3", allowed: TripMode.allowedNames)),
        ])
        try #require(!outcome.warnings.isEmpty)
        #expect(outcome.warnings[0].description
            == #"set: invalid value "500" for "main.batch_size" ignored (allowed: 50, 100, 200, 500, 1000)"#)
    }

    @Test func unknownKeysAndLocalKeysAreIgnoredAndNamed() throws {
        var settings = Settings()
        let outcome = applyServerSet(try json("""
            {"colour": "red", "endpoint": "https://evil.example", "token": "x", "main": {"speed": 1, "prevent_screen_lock": true},
             "trip": {"tracking_mode": "off", "pause_automatically": true, "min_time": "5s"}}
            """), to: &settings)
        #expect(settings.endpoint == nil && settings.token == nil)
        #expect(settings.main.trackingMode == .standard && !settings.main.pauseAutomatically)
        #expect(settings.trip.minTime == .fiveSeconds)
        #expect(outcome.changes == [SettingChange(key: "trip.min_time", old: "1s", new: "5s")])
        #expect(outcome.warnings == [
            SetWarning(key: "colour", reason: .unknownKey),
            SetWarning(key: "endpoint", reason: .notRemotelySettable),
            SetWarning(key: "main.prevent_screen_lock", reason: .unknownKey),
            SetWarning(key: "main.speed", reason: .unknownKey),
            SetWarning(key: "token", reason: .notRemotelySettable),
            SetWarning(key: "trip.pause_automatically", reason: .unknownKey),
            SetWarning(key: "trip.tracking_mode", reason: .unknownKey),
        ])
        try #require(outcome.warnings.count > 1)
        #expect(outcome.warnings[1].description == #"set: "endpoint" cannot be changed by the server; ignored"#)
    }

    @Test func sectionsAndSetMustBeObjects() throws {
        var settings = Settings()
        let outcome = applyServerSet(try json(#"{"main": "fast", "trip": []}"#), to: &settings)
        #expect(outcome.warnings.map(\.key) == ["main", "trip"])
        let notObject = applyServerSet(.string("x"), to: &settings)
        #expect(notObject.warnings == [SetWarning(key: "set", reason: .invalidValue(value: #""x""#, allowed: "an object"))])
    }

    @Test func sendingTurnedOffIsFlagged() throws {
        var settings = Settings()
        let off = applyServerSet(try json(#"{"send_interval": "off"}"#), to: &settings)
        #expect(off.sendingTurnedOff)
        #expect(settings.sendInterval == .off)
        let again = applyServerSet(try json(#"{"send_interval": "off"}"#), to: &settings)
        #expect(!again.sendingTurnedOff && again.changes.isEmpty)
        let back = applyServerSet(try json(#"{"send_interval": "10s"}"#), to: &settings)
        #expect(!back.sendingTurnedOff)
    }
}
