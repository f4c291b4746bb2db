import OverlandProtocol
import Testing

@testable import OverlandRecorder

/// Motion from ground speed: each threshold belongs to the faster activity.
@Suite struct MotionClassifierTests {
    @Test(arguments: [
        (0.0, Motion.stationary), (0.49, .stationary), (0.4999999, .stationary),
        (0.5, .walking), (1.4, .walking), (2.1999999, .walking),
        (2.2, .running), (4.1999999, .running),
        (4.2, .cycling), (8.2999999, .cycling),
        (8.3, .driving), (30.83, .driving), (343.0, .driving),
    ])
    func thresholds(speed: Double, expected: Motion) {
        #expect(MotionClassifier.motion(forSpeed: speed) == [expected])
    }

    @Test func thresholdsAreTheDocumentedOnes() {
        #expect(MotionClassifier.stationaryBelow == 0.5)
        #expect(MotionClassifier.walkingBelow == 2.2)
        #expect(MotionClassifier.runningBelow == 4.2)
        #expect(MotionClassifier.cyclingBelow == 8.3)
    }

    @Test(arguments: [nil, -1.0, -0.01, Double.nan, Double.infinity, -Double.infinity] as [Double?])
    func unknownSpeedGivesNoMotion(speed: Double?) {
        #expect(MotionClassifier.motion(forSpeed: speed) == [])
    }
}
