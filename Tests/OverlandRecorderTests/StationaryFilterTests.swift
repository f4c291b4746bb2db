import OverlandInput
import Testing

@testable import OverlandRecorder

/// `stationary_filter`: one point while still, the first move at once.
@Suite("Stationary filter")
struct StationaryFilterTests {
    /// Parked: speed 0.1 m/s within 0.3 m/s accuracy, wandering up to 4 m within 5 m accuracy.
    func parked(_ seconds: Int64, north: Double) -> Fix {
        makeFix(seconds, north: north, speed: 0.1, horizontalAccuracy: 5, speedAccuracy: 0.3)
    }

    @Test func onePointWhileStillThenResumesAtOnce() {
        var fixes = (0..<60).map { parked(Int64($0), north: Double($0 % 5) - 2) }
        // Moving: 14 m/s, 14 m per second.
        fixes += (60..<65).map { makeFix(Int64($0), north: Double($0 - 60) * 14 + 20, speed: 14, speedAccuracy: 0.3) }
        let (seconds, recorder) = record(fixes) { $0.stationaryFilter = true }
        #expect(seconds == [0, 60, 61, 62, 63, 64])
        #expect(recorder.statistics.droppedStationary == 59)
    }

    @Test func offByDefault() {
        let fixes = (0..<10).map { parked(Int64($0), north: 0) }
        #expect(RecorderConfiguration().stationaryFilter == false)
        #expect(record(fixes).seconds == Array(0..<10))
    }

    @Test func speedBeyondItsAccuracyIsMovement() {
        // Walking off slowly: 1 m/s is beyond 0.3 m/s accuracy even before 5 m are covered.
        let fixes = [parked(0, north: 0), makeFix(1, north: 1, speed: 1, horizontalAccuracy: 5, speedAccuracy: 0.3)]
        #expect(record(fixes) { $0.stationaryFilter = true }.seconds == [0, 1])
    }

    @Test func slowDriftIsLoggedOnceItAddsUp() {
        // 1 m per second at a speed the receiver cannot tell from zero: a point every ~6 m.
        let fixes = (0..<20).map { makeFix(Int64($0), north: Double($0), speed: 0.2, horizontalAccuracy: 5.5, speedAccuracy: 0.3) }
        let seconds = record(fixes) { $0.stationaryFilter = true }.seconds
        #expect(seconds == [0, 6, 12, 18])
    }

    @Test func unknownAccuraciesUseDefaults() {
        // NMEA: no speed accuracy (0.5 m/s), no horizontal accuracy (10 m).
        let fixes = [makeFix(0, speed: 0.2, horizontalAccuracy: nil), makeFix(1, north: 8, speed: 0.4, horizontalAccuracy: nil),
                     makeFix(2, north: 12, speed: 0.4, horizontalAccuracy: nil)]
        #expect(record(fixes) { $0.stationaryFilter = true }.seconds == [0, 2])
    }
}
