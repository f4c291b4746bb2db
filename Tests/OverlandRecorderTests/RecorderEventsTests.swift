import OverlandInput
import OverlandProtocol
import Testing
@testable import OverlandRecorder

/// Auto-pause, resume, visits and the Wi-Fi zone, fed fix by fix.
@Suite struct RecorderEventsTests {
    /// A fix `north` metres north of a fixed origin at `time`.
    static func fix(_ time: Int64, north: Double = 0, speed: Double = 0) -> Fix {
        Fix(time: time, nanoseconds: 0, latitude: 45 + north / 111_195, longitude: -77, altitude: 100,
            speed: speed, course: 0, mode: .threeD, horizontalAccuracy: 5, verticalAccuracy: 8)
    }

    static func run(_ recorder: inout Recorder, _ fixes: [Fix]) -> [Recorder.Event] {
        fixes.flatMap { recorder.process($0, device: .none) }
    }

    @Test func pausesAfterFiveStillMinutesAndResumesOnLeaving() throws {
        var configuration = RecorderConfiguration()
        configuration.pauseAutomatically = true
        var recorder = Recorder(configuration: configuration)
        // 10 minutes within a few metres, then 100 m away.
        let still = (0..<600).map { Self.fix(Int64(1_000 + $0), north: Double($0 % 3)) }
        let events = Self.run(&recorder, still + [Self.fix(1_600, north: 100)])
        let pauses = events.compactMap { if case .paused(let time, _, _) = $0 { return time } else { return nil } }
        let resumes = events.compactMap { if case .resumed(let time, let exited) = $0 { return (time, exited) } else { return nil } }
        #expect(pauses == [1_300])
        try #require(resumes.count == 1)
        #expect(resumes[0].0 == 1_600 && resumes[0].1 == false)
        let points = events.filter { if case .point = $0 { return true } else { return false } }
        // Points for 1000...1299 (one a second), none while paused, then the resuming fix.
        #expect(points.count == 301)
        #expect(recorder.statistics.droppedPaused == 300)
    }

    @Test func geofenceRadiusDecidesWhereUpdatesResume() throws {
        var configuration = RecorderConfiguration()
        configuration.pauseAutomatically = true
        configuration.resumeRadius = 500
        var recorder = Recorder(configuration: configuration)
        let still = (0..<400).map { Self.fix(Int64($0)) }
        let events = Self.run(&recorder, still + [Self.fix(400, north: 300), Self.fix(401, north: 600)])
        let resumes = events.compactMap { if case .resumed(let time, let exited) = $0 { return (time, exited) } else { return nil } }
        try #require(resumes.count == 1)
        #expect(resumes[0].0 == 401 && resumes[0].1)
    }

    @Test func aStayOfThreeMinutesIsAVisitAnnouncedOnArrivalAndDeparture() {
        var configuration = RecorderConfiguration()
        configuration.visitTracking = true
        var recorder = Recorder(configuration: configuration)
        let driving = (0..<10).map { Self.fix(Int64($0), north: Double($0) * 20, speed: 20) }
        let staying = (10..<250).map { Self.fix(Int64($0), north: 200) }
        let leaving = [Self.fix(250, north: 400, speed: 20)]
        let visits = Self.run(&recorder, driving + staying + leaving).compactMap { event -> (Int64, Int64?)? in
            if case .visit(_, _, let arrival, let departure) = event { return (arrival, departure) }
            return nil
        }
        #expect(visits.count == 2)
        #expect(visits.first.map { $0.0 == 10 && $0.1 == nil } == true)
        #expect(visits.last.map { $0.0 == 10 && $0.1 == 249 } == true)
    }

    @Test func shortStopsAreNoVisits() {
        var configuration = RecorderConfiguration()
        configuration.visitTracking = true
        var recorder = Recorder(configuration: configuration)
        let fixes = (0..<100).map { Self.fix(Int64($0)) } + [Self.fix(100, north: 500)]
        #expect(!Self.run(&recorder, fixes).contains { if case .visit = $0 { return true } else { return false } })
    }

    @Test func theWifiZonePinsThePosition() {
        var configuration = RecorderConfiguration()
        configuration.wifiZone = .init(ssid: "home", latitude: 52.09, longitude: 5.12)
        let atHome = Recorder.feature(for: Self.fix(0), device: DeviceSnapshot(wifi: "home"), configuration: configuration)
        let elsewhere = Recorder.feature(for: Self.fix(0), device: DeviceSnapshot(wifi: "cafe"), configuration: configuration)
        #expect(atHome.latitude == 52.09 && atHome.longitude == 5.12 && atHome.wifi == "home")
        #expect(elsewhere.latitude == 45 && elsewhere.longitude == -77)
    }

    @Test func trackingStatsCarryThePayloadSize() {
        var configuration = RecorderConfiguration()
        configuration.trackingStats = TrackingStats(pauses: false, activity: "other", desiredAccuracy: 100,
                                                    deferred: 0, significantChange: "disabled", locationsInPayload: 1)
        var recorder = Recorder(configuration: configuration)
        let events = recorder.process(Self.fix(0), device: .none, payloadSize: 4)
        guard case .point(let point) = events.first else { Issue.record("no point"); return }
        #expect(point.trackingStats?.locationsInPayload == 4)
    }
}
