import Foundation  // Only as a reference oracle; the module does not use it.
import Testing
@testable import OverlandJSON

@Suite struct ISO8601UTCTests {
    static let known: [(Int64, String)] = [
        (0, "1970-01-01T00:00:00Z"),
        (1_443_711_600, "2015-10-01T15:00:00Z"),
        (1_701_795_025, "2023-12-05T16:50:25Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
        (4_107_542_399, "2100-02-28T23:59:59Z"),
        (4_107_542_400, "2100-03-01T00:00:00Z"),
        (2_147_483_647, "2038-01-19T03:14:07Z"),
        (253_402_300_799, "9999-12-31T23:59:59Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (-62_167_219_200, "0000-01-01T00:00:00Z"),
    ]

    @Test(arguments: known)
    func formatsAndParses(seconds: Int64, text: String) {
        #expect(ISO8601UTC.string(from: seconds) == text)
        #expect(ISO8601UTC.parse(text) == seconds)
        #expect(ISO8601UTC.parse(Array(text.utf8)) == seconds)
    }

    @Test func clampsOutsideFourDigitYears() {
        #expect(ISO8601UTC.string(from: .max) == "9999-12-31T23:59:59Z")
        #expect(ISO8601UTC.string(from: .min) == "0000-01-01T00:00:00Z")
    }

    @Test func agreesWithFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        // A fixed linear congruential sequence, so that every run checks the same instants.
        var state: UInt64 = 1_443_711_600
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let seconds = Int64(state >> 1) % 253_402_300_800
            let text = ISO8601UTC.string(from: seconds)
            #expect(text == formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))))
            #expect(ISO8601UTC.parse(text) == seconds)
        }
        // Every day boundary over four centuries, both directions.
        var day: Int64 = -146_097
        while day < 146_097 * 2 {
            let (year, month, dayOfMonth) = ISO8601UTC.civil(fromDays: day)
            #expect(ISO8601UTC.days(fromYear: year, month: month, day: dayOfMonth) == day)
            day += 1
        }
    }

    static let accepted: [(String, Int64)] = [
        ("2015-10-01T15:00:00.999Z", 1_443_711_600),
        ("2015-10-01T15:00:00.1+00:00", 1_443_711_600),
        ("2015-10-01T15:00:00+00:00", 1_443_711_600),
        ("2015-10-01T15:00:00.000000000000Z", 1_443_711_600),
        ("2024-02-29T12:00:00Z", 1_709_208_000),
    ]

    @Test(arguments: accepted)
    func acceptsVariants(text: String, seconds: Int64) {
        #expect(ISO8601UTC.parse(text) == seconds)
    }

    static let rejected = [
        "", "2015-10-01", "2015-10-01T15:00:00", "2015-10-01T15:00Z", "2015-10-01 15:00:00Z",
        "2015-10-01t15:00:00Z", "2015-10-01T15:00:00z", "2015-10-01T15:00:00+01:00", "2015-10-01T15:00:00-00:00",
        "2015-10-01T15:00:00.Z", "2015-10-01T15:00:00ZZ", "2015-10-01T15:00:00Z ", " 2015-10-01T15:00:00Z",
        "2015-13-01T15:00:00Z", "2015-00-01T15:00:00Z", "2015-02-29T15:00:00Z", "2100-02-29T15:00:00Z",
        "2015-04-31T15:00:00Z", "2015-10-00T15:00:00Z", "2015-10-01T24:00:00Z", "2015-10-01T15:60:00Z",
        "2015-10-01T15:00:60Z", "+2015-10-01T15:00:00Z", "2015-1-01T15:00:00Z", "20151001T150000Z",
        "１２３４-10-01T15:00:00Z", "2015-10-01T15:00:00.5.5Z",
    ]

    @Test(arguments: rejected)
    func rejectsOtherForms(text: String) {
        #expect(ISO8601UTC.parse(text) == nil)
    }
}
