import TestSupport
import Foundation
import Testing
@testable import OverlandExport
import OverlandJSON
import OverlandJournal

@Suite struct ExporterTests {
    static let t0: Int64 = 1_795_000_000 // 2026-11-18T11:06:40Z

    @Test func gpxHoldsEveryPointInOrderWithTimeElevationSpeedAndCourse() throws {
        let directory = try TemporaryDirectory()
        var lines = (0..<120).map { locationLine($0, time: Self.t0 + Int64($0) * 5) }
        lines.insert(actionLine(time: Self.t0 + 100), at: 20)
        lines.append(tripLine(start: Self.t0, end: Self.t0 + 600))
        let journal = try makeJournal(at: directory.path + "/j", lines: lines)
        let (text, summary, _) = try exportText(journal, ExportOptions(format: .gpx))
        #expect(summary.records == 122)
        #expect(summary.written == 120)
        #expect(summary.leftOut == 2)
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"overland\""))
        #expect(text.hasSuffix("</trkseg>\n</trk>\n</gpx>\n"))
        #expect(text.components(separatedBy: "<trkpt ").count - 1 == 120)
        #expect(text.components(separatedBy: "<trkseg>").count - 1 == 1)
        #expect(text.contains(#"<trkpt lat="52.5001" lon="13.4001"><ele>40</ele><time>2026-11-18T11:06:45Z</time><extensions><gpxtpx:TrackPointExtension><gpxtpx:speed>1.5</gpxtpx:speed><gpxtpx:course>90</gpxtpx:course></gpxtpx:TrackPointExtension></extensions></trkpt>"#))
        #expect(text.contains("<name>overland van</name>"))
    }

    @Test func gpxStartsANewSegmentAfterAGapAndLeavesUnknownsOut() throws {
        let directory = try TemporaryDirectory()
        let lines = [
            locationLine(0, time: Self.t0),
            locationLine(1, time: Self.t0 + 10, speed: -1, course: -1, altitude: 0, verticalAccuracy: -1),
            locationLine(2, time: Self.t0 + 10 + 901),
            locationLine(3, time: Self.t0 + 5), // the clock went back
            locationLine(4, time: Self.t0, longitude: 180),
        ]
        let journal = try makeJournal(at: directory.path + "/j", lines: lines)
        let (text, summary, _) = try exportText(journal, ExportOptions(format: .gpx))
        #expect(summary.written == 5)
        // Written oldest first (0 and 4 at t0, 3, 1, then 2 after a gap of 901 s): one gap.
        #expect(text.components(separatedBy: "<trkseg>").count - 1 == 2)
        #expect(summary.outOfOrder == 2)
        #expect(text.contains(#"<trkpt lat="52.5001" lon="13.4001"><time>2026-11-18T11:06:50Z</time></trkpt>"#))
        // The schema's longitude is -180 <= lon < 180.
        #expect(text.contains(#"lon="-180""#))
    }

    @Test func gpxEscapesTheTrackName() throws {
        let directory = try TemporaryDirectory()
        let journal = try makeJournal(at: directory.path + "/j", lines: [locationLine(0, time: Self.t0)], deviceID: "a<b>&\"c'")
        var options = ExportOptions(format: .gpx)
        options.creator = "x & y"
        let (text, _, _) = try exportText(journal, options)
        #expect(text.contains("<name>overland a&lt;b&gt;&amp;&quot;c&apos;</name>"))
        #expect(text.contains("creator=\"x &amp; y\""))
    }

    @Test func geojsonIsAFeatureCollectionOfTheStoredLines() throws {
        let directory = try TemporaryDirectory()
        var lines = (0..<30).map { locationLine($0, time: Self.t0 + Int64($0)) }
        lines.append(actionLine(time: Self.t0 + 40))
        let journal = try makeJournal(at: directory.path + "/j", lines: lines, perSegment: 7)
        let (text, summary, _) = try exportText(journal, ExportOptions(format: .geojson))
        #expect(summary.written == 31)
        let parsed = try #require(try JSONScan.object(text.utf8))
        #expect(parsed["type"] as? String == "FeatureCollection")
        #expect((parsed["features"] as? [Any])?.count == 31)
        // Each Feature exactly as stored, one per line.
        let body = text.split(separator: "\n").dropFirst().dropLast().map { $0.hasSuffix(",") ? String($0.dropLast()) : String($0) }
        #expect(body == lines)

        var pointsOnly = ExportOptions(format: .geojson)
        pointsOnly.pointsOnly = true
        #expect(try exportText(journal, pointsOnly).summary.written == 30)
    }

    @Test func emptyJournalGivesValidEmptyDocuments() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.path + "/j", create: true)
        #expect(try exportText(journal, ExportOptions(format: .geojson)).text == "{\"type\":\"FeatureCollection\",\"features\":[\n]}\n")
        #expect(try exportText(journal, ExportOptions(format: .csv)).text.split(separator: "\r\n").count == 1)
        #expect(try exportText(journal, ExportOptions(format: .gpx)).text.hasSuffix("<trk>\n<name>overland</name>\n</trk>\n</gpx>\n"))
    }

    @Test func csvHasAHeaderAndQuotesPerRFC4180() throws {
        let directory = try TemporaryDirectory()
        let lines = [
            locationLine(0, time: Self.t0, wifi: "home, \"net\"", trip: "2026-11-18T11:00:00Z"),
            locationLine(1, time: Self.t0 + 1, speed: -1, course: -1, wifi: "line\nbreak"),
            tripLine(start: Self.t0, end: Self.t0 + 1),
        ]
        let journal = try makeJournal(at: directory.path + "/j", lines: lines)
        let (text, summary, _) = try exportText(journal, ExportOptions(format: .csv))
        #expect(summary.written == 2)
        let rows = text.components(separatedBy: "\r\n")
        try #require(rows.count >= 3, "\(rows)")
        #expect(rows[0] == "timestamp,latitude,longitude,altitude,speed,course,horizontal_accuracy,vertical_accuracy,motion,battery_state,battery_level,wifi,device_id,trip_id")
        #expect(rows[1] == #"2026-11-18T11:06:40Z,52.5,13.4,40,1.5,90,5,4,driving,charging,0.5,"home, ""net""",van,2026-11-18T11:00:00Z"#)
        #expect(rows[2] == "2026-11-18T11:06:41Z,52.5001,13.4001,40,,,5,4,driving,charging,0.5,\"line\nbreak\",van,")
        #expect(rows.last == "")
    }

    /// OWASP CSV injection: a text field a spreadsheet would run as a formula is prefixed with
    /// `'` and quoted; the numeric columns (a negative latitude starts with `-`) stay numbers.
    @Test(arguments: [
        ("=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\""),
        ("+cmd|' /C calc'!A0", "\"'+cmd|' /C calc'!A0\""),
        ("@SUM(A1)", "\"'@SUM(A1)\""),
        ("-2+3", "\"'-2+3\""),
        ("\r=1+1", "\"'=1+1\""),
        ("\t=1+1", "\"'\t=1+1\""),
        ("  =1+1", "\"'  =1+1\""),
        ("\"=1+1\"", "\"'\"\"=1+1\"\"\""),
        ("'@x", "\"''@x\""),
        ("\n-1", "\"'\n-1\""),
        ("home-net", "home-net"),
        ("a=b", "a=b"),
        ("", ""),
    ])
    func csvNeutralisesFormulas(raw: String, field: String) throws {
        var output: [UInt8] = []
        CSVFormatter.appendField(raw, to: &output)
        #expect(String(decoding: output, as: UTF8.self) == field)
    }

    @Test func csvNeutralisesTheTextColumnsAndKeepsNumbers() throws {
        let directory = try TemporaryDirectory()
        let lines = [locationLine(0, time: Self.t0, latitude: -33.8, longitude: -70.6, wifi: "=HYPERLINK(\"http://evil\",\"x\")",
                                  device: "@SUM(1)", trip: "-2+3")]
        let journal = try makeJournal(at: directory.path + "/j", lines: lines)
        let rows = try exportText(journal, ExportOptions(format: .csv)).text.components(separatedBy: "\r\n")
        try #require(rows.count >= 2, "\(rows)")
        #expect(rows[1] == #"2026-11-18T11:06:40Z,-33.8,-70.6,40,1.5,90,5,4,driving,charging,0.5,"'=HYPERLINK(""http://evil"",""x"")","'@SUM(1)","'-2+3""#)
    }

    @Test func theTimeWindowIncludesBothEnds() throws {
        let directory = try TemporaryDirectory()
        var lines = (0..<100).map { locationLine($0, time: Self.t0 + Int64($0) * 60) }
        lines.append(tripLine(start: Self.t0, end: Self.t0 + 30 * 60))
        let journal = try makeJournal(at: directory.path + "/j", lines: lines, perSegment: 13)
        var options = ExportOptions(format: .geojson)
        options.from = Self.t0 + 10 * 60
        options.to = Self.t0 + 30 * 60
        let (_, summary, _) = try exportText(journal, options)
        #expect(summary.written == 22) // 21 points and the trip, which ends at 30 minutes
        #expect(summary.outsideWindow == 79)
    }

    @Test func sentRecordsAreIncludedUnlessUnsentOnly() throws {
        let directory = try TemporaryDirectory()
        let journal = try makeJournal(at: directory.path + "/j", lines: (0..<60).map { locationLine($0, time: Self.t0 + Int64($0)) })
        try journal.advanceCursor(to: 45)
        #expect(try exportText(journal, ExportOptions(format: .csv)).summary.written == 60)
        var unsent = ExportOptions(format: .csv)
        unsent.unsentOnly = true
        #expect(try exportText(journal, unsent).summary.written == 15)
    }

    @Test func outputStreamsInBoundedChunks() throws {
        let directory = try TemporaryDirectory()
        let lines = (0..<4000).map { locationLine($0, time: Self.t0 + Int64($0)) }
        let journal = try makeJournal(at: directory.path + "/j", lines: lines, perCommit: 200, perSegment: 1000)
        var largest = 0
        var total = 0
        _ = try Exporter.export(journal, options: ExportOptions(format: .geojson)) { chunk in
            largest = max(largest, chunk.count)
            total += chunk.count
        }
        #expect(total > 4 * Exporter.chunkBytes)
        #expect(largest < Exporter.chunkBytes + 70_000)
    }

    @Test(arguments: [
        ("2026-11-21", false, Int64(1_795_219_200)),
        ("2026-11-21", true, Int64(1_795_219_200 + 86_399)),
        ("2026-11-21T05:17:12Z", false, Int64(1_795_238_232)),
        ("2026-11-21T05:17:12+00:00", true, Int64(1_795_238_232)),
    ])
    func timesParse(text: String, endOfDay: Bool, expected: Int64) {
        #expect(ExportTime.parse(text, endOfDay: endOfDay) == expected)
    }

    @Test(arguments: ["2026-11-31", "21.11.2026", "2026-11-21T05:17:12", "2026-11-21 05:17:12Z", "", "yesterday"])
    func badTimesAreRefused(text: String) {
        #expect(ExportTime.parse(text, endOfDay: false) == nil)
    }
}
