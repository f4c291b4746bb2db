import OverlandInput
import Testing

@Suite("Fix time gate")
struct FixTimeGateTests {
    static let now: Int64 = 1_790_000_000
    func fix(_ time: Int64) -> Fix { Fix(time: time, latitude: 45, longitude: -77, mode: .threeD) }

    func run(_ times: [Int64]) -> (passed: [Int64], gate: FixTimeGate) {
        var gate = FixTimeGate(now: { Self.now })
        var fixes: [Fix] = []
        for time in times { gate.admit(fix(time), into: &fixes) }
        gate.finish()
        return (fixes.map(\.time), gate)
    }

    @Test func futureFixesAreDropped() {
        let t = Self.now - 1000
        let (passed, gate) = run([t, t + 1, 3_450_000_000, t + 2, t + 3])
        #expect(passed == [t, t + 1, t + 2, t + 3])
        #expect(gate.futureFixes == 1)
    }

    @Test func oneJumpIntoThePastIsAnOutlier() {
        let t = Self.now - 1000
        let (passed, gate) = run([t, t + 1, t - 400_000_000, t + 2, t + 3])
        #expect(passed == [t, t + 1, t + 2, t + 3])
        #expect(gate.timeOutliers == 1)
    }

    @Test func aConfirmedJumpIsKept() {
        let t = Self.now - 10_000_000
        // Days later (a receiver switched on again), or a second capture in one file.
        let (passed, gate) = run([t, t + 1, t + 5_000_000, t + 5_000_001, t + 5_000_002])
        #expect(passed == [t, t + 1, t + 5_000_000, t + 5_000_001, t + 5_000_002])
        #expect(gate.timeOutliers == 0)
        let back = run([t, t + 1, t - 5_000_000, t - 4_999_999])
        #expect(back.passed == [t, t + 1, t - 5_000_000, t - 4_999_999])
    }

    @Test func aJumpAloneAtTheEndIsDropped() {
        let t = Self.now - 1000
        let (passed, gate) = run([t, t + 1, t - 400_000_000])
        #expect(passed == [t, t + 1])
        #expect(gate.timeOutliers == 1)
    }
}
