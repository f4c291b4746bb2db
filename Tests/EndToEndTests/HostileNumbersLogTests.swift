import Foundation
import Testing

/// Numbers with extreme lengths through the real overland-log: one sentence must never take
/// the logger down, nor the points it had not committed yet.
@Suite("overland-log: hostile numbers")
struct HostileNumbersLogTests {
    /// Epoch `index` (one a second from 2026-02-24 20:26:40 UTC): RMC and GGA with `hdop` and `speed`.
    static func epoch(_ index: Int, hdop: String = "0.98", speed: String = "0.13") -> String {
        let seconds = 20 * 3600 + 26 * 60 + 40 + index
        let clock = String(format: "%02d%02d%02d.000", seconds / 3600, seconds / 60 % 60, seconds % 60)
        let latitude = String(format: "4404.%04d", 1306 + index)
        return nmea("GPRMC,\(clock),A,\(latitude),N,12118.8515,W,\(speed),309.62,240226,,,A")
            + nmea("GPGGA,\(clock),\(latitude),N,12118.8515,W,1,10,\(hdop),1127.7,M,-19.6,M,,")
    }

    @Test("a decimal of 20 and more fraction digits as HDOP or speed: exit 0, and the 31 points before it are kept",
          arguments: [20, 21, 64, 300])
    func longFractionAfterThirtyOnePoints(places: Int) throws {
        let sandbox = try LogSandbox()
        let tiny = "0." + String(repeating: "0", count: places - 1) + "1"
        var input = (0..<31).map { Self.epoch($0) }.joined()
        input += Self.epoch(31, hdop: tiny)
        input += Self.epoch(32, speed: tiny)
        input += Self.epoch(33)
        // A commit interval far longer than the run: every point is still uncommitted when
        // the hostile sentence arrives.
        let result = try sandbox.log(["--device-id", "tiny", "--commit-interval", "3600"], stdin: Array(input.utf8))
        #expect(result.termination == .exited(0), "\(result)")
        let records = try sandbox.records()
        #expect(records.count == 34, "\(result.stderrText)")
        let verify = try sandbox.overlandJournal("journal", "verify")
        #expect(verify.termination == .exited(0), "\(verify)")
    }
}
