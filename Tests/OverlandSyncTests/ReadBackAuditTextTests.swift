import Testing
@testable import OverlandSync

/// `ReadBackAudit.span`, `table` and `json`: what `overland destination audit` and `resend`
/// take and print.
@Suite("ReadBackAudit text")
struct ReadBackAuditTextTests {
    @Test func spanTakesDaysAndTimes() throws {
        let day: Int64 = 1_793_491_200 // 2026-11-01T00:00:00Z
        let span = try ReadBackAudit.span(since: "2026-11-01", until: "2026-11-02")
        #expect(span.since == day)
        #expect(span.until == day + 2 * 86_400 - 1)
        let time: Int64 = day + 5 * 3600 + 17 * 60 + 12
        #expect(try ReadBackAudit.span(since: "2026-11-01T05:17:12Z", until: nil).since == time)
        let none = try ReadBackAudit.span(since: nil, until: nil)
        #expect(none.since == nil && none.until == nil)
    }

    @Test func spanRefusesWhatIsNoDayAndAWindowBackwards() {
        #expect(throws: ReadBackAudit.SpanError(description:
            "invalid value \"yesterday\" for --until (allowed: a day YYYY-MM-DD or a time YYYY-MM-DDTHH:MM:SSZ, UTC)")) {
            try ReadBackAudit.span(since: nil, until: "yesterday")
        }
        #expect(throws: ReadBackAudit.SpanError(description: "--since 2026-11-03 is after --until 2026-11-02")) {
            try ReadBackAudit.span(since: "2026-11-03", until: "2026-11-02")
        }
        // A control character from the command line never reaches the terminal as it is.
        let error = #expect(throws: ReadBackAudit.SpanError.self) { try ReadBackAudit.parse("\u{1b}[2J", option: "--since", dayEnd: false) }
        #expect(error?.description.unicodeScalars.contains("\u{1b}") == false)
    }

    static func days() -> [ReadBackAudit.Day] {
        var first = ReadBackAudit.Day(start: 1_793_491_200)
        first.sent = 10
        first.stored = 9
        first.missing = 1
        var second = ReadBackAudit.Day(start: 1_793_491_200 + 86_400)
        second.sent = 5
        second.stored = 6
        second.extra = 1
        return [first, second]
    }

    @Test func tableAddsUpSeveralDays() {
        let lines = ReadBackAudit.table(Self.days()).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines == [
            "day         sent    stored  missing moved   extra   ",
            "2026-11-01  10      9       1       0       0       ",
            "2026-11-02  5       6       0       0       1       ",
            "all         15      15      1       0       1       ",
            "",
        ])
        let one = ReadBackAudit.table(Array(Self.days().prefix(1)))
        #expect(!one.contains("all"))
        #expect(ReadBackAudit.table([]).hasSuffix("(no points sent to this destination are left in the journal)\n"))
    }

    @Test func jsonIsOneObjectADay() {
        #expect(ReadBackAudit.json(Self.days()) == """
            [{"day":"2026-11-01","sent":10,"stored":9,"missing":1,"moved":0,"extra":0},\
            {"day":"2026-11-02","sent":5,"stored":6,"missing":0,"moved":0,"extra":1}]

            """)
        #expect(ReadBackAudit.json([]) == "[]\n")
    }
}
