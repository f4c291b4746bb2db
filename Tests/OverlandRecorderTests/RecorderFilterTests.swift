import OverlandInput
import OverlandProtocol
import Testing

@testable import OverlandRecorder

/// The recorder's filters, one at a time, with the counter each drop lands in.
@Suite struct RecorderFilterTests {
    @Test func everyFixPassesUnderTheDefaults() {
        let (seconds, recorder) = record((0..<10).map { makeFix($0) })
        #expect(seconds == Array(0..<10))
        #expect(recorder.statistics.fixes == 10 && recorder.statistics.points == 10)
        #expect(recorder.statistics == { var s = Recorder.Statistics(); s.fixes = 10; s.points = 10; return s }())
    }

    @Test func trackingOffLogsNothing() {
        let (seconds, recorder) = record((0..<5).map { makeFix($0 * 10, north: Double($0) * 1000) }) {
            $0.trackingMode = .off
        }
        #expect(seconds.isEmpty)
        #expect(recorder.statistics.fixes == 5 && recorder.statistics.points == 0)
        #expect(recorder.statistics.droppedTrackingOff == 5)
    }

    @Test func minimumTimeKeepsOnePointPerInterval() {
        // 1 Hz for 21 s with min time 5: 0, 5, 10, 15, 20.
        let (seconds, recorder) = record((0...20).map { makeFix($0) }) { $0.minimumInterval = 5 }
        #expect(seconds == [0, 5, 10, 15, 20])
        #expect(recorder.statistics.droppedInterval == 16)
        #expect(recorder.statistics.points == 5)
    }

    @Test func minimumTimeCountsFromTheLastPointNotTheLastFix() {
        // 2 s spacing with min time 5: 0, (2, 4 dropped), 6, (8, 10 dropped), 12.
        let (seconds, _) = record(stride(from: 0, through: 12, by: 2).map { makeFix(Int64($0)) }) { $0.minimumInterval = 5 }
        #expect(seconds == [0, 6, 12])
    }

    /// A 5 Hz receiver gives five fixes per whole second: only the first becomes a point,
    /// even with min time 0 (timestamps are whole seconds; some receivers treat them as
    /// unique). The other four count as "same second as the previous fix".
    @Test(arguments: [0, 1] as [Int64])
    func fiveHertzKeepsTheFirstFixOfEachSecond(minimumInterval: Int64) {
        var fixes: [Fix] = []
        for second in 0..<3 as Range<Int64> {
            for fifth in 0..<5 {
                fixes.append(makeFix(second, nanoseconds: Int32(fifth) * 200_000_000, north: Double(fifth)))
            }
        }
        var configuration = RecorderConfiguration()
        configuration.minimumInterval = minimumInterval
        var recorder = Recorder(configuration: configuration)
        let points = fixes.compactMap { recorder.point(for: $0, device: .none) }
        #expect(points.map(\.timestamp) == [baseTime, baseTime + 1, baseTime + 2])
        // The first fix of each second, not a later one.
        #expect(points.map(\.latitude) == [fixes[0], fixes[5], fixes[10]].map(\.latitude))
        #expect(recorder.statistics.droppedSameSecond == 12)
        #expect(recorder.statistics.droppedInterval == 0)
        #expect(recorder.statistics.droppedOutOfOrder == 0)
    }

    @Test func outOfOrderFixesAreDropped() {
        let (seconds, recorder) = record([makeFix(10), makeFix(9), makeFix(5), makeFix(10), makeFix(11)])
        #expect(seconds == [10, 11])
        #expect(recorder.statistics.droppedOutOfOrder == 2, "9 and 5 go back in time")
        #expect(recorder.statistics.droppedSameSecond == 1, "the repeated 10 is the same second")
    }

    @Test func minimumDistanceBoundary() {
        // Distances measured from the last point kept, not the last fix.
        let fixes = [makeFix(0, north: 0), makeFix(1, north: 9.9), makeFix(2, north: 10.1),
                     makeFix(3, north: 15), makeFix(4, north: 20.3), makeFix(5, north: 20.2)]
        let (seconds, recorder) = record(fixes) { $0.minimumDistance = 10 }
        #expect(seconds == [0, 2, 4])
        #expect(recorder.statistics.droppedDistance == 3)
    }

    @Test func accuracyGateDropsWorseFixesAndKeepsUnknownOnes() {
        let fixes = [makeFix(0, horizontalAccuracy: 100.5), makeFix(1, horizontalAccuracy: nil),
                     makeFix(2, horizontalAccuracy: 100), makeFix(3, horizontalAccuracy: 2000), makeFix(4, horizontalAccuracy: 3)]
        let (seconds, recorder) = record(fixes) { $0.accuracyGate = 100 }
        #expect(seconds == [1, 2, 4], "worse than the gate drops; equal passes; unknown cannot be judged and passes")
        #expect(recorder.statistics.droppedAccuracy == 2)
    }

    @Test func aFixDroppedByAccuracyIsNotTheLastPoint() {
        // Were the dropped fix at 1 s taken as the last point, the fix at 2 s would be within min time.
        let (seconds, _) = record([makeFix(0), makeFix(1, horizontalAccuracy: 500), makeFix(2)]) {
            $0.accuracyGate = 100
            $0.minimumInterval = 2
        }
        #expect(seconds == [0, 2])
    }

    @Test func noGateKeepsEveryAccuracy() {
        let (seconds, _) = record([makeFix(0, horizontalAccuracy: 5000), makeFix(1, horizontalAccuracy: 99_999)])
        #expect(seconds == [0, 1])
    }

    @Test func significantModeNeedsFiveHundredMetres() {
        let fixes = [makeFix(0, north: 0), makeFix(10, north: 499), makeFix(20, north: 501),
                     makeFix(30, north: 900), makeFix(40, north: 1002)]
        let (seconds, recorder) = record(fixes) { $0.trackingMode = .significant }
        #expect(seconds == [0, 20, 40], "the first fix, then moves of 500 m or more from the last point")
        #expect(recorder.statistics.droppedNotSignificant == 2)
        #expect(RecorderConfiguration().significantChangeMetres == 500)
    }

    @Test func bothModeIsStandard() {
        let fixes = [makeFix(0, north: 0), makeFix(1, north: 1), makeFix(2, north: 2)]
        #expect(record(fixes) { $0.trackingMode = .both }.seconds == [0, 1, 2])
        #expect(record(fixes) { $0.trackingMode = .standard }.seconds == [0, 1, 2])
    }

    @Test func startNewStreamForgetsTheLastPoint() {
        var configuration = RecorderConfiguration()
        configuration.minimumInterval = 30
        configuration.minimumDistance = 100
        var recorder = Recorder(configuration: configuration)
        #expect(recorder.point(for: makeFix(100), device: .none) != nil)
        #expect(recorder.point(for: makeFix(50), device: .none) == nil, "out of order")
        #expect(recorder.point(for: makeFix(110, north: 500), device: .none) == nil, "within min time")
        #expect(recorder.point(for: makeFix(200, north: 10), device: .none) == nil, "within min distance")

        // A new input file: an earlier time, the same spot, the same second all pass.
        recorder.startNewStream()
        #expect(recorder.point(for: makeFix(0), device: .none) != nil)
        recorder.startNewStream()
        #expect(recorder.point(for: makeFix(0), device: .none) != nil)
        #expect(recorder.statistics.points == 3 && recorder.statistics.fixes == 6, "statistics keep counting across streams")
    }

    @Test func aNewConfigurationAppliesToTheNextFix() {
        var recorder = Recorder(configuration: RecorderConfiguration())
        #expect(recorder.point(for: makeFix(0), device: .none) != nil)
        #expect(recorder.point(for: makeFix(1), device: .none) != nil)
        recorder.configuration.minimumInterval = 5
        #expect(recorder.point(for: makeFix(2), device: .none) == nil)
        #expect(recorder.point(for: makeFix(6), device: .none) != nil, "measured from the last point, kept across the reload")
    }
}
