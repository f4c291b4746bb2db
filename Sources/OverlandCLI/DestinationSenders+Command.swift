import OverlandJournal
import OverlandMQTT
import OverlandProtocol
import OverlandRecorder
import OverlandSettings

extension DestinationSenders {
    /// The senders the commands run with, for `journal` (nil: no trip is read): the sync's
    /// clock (`SyncClock`), this version's `User-Agent`, and the test hook below.
    init(settings: Settings, journal: Journal?) throws {
        let trip = try journal.flatMap { journal in
            try Trip.active(in: journal).map { trip in
                let summary = try TripSummary.compute(for: trip, through: Journal.currentTime(), in: journal)
                return TripProgress(mode: trip.mode, start: trip.start, distance: summary.distance,
                                    startLocation: summary.startLocation, currentLocation: summary.latestLocation).json()
            }
        }
        self.init(settings: settings, trip: trip, wallClock: SyncClock.now)
        userAgent = "overland-sync/\(OverlandVersion.current)"
        // A test hook, for the tests only (README, Tests): a broker that never answers is
        // waited on this long, so that a test sees what happens meanwhile without racing
        // the 10 s default.
        if let seconds = Paths.environment("OVERLAND_TEST_MQTT_CONNECT_TIMEOUT").flatMap(Double.init), seconds > 0, seconds <= 86_400 {
            mqttConnectTimeout = seconds
        }
    }
}
