import OverlandProtocol
import OverlandRecorder
import OverlandSettings

extension Settings {
    /// What the recorder does with fixes under these settings (the trip profile while a
    /// trip runs).
    public func recorderConfiguration(deviceID: String, duringTrip: Bool) -> RecorderConfiguration {
        var configuration = RecorderConfiguration()
        let profile = profile(duringTrip: duringTrip)
        if !trackingEnabled {
            configuration.trackingMode = .off
        } else {
            switch main.trackingMode {
            case .off: configuration.trackingMode = .off
            case .standard: configuration.trackingMode = .standard
            case .significant: configuration.trackingMode = .significant
            case .both: configuration.trackingMode = .both
            }
        }
        configuration.minimumInterval = Int64(profile.minTime.seconds)
        configuration.minimumDistance = profile.minDistance.metres
        // nav and best ask for the best the receiver gives: no gate.
        switch profile.desiredAccuracy {
        case .nav, .best: configuration.accuracyGate = nil
        default: configuration.accuracyGate = profile.desiredAccuracy.metres
        }
        configuration.deviceID = deviceID
        configuration.uniqueID = includeUniqueID ? UniqueID.ofThisMachine() : nil
        configuration.stationaryFilter = stationaryFilter
        configuration.pauseAutomatically = main.pauseAutomatically
        configuration.resumeRadius = main.resumeWithGeofence.metres
        configuration.visitTracking = main.visitTracking
        if includeTrackingStats {
            configuration.trackingStats = TrackingStats(
                pauses: main.pauseAutomatically,
                activity: profile.activityType.trackingStatsName,
                desiredAccuracy: Int(profile.desiredAccuracy.metres),
                deferred: Int(profile.minDistance.metres ?? 0),
                significantChange: main.trackingMode.significantChangeName ?? "disabled",
                locationsInPayload: 1)
        }
        configuration.wifiZone = wifiZone
        return configuration
    }
}
