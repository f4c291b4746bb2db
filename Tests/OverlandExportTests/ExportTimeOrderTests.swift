import TestSupport
import Foundation
import Testing
import OverlandExport
import OverlandJSON
import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

/// Exports come out oldest first even when the journal is not in time order (an old
/// capture imported after newer points), sorted through temporary files in bounded memory;
/// a journal in time order makes no file at all.
@Suite struct ExportTimeOrderTests {
    static let t2024: Int64 = 1_717_891_200 // 2024-06-09T00:00:00Z
    static let t2020: Int64 = 1_581_703_542 // 2020-02-14T18:05:42Z

    /// The CSV's timestamps, in the order written.
    static func csvTimes(_ text: String) -> [String] {
        text.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }.map { String($0.prefix(20)) }
    }

    /// The names (and modes) of what is in `directory`, seen from inside the export.
    static func listing(_ directory: String) -> [(String, mode_t)] {
        var result: [(String, mode_t)] = []
        for name in (try? FileManager.default.subpathsOfDirectory(atPath: directory)) ?? [] {
            var info = stat()
            if lstat(directory + "/" + name, &info) == 0 { result.append((name, info.st_mode & 0o777)) }
        }
        return result
    }

    @Test func aDriveImportedAfterANewerOneComesOutOldestFirstInEveryFormat() throws {
        let directory = try TemporaryDirectory()
        let newer = (0..<30).map { locationLine($0, time: Self.t2024 + Int64($0)) }
        let older = (0..<30).map { locationLine($0, time: Self.t2020 + Int64($0)) }
        let journal = try makeJournal(at: directory.path + "/j", lines: newer + older, perSegment: 17)
        let expected = (older + newer).map { line -> String in
            let time = line.range(of: "\"timestamp\":\"")!.upperBound
            return String(line[time...].prefix(20))
        }
        let (csv, summary, _) = try exportText(journal, ExportOptions(format: .csv))
        #expect(Self.csvTimes(csv) == expected)
        #expect(summary.outOfOrder == 30 && summary.written == 60)

        let (gpx, _, _) = try exportText(journal, ExportOptions(format: .gpx))
        let gpxTimes = gpx.components(separatedBy: "<time>").dropFirst().map { String($0.prefix(20)) }
        #expect(gpxTimes == expected)
        // 2020 and 2024 are far apart: two track segments, the older first.
        #expect(gpx.components(separatedBy: "<trkseg>").count - 1 == 2)

        let (geojson, _, _) = try exportText(journal, ExportOptions(format: .geojson))
        let collection = try #require(try JSONScan.object(geojson.utf8))
        let features = try #require(collection["features"] as? [[String: Any]])
        let times = features.compactMap { ($0["properties"] as? [String: Any])?["timestamp"] as? String }
        #expect(times == expected)
    }

    @Test(arguments: [1, 7, 100, 10_000])
    func shuffledTimesSortStablyThroughManyRuns(chunk: Int) throws {
        let directory = try TemporaryDirectory()
        var generator = SeededGenerator(seed: UInt64(chunk))
        // 1,200 points at 300 distinct seconds in random order, an action and a trip among them.
        var lines: [(time: Int64, line: String)] = []
        for index in 0..<1200 {
            let time = Self.t2024 + Int64.random(in: 0..<300, using: &generator)
            lines.append((time, locationLine(index, time: time)))
        }
        lines.insert((Self.t2024 + 150, actionLine(time: Self.t2024 + 150)), at: 600)
        let journal = try makeJournal(at: directory.path + "/j", lines: lines.map(\.line), perSegment: 97)
        var options = ExportOptions(format: .geojson)
        options.sortChunkRecords = chunk
        options.temporaryDirectory = directory.path + "/tmp"
        try FileManager.default.createDirectory(atPath: options.temporaryDirectory!, withIntermediateDirectories: false)
        var seenDuringWrite: [(String, mode_t)] = []
        var bytes: [UInt8] = []
        let summary = try Exporter.export(journal, options: options) { chunk in
            if seenDuringWrite.isEmpty { seenDuringWrite = Self.listing(options.temporaryDirectory!) }
            bytes += chunk
        }
        // Stable: equal times keep the order logged.
        let expected = lines.enumerated().sorted { a, b in a.element.time != b.element.time ? a.element.time < b.element.time : a.offset < b.offset }
            .map(\.element.line)
        let collection = try #require(try JSONScan.object(bytes))
        let features = try #require(collection["features"] as? [[String: Any]])
        try #require(features.count == expected.count)
        let written = try features.map { String(decoding: try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]), as: UTF8.self) }
        let wanted = try expected.map { line -> String in
            let object = try JSONScan.value(line.utf8)
            return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }
        #expect(written == wanted)
        #expect(summary.written == 1201)
        // Runs went to private files while sorting (a chunk of 10,000 holds all in memory)...
        let expectedRuns = chunk >= 1201 ? 0 : 1
        #expect((summary.sortedRuns > 0 ? 1 : 0) == expectedRuns, "\(summary.sortedRuns) runs")
        if expectedRuns > 0 {
            #expect(!seenDuringWrite.isEmpty)
            for (name, mode) in seenDuringWrite {
                #expect(mode == (name.contains("/") ? 0o600 : 0o700), "\(name): \(String(mode, radix: 8))")
            }
        }
        // ... and none is left behind.
        #expect(Self.listing(options.temporaryDirectory!).isEmpty)
    }

    @Test func aJournalInTimeOrderMakesNoTemporaryFile() throws {
        let directory = try TemporaryDirectory()
        let lines = (0..<500).map { locationLine($0, time: Self.t2024 + Int64($0 / 3)) } + [tripLine(start: Self.t2024, end: Self.t2024 + 200)]
        let journal = try makeJournal(at: directory.path + "/j", lines: lines, perSegment: 60)
        var options = ExportOptions(format: .csv)
        options.sortChunkRecords = 1
        options.temporaryDirectory = directory.path + "/tmp"
        try FileManager.default.createDirectory(atPath: options.temporaryDirectory!, withIntermediateDirectories: false)
        var seen = 0
        var bytes: [UInt8] = []
        let summary = try Exporter.export(journal, options: options) { chunk in
            seen += Self.listing(options.temporaryDirectory!).count
            bytes += chunk
        }
        #expect(seen == 0 && summary.sortedRuns == 0 && summary.outOfOrder == 0)
        #expect(Self.csvTimes(String(decoding: bytes, as: UTF8.self)).count == 500)
    }

    @Test func theWindowAndUnsentFiltersApplyBeforeTheSort() throws {
        let directory = try TemporaryDirectory()
        let newer = (0..<40).map { locationLine($0, time: Self.t2024 + Int64($0)) }
        let older = (0..<40).map { locationLine($0, time: Self.t2020 + Int64($0)) }
        let journal = try makeJournal(at: directory.path + "/j", lines: newer + older)
        try journal.advanceCursor(to: 30)
        var options = ExportOptions(format: .csv)
        options.unsentOnly = true
        options.sortChunkRecords = 4
        let (text, summary, _) = try exportText(journal, options)
        let times = Self.csvTimes(text)
        #expect(times.count == 50 && times == times.sorted())
        #expect(times.first == ISO8601UTC.string(from: Self.t2020) && times.last == ISO8601UTC.string(from: Self.t2024 + 39))
        options.unsentOnly = false
        options.from = Self.t2020 + 10
        options.to = Self.t2024 + 9
        let (window, windowSummary, _) = try exportText(journal, options)
        #expect(Self.csvTimes(window).count == 40 && windowSummary.outsideWindow == 40)
        #expect(Self.csvTimes(window) == Self.csvTimes(window).sorted())
    }

    @Test func aTemporaryDirectoryThatCannotBeWrittenIsAClearError() throws {
        let directory = try TemporaryDirectory()
        let lines = [locationLine(0, time: Self.t2024), locationLine(1, time: Self.t2020), locationLine(2, time: Self.t2020 + 1)]
        let journal = try makeJournal(at: directory.path + "/j", lines: lines)
        var options = ExportOptions(format: .csv)
        options.sortChunkRecords = 1
        options.temporaryDirectory = directory.path + "/missing"
        #expect {
            _ = try exportText(journal, options)
        } throws: { error in
            (error as? ExportSortError)?.description.contains(directory.path + "/missing") == true
        }
    }
}

/// A small deterministic generator (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
