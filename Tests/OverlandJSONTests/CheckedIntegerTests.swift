import OverlandJSON
import Testing

/// `CheckedInteger`: the one conversion of a double to an integer; nil, never a trap.
@Suite struct CheckedIntegerTests {
    @Test(arguments: [(0.0, 0), (-0.0, 0), (0.49999999999999994, 0), (0.5, 1), (-0.5, -1), (2.5, 3), (-2.5, -3), (1e-300, 0),
                      (4.9e-324, 0), (4.6e18, 4_600_000_000_000_000_000 as Int)])
    func roundsHalfAwayFromZero(value: Double, expected: Int) {
        #expect(CheckedInteger.rounded(value) == expected)
    }

    @Test(arguments: [0x1p62, -0x1p62, 9.3e18, -9.3e18, 1e19, -1e19, 1e300, .greatestFiniteMagnitude, .infinity, -.infinity, .nan])
    func outOfRangeIsNil(value: Double) {
        #expect(CheckedInteger.rounded(value) == nil)
        #expect(CheckedInteger.roundedUp(value) == nil)
        #expect(CheckedInteger.roundedDown(value) == nil)
    }

    @Test func upDownAndWithinARange() {
        #expect(CheckedInteger.roundedUp(0.1) == 1 && CheckedInteger.roundedUp(-0.9) == 0 && CheckedInteger.roundedUp(3) == 3)
        #expect(CheckedInteger.roundedDown(-0.1) == -1 && CheckedInteger.roundedDown(0.9) == 0 && CheckedInteger.roundedDown(-3) == -3)
        #expect(CheckedInteger.rounded(2_147_483_647.4, in: 0...2_147_483_647) == 2_147_483_647)
        #expect(CheckedInteger.rounded(2_147_483_647.5, in: 0...2_147_483_647) == nil)
        #expect(CheckedInteger.rounded(-0.6, in: 0...10) == nil)
    }
}
