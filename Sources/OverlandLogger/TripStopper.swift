import OverlandJournal
import OverlandProtocol
import OverlandRecorder
import OverlandSettings

/// Builds the record that ends a trip.
public enum TripStopper {
    public struct Result {
        public var line: [UInt8]
        public var summary: (duration: Int64, distance: Double, points: Int)
        /// The journal holds the trip's record already (a stop crashed before clearing the trip).
        public var isAlreadyWritten: Bool
    }

    /// The record of `trip` ending at `now` (Unix seconds; the clock injected for tests).
    public static func record(for trip: Trip, in journal: Journal, settings: Settings, stoppedAutomatically: Bool,
                              now: Int64 = Journal.currentTime()) throws -> Result {
        let end = max(now, trip.start)
        let summary = try TripSummary.compute(for: trip, through: end, in: journal)
        var last = summary.latest
        if last == nil {
            _ = try journal.lastRecord { line in
                last = try? LocationFeature(jsonLine: line)
                return last != nil
            }
        }
        let device = DeviceStatusReader(batteryPath: settings.batteryPath).snapshot(now: 0)
        let record = TripRecord(
            mode: trip.mode, start: trip.start, end: end,
            startLocation: summary.startLocation, endLocation: summary.latestLocation,
            distance: summary.distance, stoppedAutomatically: stoppedAutomatically,
            longitude: last?.longitude, latitude: last?.latitude,
            device: DeviceMetadata(deviceID: DeviceIdentity.resolve(flag: nil, settings: settings),
                                   batteryState: device.batteryState, batteryLevel: device.batteryLevel, wifi: device.wifi)
        )
        return Result(line: record.jsonLine(), summary: (end - trip.start, summary.distance, summary.points),
                      isAlreadyWritten: summary.isRecorded)
    }
}

extension TripStopper {
    /// Ends the active trip of `journal`, if any, under the trip's lock: its record appended
    /// through `appender` (asked for only then) and committed, unless a stop that crashed
    /// wrote it already, then the trip cleared. Nil when no trip runs. `now` (Unix seconds)
    /// ends the trip; the clock injected for tests.
    public static func stop(in journal: Journal, settings: Settings, automatically: Bool, now: Int64 = Journal.currentTime(),
                            appender: () throws -> JournalAppender) throws -> (trip: Trip, record: Result)? {
        try withExtendedLifetime(Trip.lockForChange(in: journal)) {
            guard let trip = try Trip.active(in: journal) else { return nil }
            let record = try TripStopper.record(for: trip, in: journal, settings: settings, stoppedAutomatically: automatically, now: now)
            if !record.isAlreadyWritten {
                let appender = try appender()
                try appender.append(record.line)
                try appender.commit(wallClock: now)
                FaultPoint.reach("trip.after-record")
            }
            try Trip.clear(in: journal)
            return (trip, record)
        }
    }
}

/// A trip ends by itself when auto-pause begins, as in the app.
public enum AutomaticTripStop {
    /// Ends the active trip, if any: its record appended through `appender` and committed
    /// (unless a stop that crashed wrote it already), then the trip cleared, under the
    /// trip's lock. True when a trip was stopped: the recorder's configuration changes.
    /// `now` (Unix seconds) ends the trip; the clock injected for tests.
    public static func stop(in journal: Journal, appender: JournalAppender, settings: Settings,
                            now: Int64 = Journal.currentTime()) throws -> Bool {
        try TripStopper.stop(in: journal, settings: settings, automatically: true, now: now) { appender } != nil
    }
}
