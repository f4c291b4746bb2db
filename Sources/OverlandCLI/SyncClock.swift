#if canImport(Glibc)
import Glibc
#endif
import OverlandJournal

/// The sync's wall clock (backoff, send interval, retention, state file times): the
/// system's, or, for the end-to-end tests, the Unix time in `OVERLAND_TEST_NOW`.
///
/// `OVERLAND_TEST_NOW=SECONDS` is a test hook in the spirit of `OVERLAND_FAULT_POINT`: it
/// lets a test step one destination through a day of backoff in a few seconds, one run
/// per simulated attempt. Every run with it set reads that one instant throughout; it
/// changes no timestamp of a point (those come from the receiver) and is ignored unless
/// it is plain decimal digits.
enum SyncClock {
    static let fixed: Int64? = {
        guard let raw = getenv("OVERLAND_TEST_NOW").map({ String(cString: $0) }), !raw.isEmpty, raw.count <= 15,
              raw.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int64(raw)
    }()

    /// Now, in Unix seconds.
    static let now: @Sendable () -> Int64 = { fixed ?? Journal.currentTime() }
}
