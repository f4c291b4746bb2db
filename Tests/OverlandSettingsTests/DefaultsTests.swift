import OverlandProtocol
import Testing
@testable import OverlandSettings

@Suite("Defaults and typed values")
struct DefaultsTests {
    @Test func defaultsMatchTheProtocolSection9() {
        let settings = Settings()
        #expect(settings.sendInterval == .fiveMinutes)
        #expect(settings.trackingEnabled)
        #expect(settings.main.trackingMode == .standard)
        #expect(!settings.main.visitTracking)
        #expect(settings.main.desiredAccuracy == .hundredMetres)
        #expect(settings.main.activityType == .other)
        #expect(!settings.main.pauseAutomatically)
        #expect(settings.main.resumeWithGeofence == .off)
        #expect(settings.main.loggingMode == .all)
        #expect(settings.main.batchSize == .twoHundred)
        #expect(settings.main.minDistance == .off)
        #expect(settings.main.minTime == .oneSecond)
        #expect(!settings.main.backgroundIndicator)
        #expect(settings.wifiZone == nil)
        #expect(!settings.includeTrackingStats)
        #expect(!settings.consider2xxSuccessful)
        #expect(!settings.includeUniqueID)
        #expect(!settings.notifications)
        #expect(settings.tripMode == .car)
        // Trip: the same defaults, but the background indicator is on.
        var expectedTrip = settings.main.profile
        expectedTrip.backgroundIndicator = true
        #expect(settings.trip.profile == expectedTrip)
        #expect(!settings.trip.preventScreenLock)
        // Project additions.
        #expect(settings.endpoint == nil && settings.token == nil && settings.deviceID == nil)
        #expect(settings.commitInterval == 5)
        #expect(settings.retentionDays == 7)
        #expect(settings.journal == nil && settings.caFile == nil && settings.batteryPath == nil)
        #expect(!settings.integerSpeed)
    }

    @Test func choicesSpellTheProtocolValues() {
        #expect(SendInterval.allowedNames == "1s, 5s, 10s, 15s, 30s, 1m, 2m, 5m, 10m, 30m, off")
        #expect(DesiredAccuracy.allowedNames == "nav, best, 10m, 100m, 1km, 3km")
        #expect(ActivityType.allowedNames == "other, car, fitness, nav, air")
        #expect(LoggingMode.allowedNames == "all, latest, owntracks")
        #expect(BatchSize.allowedNames == "50, 100, 200, 500, 1000")
        #expect(MinDistance.allowedNames == "off, 1m, 10m, 50m, 100m, 500m")
        #expect(MinTime.allowedNames == "1s, 5s, 10s, 30s, 1m, 5m")
        #expect(TrackingMode.allowedNames == "off, standard, significant, both")
        #expect(ResumeWithGeofence.allowedNames == "off, 100m, 200m, 500m, 1km, 2km")
        #expect(TripMode.allowedNames
            == "walk, run, bicycle, car, taxi, bus, tram, train, metro, gondola, monorail, sleigh, plane, boat, scooter")
    }

    @Test func typedAccessors() {
        #expect(SendInterval.fiveMinutes.seconds == 300)
        #expect(SendInterval.off.seconds == nil)
        #expect(SendInterval.thirtyMinutes.seconds == 1800)
        #expect(MinTime.oneMinute.seconds == 60)
        #expect(MinDistance.fiftyMetres.metres == 50)
        #expect(MinDistance.off.metres == nil)
        #expect(ResumeWithGeofence.oneKilometre.metres == 1000)
        #expect(ResumeWithGeofence.off.metres == nil)
        #expect(DesiredAccuracy.threeKilometres.metres == 3000)
        #expect(DesiredAccuracy.nav.metres < DesiredAccuracy.best.metres)
        #expect(DesiredAccuracy.best.metres < DesiredAccuracy.tenMetres.metres)
        #expect(BatchSize.fiveHundred.count == 500)
        #expect(BatchSize(name: "1000") == .thousand)
        #expect(BatchSize(name: "300") == nil)
        #expect(ActivityType.air.trackingStatsName == "airborne")
        #expect(TrackingMode.significant.significantChangeName == "exclusive")
    }

    @Test func activeProfileFollowsTheTrip() {
        var settings = Settings()
        settings.trip.loggingMode = .latest
        #expect(settings.profile(duringTrip: true).loggingMode == .latest)
        #expect(settings.profile(duringTrip: false).loggingMode == .all)
    }
}
