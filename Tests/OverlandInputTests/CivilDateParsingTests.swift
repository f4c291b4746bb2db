import Testing
import OverlandInput

/// `CivilDate(parsing:)`: `overland-log --date`.
@Suite("CivilDate parsing")
struct CivilDateParsingTests {
    @Test func takesADayThatExists() throws {
        let date = try #require(CivilDate(parsing: "2024-02-29"))
        #expect(date == CivilDate(year: 2024, month: 2, day: 29))
        #expect(CivilDate(parsing: "1980-01-01") != nil)
        #expect(CivilDate(parsing: "2200-12-31") != nil)
    }

    @Test func refusesAnythingElse() {
        for text in ["2023-02-29", "2024-13-01", "2024-6-01", "24-06-01", "2024-06-01T00:00:00Z", "1979-12-31", "2201-01-01",
                     "", "2024-06", "2024-06-01-02", "+024-06-01", "2024/06/01"] {
            #expect(CivilDate(parsing: text) == nil, "\(text)")
        }
    }
}
