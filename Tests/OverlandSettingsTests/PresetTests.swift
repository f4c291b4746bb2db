import Testing
@testable import OverlandSettings

@Suite("Presets")
struct PresetTests {
    @Test func highResolution() throws {
        var settings = Settings()
        settings.main.pauseAutomatically = true
        settings.main.resumeWithGeofence = .twoKilometres
        settings.main.trackingMode = .both
        settings.main.activityType = .car
        settings.trip.desiredAccuracy = .threeKilometres
        let changes = try Preset(named: "high-resolution").apply(to: &settings)
        #expect(!settings.main.pauseAutomatically)
        #expect(settings.main.resumeWithGeofence == .off)
        #expect(settings.main.trackingMode == .standard)
        #expect(settings.main.activityType == .other)
        #expect(settings.main.desiredAccuracy == .best)
        #expect(settings.trip.desiredAccuracy == .threeKilometres)
        #expect(changes.map(\.key) == ["tracking_mode", "desired_accuracy", "activity_type", "pause_automatically", "resume_with_geofence"])
    }

    @Test func batterySaving() throws {
        var settings = Settings()
        let changes = try Preset(named: "battery-saving").apply(to: &settings)
        #expect(settings.main.pauseAutomatically)
        #expect(settings.main.resumeWithGeofence == .fiveHundredMetres)
        #expect(settings.main.trackingMode == .significant)
        #expect(settings.main.activityType == .other)
        #expect(settings.main.desiredAccuracy == .hundredMetres)
        #expect(changes.count == 3)
        #expect(Preset.batterySaving.apply(to: &settings).isEmpty)
    }

    @Test func unknownPreset() throws {
        let error = try #require(settingsError { _ = try Preset(named: "turbo") })
        #expect(error.description == #"invalid value "turbo" for "preset" (allowed: high-resolution, battery-saving)"#)
    }
}
