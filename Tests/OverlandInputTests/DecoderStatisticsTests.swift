import OverlandInput
import Testing

@Suite("DecoderStatistics")
struct DecoderStatisticsTests {
    @Test("summary names the non-zero counters")
    func summary() throws {
        let (_, stats) = decodeAll(NMEAStreamDecoder(), try Samples.capture("firefly-II"))
        #expect(stats.summary() == "74 lines, 69 sentences (46 accepted), 5 comment lines, 23 bad checksums, 23 fixes")
        #expect(DecoderStatistics().summary() == "0 lines, 0 fixes")
    }

    @Test("add sums every counter")
    func add() {
        var a = DecoderStatistics()
        a.lines = 2
        a.fixes = 1
        var b = DecoderStatistics()
        b.lines = 3
        b.badChecksums = 4
        a.add(b)
        #expect(a.lines == 5)
        #expect(a.badChecksums == 4)
        #expect(a.fixes == 1)
    }

    @Test("AccuracyModel: UERE by quality and the PDOP/HDOP fallback")
    func accuracyModel() {
        #expect(AccuracyModel.userEquivalentRangeError(for: .rtkFixed) == 0.05)
        #expect(AccuracyModel.userEquivalentRangeError(for: .rtkFloat) == 0.5)
        #expect(AccuracyModel.userEquivalentRangeError(for: .dgps) == 1)
        #expect(AccuracyModel.userEquivalentRangeError(for: .pps) == 1)
        #expect(AccuracyModel.userEquivalentRangeError(for: .gps) == 5)
        #expect(AccuracyModel.userEquivalentRangeError(for: .estimated) == 5)
        #expect(AccuracyModel.userEquivalentRangeError(for: nil) == 5)
        // √(2.5² − 2.0²) = 1.5; × 5 m = 7.5 m.
        #expect(AccuracyModel.verticalAccuracy(altitudeError: nil, vdop: nil, pdop: 2.5, hdop: 2.0, quality: .gps) == 7.5)
        #expect(AccuracyModel.verticalAccuracy(altitudeError: nil, vdop: nil, pdop: 1.0, hdop: 2.0, quality: .gps) == nil)
        #expect(AccuracyModel.horizontalAccuracy(latitudeError: 3, longitudeError: 4, hdop: 9, quality: .gps) == 5)
        #expect(AccuracyModel.horizontalAccuracy(latitudeError: nil, longitudeError: nil, hdop: nil, quality: .gps) == nil)
    }

    @Test("CivilDate round trips days since 1970 across four centuries")
    func civilDate() {
        for day in stride(from: Int64(-200_000), through: 200_000, by: 37) {
            #expect(CivilDate(daysSinceEpoch: day).daysSinceEpoch == day)
        }
        #expect(CivilDate(year: 2000, month: 2, day: 29) != nil)
        #expect(CivilDate(year: 1900, month: 2, day: 29) == nil)
        #expect(CivilDate(year: 2020, month: 2, day: 14)!.daysSinceEpoch == 18306)
    }
}

/// A format's own counters live in its own type: the shared statistics add them, sum
/// them, count what they recognise and read them in the summary without knowing the format.
@Suite struct FormatStatisticsTests {
    /// A format the shared statistics have never heard of.
    struct ToyStatistics: FormatStatistics {
        var rows = 0
        var badRows = 0
        init() {}
        mutating func add(_ other: ToyStatistics) {
            rows += other.rows
            badRows += other.badRows
        }
        var recognisedUnits: Int { rows }
        var headline: [String] { rows > 0 ? ["\(rows) toy rows"] : [] }
        var details: [(Int, String, String?)] { [(badRows, "bad toy row", nil)] }
    }

    @Test func aFormatsCountersAreAddedCountedAndSummarised() {
        var first = DecoderStatistics()
        first.lines = 3
        first[ToyStatistics.self].rows = 2
        var second = DecoderStatistics()
        second[ToyStatistics.self].badRows = 1
        second[UBXStatistics.self].binaryFrames = 4
        first.add(second)
        #expect(first[ToyStatistics.self].rows == 2 && first[ToyStatistics.self].badRows == 1)
        #expect(first.recognisedUnits == 6)
        #expect(first.summary() == "3 lines, 2 toy rows, 4 UBX frames (0 NAV-PVT/SOL), 1 bad toy row, 0 fixes")
        var same = first
        #expect(same == first)
        same[ToyStatistics.self].rows += 1
        #expect(same != first)
    }

    @Test func countersAtZeroAreNoFormatAtAll() {
        var statistics = DecoderStatistics()
        statistics[GPSDStatistics.self] = GPSDStatistics()
        #expect(statistics.formats.isEmpty && statistics == DecoderStatistics())
    }
}
