import TestSupport
import Foundation
import OverlandJSON
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issues 21 and 22 through the real commands: decoded numbers no integer can hold, a
/// capture without a date, sub-metre accuracies, a 5 Hz receiver, and an old capture
/// imported during a trip.
@Suite("overland-log: numbers, dates, accuracy, same second, trips")
struct LogNumbersTests {
    /// 2026-02-25T06:13:20Z.
    static let t0: Int64 = 1_772_000_000

    /// One gpsd TPV report, `index` seconds after `t0`, moving north; `extra` members come
    /// last and, repeated, replace the earlier value (gpsd JSON keeps the last).
    static func tpv(_ index: Int, time: Int64? = nil, extra: String = "") -> String {
        let latitude = 45.49 + Double(index) * 0.0002
        return #"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":""# + ISO8601UTC.string(from: time ?? t0 + Int64(index))
            + #"","lat":\#(latitude),"lon":-77.69,"altMSL":80.5,"speed":12.5,"track":10.0,"eph":4.2,"epv":6.1"#
            + extra + "}\n"
    }

    static func reports(_ range: Range<Int>) -> String { range.map { tpv($0) }.joined() }

    // MARK: - Issue 21: values no integer can hold

    /// `"altMSL":-1e19` was SIGILL (exit 132) and took the uncommitted points with it.
    @Test("a gpsd value beyond any integer is left out of its point, counted, and the run goes on",
          arguments: [#","altMSL":-1e19"#, #","altMSL":9.3e18"#, #","epv":1e19"#, #","eph":1e300"#, #","speed":1e300"#,
                      #","eps":1.7976931348623157e308"#, #","altMSL":-2147483648.5"#])
    func aValueBeyondAnyIntegerIsLeftOut(member: String) throws {
        let sandbox = try LogSandbox()
        let input = Self.reports(0..<3) + Self.tpv(3, extra: member) + Self.reports(4..<6)
        let result = try sandbox.log(["--stats", "--commit-interval", "3600"], stdin: Array(input.utf8))
        #expect(result.termination == .exited(0), "\(result)")
        let records = try sandbox.records()
        if member.contains("eph") {
            // No position that uncertain passes the accuracy gate (desired_accuracy): dropped.
            #expect(records.count == 5 && result.stderrText.contains("1 by accuracy"), "\(result.stderrText)")
            return
        }
        #expect(records.count == 6, "\(result.stderrText)")
        let hostile = try #require(records.count > 3 ? records[3] : nil)
        #expect(hostile.timestamp == Self.t0 + 3)
        #expect(result.stderrText.contains("1 value out of range left out"), "\(result.stderrText)")
        let properties = hostile.properties
        if member.contains("altMSL") {
            #expect(hostile.altitude == 0 && properties["vertical_accuracy"] as? Int == -1, "\(hostile.line)")
        } else if member.contains("epv") {
            #expect(hostile.altitude == 81 && properties["vertical_accuracy"] as? Int == -1, "\(hostile.line)")
        } else if member.contains("speed") {
            #expect(hostile.speed == -1 && (properties["motion"] as? [String])?.isEmpty == true, "\(hostile.line)")
        } else {
            #expect(properties["speed_accuracy"] as? Double == -1, "\(hostile.line)")
        }
        let status = try sandbox.overlandJournal("status")
        #expect(status.termination == .exited(0), "\(status)")
    }

    /// Over `--gpsd` the crash also lost the good fix before the hostile report (not yet
    /// committed): the logger now keeps logging from the socket, every point kept.
    @Test func aHostileReportOverTheGPSDSocketIsLeftOutAndLoggingGoesOn() throws {
        let sandbox = try LogSandbox()
        let gpsd = try FakeGPSD(lines: Self.reports(0..<5) + Self.tpv(5, extra: #","altMSL":-1e19,"epv":1e19"#) + Self.reports(6..<10))
        defer { gpsd.close() }
        let child = try sandbox.logger.start(["--journal", sandbox.journal, "--commit-interval", "0", "--stats",
                                              "--gpsd", "127.0.0.1:\(gpsd.port)"])
        defer { child.kill(SIGKILL); _ = child.wait() }
        // Until every report is a point (the last once the socket goes quiet), or the
        // logger is gone (as it was, SIGILL); the cap only keeps a broken build from hanging.
        waitUntil { !child.isRunning || sandbox.recordCount() >= 10 }
        #expect(child.isRunning, "the logger is still running")
        child.kill(SIGTERM)
        let result = child.wait()
        #expect(result.termination == .exited(0), "\(result)")
        // The altitude is left out, and with it its vertical accuracy: one value.
        #expect(result.stderrText.contains("1 value out of range left out"), "\(result.stderrText)")
        let records = try sandbox.records()
        #expect(records.map(\.timestamp) == (0..<10).map { Self.t0 + Int64($0) })
        let hostile = try #require(records.count > 5 ? records[5] : nil)
        #expect(hostile.altitude == 0 && hostile.properties["vertical_accuracy"] as? Int == -1, "\(hostile.line)")
    }

    /// Numbers a gpsd may well write: negative zero, the tiniest doubles, exponents.
    @Test func unusualButValidNumbersAreRead() throws {
        let sandbox = try LogSandbox()
        let input = Self.tpv(0, extra: #","altMSL":-0.0,"speed":2.5E+1,"eph":1e-300,"epv":4.9e-324,"track":-0.0"#)
            + Self.tpv(1, extra: #","altMSL":1.2345e3,"speed":0e0,"eph":0.3,"epv":0.2"#)
        let result = try sandbox.log(["--stats"], stdin: Array(input.utf8))
        #expect(result.termination == .exited(0), "\(result)")
        let records = try sandbox.records()
        try #require(records.count == 2, "\(result)")
        #expect(records[0].altitude == 0 && records[0].speed == 25)
        #expect(records[0].raw("horizontal_accuracy") == "1" && records[0].raw("vertical_accuracy") == "1", "\(records[0].line)")
        #expect(records[0].raw("course") == "0")
        #expect(records[1].altitude == 1235 && records[1].speed == 0)
        #expect(records[1].raw("horizontal_accuracy") == "1" && records[1].raw("vertical_accuracy") == "1", "\(records[1].line)")
        #expect(!result.stderrText.contains("out of range"), "\(result.stderrText)")
    }

    /// An import with such a line at fix 2001 logged 0 points on every rerun.
    @Test func anImportWithAHostileFixAt2001KeepsEveryPoint() throws {
        let sandbox = try LogSandbox()
        let capture = try sandbox.file("capture.jsonl", text: Self.reports(0..<2000) + Self.tpv(2000, extra: #","altMSL":-1e19"#)
                                       + Self.reports(2001..<2010))
        let first = try sandbox.log([capture])
        #expect(first.termination == .exited(0), "\(first)")
        #expect(sandbox.recordCount() == 2010)
        let again = try sandbox.log(["--stats", capture])
        #expect(again.termination == .exited(0), "\(again)")
        #expect(sandbox.recordCount() == 2010)
        #expect(again.stderrText.contains("2010 already in the journal"), "\(again.stderrText)")
    }

    /// A hand-edited journal holds any number: `overland status` crashed (132) on a speed of
    /// 1e300; no reader may.
    @Test func everyReaderTakesAnyNumberInAJournalRecord() throws {
        let sandbox = try LogSandbox()
        _ = try Journal(path: sandbox.journal, create: true)  // a trip starts in a journal that exists
        let started = try sandbox.overlandJournal("trip", "start", "--mode", "car")
        #expect(started.succeeded, "\(started)")
        let now = Int64(Date().timeIntervalSince1970)
        let journal = try Journal(path: sandbox.journal)
        let appender = try JournalAppender(journal: journal)
        let trip = try #require(try sandbox.overlandJournal("trip", "--json").stdoutText.firstMatch(of: /"start":"([^"]+)"/)?.1)
        // Within the trip (started before `now`), the last with a usable position. An integer
        // field beyond 2^62 (the first two) makes a line no point: skipped by every reader.
        let values = [("[1e300,-1e300]", #""altitude":1e300,"speed":1e300"#), ("[-1e300,1e300]", #""altitude":-9.3e18,"speed":-1e300"#),
                      ("[1e300,-1e300]", #""altitude":4e18,"speed":1e300"#), ("[13.4,52.5]", #""altitude":-4e18,"speed":1e300"#)]
        for (coordinates, value) in values {
            let line = #"{"type":"Feature","geometry":{"type":"Point","coordinates":\#(coordinates)},"properties":{"timestamp":""#
                + ISO8601UTC.string(from: now) + #"","# + value
                + #","course":1e18,"horizontal_accuracy":4e18,"vertical_accuracy":-4e18,"speed_accuracy":1e308,"course_accuracy":-0.0,"#
                + #""motion":[],"battery_state":"full","battery_level":1e300,"wifi":"","device_id":"van","trip_id":"\#(trip)"}}"#
            try appender.append(Array(line.utf8))
        }
        try appender.commit()
        let status = try sandbox.overlandJournal("status")
        #expect(status.termination == .exited(0), "\(status)")
        #expect(status.stdoutText.contains("out of range"), "\(status.stdoutText)")
        for arguments in [["status", "--json"], ["trip"], ["trip", "--json"], ["export", "--format", "csv"], ["export", "--format", "gpx"],
                          ["export", "--format", "geojson"], ["journal", "stats"], ["trip", "stop"]] {
            let result = try sandbox.overland.run(arguments + ["--journal", sandbox.journal])
            #expect(result.termination == .exited(0), "\(arguments): \(result)")
        }
    }

    // MARK: - Issue 21: a capture without a date

    /// GGA sentences only (times of day, no date), one a second from `start` (seconds of
    /// the day; by default 20:26:40).
    static func ggaOnly(_ count: Int, start: Int = 20 * 3600 + 26 * 60 + 40) -> String {
        (0..<count).map { index in
            let seconds = (start + index) % 86_400
            let clock = String(format: "%02d%02d%02d.00", seconds / 3600, seconds / 60 % 60, seconds % 60)
            return nmea("GPGGA,\(clock),4404.\(1306 + index),N,12118.8515,W,1,10,0.98,1127.7,M,-19.6,M,,")
        }.joined()
    }

    /// It logged 0 points, printed nothing and exited 0: `overland-log cap && rm cap` lost it.
    @Test func aCaptureWithoutADateIsExit65NamingTheDate() throws {
        let sandbox = try LogSandbox()
        let capture = try sandbox.file("gga.nmea", text: Self.ggaOnly(20))
        let result = try sandbox.log([capture])
        result.expectExit(65)
        #expect(result.stderrLines.count == 1, "\(result.stderrText)")
        let line = try #require(result.stderrLines.first)
        #expect(line.contains("gga.nmea") && line.contains("no date") && line.contains("--date YYYY-MM-DD"), "\(line)")
        #expect(sandbox.recordCount() == 0)
        // On standard input too (a pipe is read as live: the times are 6 hours from the
        // clock, so it cannot date them either).
        let now = Int(Date().timeIntervalSince1970) % 86_400
        let piped = try sandbox.log([], stdin: Array(Self.ggaOnly(5, start: now + 6 * 3600).utf8))
        #expect(piped.exitStatus == 65 && piped.stderrText.contains("no date"), "\(piped)")
        // With the date: every fix is logged.
        let dated = try sandbox.log(["--date", "2026-02-24", capture])
        #expect(dated.succeeded, "\(dated)")
        #expect(sandbox.recordCount() == 20)
    }

    @Test(arguments: ["2026-02-30", "2025-02-29", "2026-04-31", "2026-13-01", "2026-00-10", "26-02-01"])
    func anImpossibleDateIsAUsageError(date: String) throws {
        let sandbox = try LogSandbox()
        let capture = try sandbox.file("gga.nmea", text: Self.ggaOnly(3))
        let result = try sandbox.log(["--date", date, capture])
        result.expectExit(64)
        #expect(result.stderrText.contains("--date '\(date)'"), "\(result.stderrText)")
        #expect(sandbox.recordCount() == 0)
    }

    // MARK: - Issue 21: --min-time 0

    /// It was accepted and did nothing (timestamps are whole seconds): now refused.
    @Test(arguments: ["0", "0s", "0m"])
    func minTimeZeroIsRefused(value: String) throws {
        let sandbox = try LogSandbox()
        let result = try sandbox.log(["--min-time", value], stdin: Array(Self.reports(0..<2).utf8))
        result.expectExit(64)
        #expect(result.stderrText.contains("--min-time '\(value)'") && result.stderrText.contains("1 s"), "\(result.stderrText)")
        #expect(sandbox.recordCount() == 0)
    }

    // MARK: - Issue 22: a 5 Hz receiver on a fresh journal

    /// The demo capture is 5 Hz: the fixes after the first of each second were "already in
    /// the journal" on a fresh journal.
    @Test func fixesOfTheSameSecondAreCountedAsSuch() throws {
        let sandbox = try LogSandbox()
        let result = try sandbox.log(["--stats", LogSamples.bundled])
        #expect(result.succeeded, "\(result)")
        let summary = try #require(result.stderrLines.last)
        #expect(summary.contains("same second as the previous fix"), "\(summary)")
        #expect(!summary.contains("already in the journal"), "a fresh journal: \(summary)")
        let points = sandbox.recordCount()
        #expect(points > 0)
        // Imported again: each second is already in the journal once, the rest are its
        // same-second fixes.
        let again = try sandbox.log(["--stats", LogSamples.bundled])
        #expect(again.succeeded, "\(again)")
        let second = try #require(again.stderrLines.last)
        #expect(second.contains("\(points) already in the journal"), "\(second)")
        #expect(second.contains("0 points logged"), "\(second)")
        #expect(sandbox.recordCount() == points)
    }

    // MARK: - Issue 22: an old capture imported during a trip

    /// It folded into the trip: "0 s, 671.6 km, 97 points".
    @Test func anOldCaptureImportedDuringATripIsNotTheTrips() throws {
        let sandbox = try LogSandbox()
        _ = try Journal(path: sandbox.journal, create: true)  // a trip starts in a journal that exists
        let started = try sandbox.overlandJournal("trip", "start", "--mode", "car")
        #expect(started.succeeded, "\(started)")
        let epochs = LogSamples.driveEpochs()
        let capture = try sandbox.file("old.nmea", text: epochs[0..<100].joined())
        let imported = try sandbox.log([capture])
        #expect(imported.succeeded, "\(imported)")
        #expect(sandbox.recordCount() >= 99)
        #expect(try sandbox.records().allSatisfy { $0.properties["trip_id"] == nil }, "no point of 2020 carries the trip's id")
        let trip = try sandbox.overlandJournal("trip", "--json")
        let object = try #require(try JSONScan.object(trip.stdout), "\(trip)")
        #expect(object["points"] as? Int == 0 && object["distance"] as? Int == 0, "\(object)")
        let status = try sandbox.overlandJournal("status")
        #expect(status.stdoutText.contains("car for ") && status.stdoutText.contains(", 0 m"), "\(status.stdoutText)")
        let stopped = try sandbox.overlandJournal("trip", "stop")
        #expect(stopped.succeeded && stopped.stdoutText.contains(", 0 m, 0 points"), "\(stopped)")
    }

    /// A journal whose points carry the trip's id with times before its start (an older
    /// logger stamped every fix while a trip ran): they are not the trip's either.
    @Test func pointsStampedWithTheTripButOutsideItAreNotCounted() throws {
        let sandbox = try LogSandbox()
        _ = try Journal(path: sandbox.journal, create: true)  // a trip starts in a journal that exists
        let started = try sandbox.overlandJournal("trip", "start", "--mode", "bus")
        #expect(started.succeeded, "\(started)")
        let trip = try #require(try sandbox.overlandJournal("trip", "--json").stdoutText.firstMatch(of: /"start":"([^"]+)"/)?.1)
        let start = try #require(LogTime.parse(String(trip)))
        let journal = try Journal(path: sandbox.journal)
        let appender = try JournalAppender(journal: journal)
        // Two points a day before the start, two an hour after now: none inside the trip.
        for time in [start - 86_400, start - 86_399, start + 3600, start + 3601] {
            var line = MoveRecords.line(0).replacingOccurrences(of: ISO8601UTC.string(from: MoveRecords.t0), with: ISO8601UTC.string(from: time))
            line.removeLast(2)
            try appender.append(Array((line + #","trip_id":"\#(trip)"}}"#).utf8))
        }
        try appender.commit()
        let shown = try sandbox.overlandJournal("trip", "--json")
        let object = try #require(try JSONScan.object(shown.stdout), "\(shown)")
        #expect(object["points"] as? Int == 0, "\(object)")
    }
}

/// A gpsd stand-in on 127.0.0.1: accepts one client, sends it `lines` (what it asks for is
/// not read), and keeps the connection open until `close()`.
final class FakeGPSD: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var client: Int32 = -1

    init(lines: String) throws {
        guard let (descriptor, port) = LoopbackSocket.open(backlog: 4) else {
            throw ToolRunnerError(description: "listen on 127.0.0.1: errno \(errno)")
        }
        listener = descriptor
        self.port = port
        let bytes = Array(lines.utf8)
        Thread { [weak self] in
            let fd = accept(descriptor, nil, nil)
            guard fd >= 0 else { return }
            self?.keep(client: fd)
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { return }
                sent += count
            }
        }.start()
    }

    private func keep(client fd: Int32) {
        lock.withLock { client = fd }
    }

    func close() {
        lock.withLock {
            if client >= 0 { Glibc.close(client) }
            client = -1
        }
        shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
    }
}
