import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Whether something is at a path (lstat), for checks that a command created nothing.
enum StatusCommandFiles {
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }
}

/// `overland trip` and `overland status`, driven as a user would, with `overland-log`
/// appending at the same time.
@Suite(.serialized) struct TripStatusTests {
    /// Every record of the journal, parsed.
    static func records(_ sandbox: LogSandbox) throws -> [[String: Any]] {
        let zcat = ToolRunner(executable: "/bin/sh")
        let result = try zcat.run(["-c", "cat \"$0\"/segments/*.jsonl.gz | gzip -dc", sandbox.journal])
        result.expectExit(0)
        return try result.stdoutLines.map { line in
            try #require(try JSONScan.object(line.utf8))
        }
    }

    static func properties(_ record: [String: Any]) -> [String: Any] { record["properties"] as? [String: Any] ?? [:] }

    @Test func aTripStartedAndStoppedWhileTheLoggerAppends() throws {
        let sandbox = try LogSandbox()
        let epochs = LogSamples.driveEpochs()
        let logger = try sandbox.logger.start(["--journal", sandbox.journal, "--commit-interval", "0.2"], stdin: true)
        defer { logger.kill() }
        func feed(_ range: Range<Int>) {
            logger.writeInput(Array(epochs[range].joined().utf8))
        }
        func waitForPoints(_ count: Int) throws {
            if !waitUntil({ sandbox.recordCount() >= count }) {
                Issue.record("the logger did not commit \(count) records")
            }
        }
        // An epoch becomes a point when the next one begins: 100 epochs give 99 points.
        feed(0..<100)
        try waitForPoints(99)

        let start = try sandbox.overland.run(["trip", "start", "--journal", sandbox.journal, "--mode", "bicycle"])
        start.expectExit(0)
        #expect(start.stdoutText.hasPrefix("bicycle trip started at "))
        let started = try sandbox.overland.run(["trip", "--journal", sandbox.journal, "--json"])
        let startText = try #require(started.stdoutText.firstMatch(of: /"start":"([^"]+)"/)?.1, "\(started)")
        let tripStart = try #require(LogTime.parse(String(startText)))
        // The logger looks at the trip file every 2 s of its clock, and at once on SIGHUP:
        // taken (no longer pending), the trip is read again.
        logger.kill(SIGHUP)
        #expect(waitUntil { !logger.hasPending(SIGHUP) })
        // A trip holds the fixes whose times fall inside it (issue 22): a drive from the
        // trip's start on. The 2020 drive's epochs before are not the trip's.
        let during = GeneratedDrive(epochs: 15, seed: 0x7219_2026, start: tripStart + 1)
        logger.writeInput(Array(during.text.utf8))
        try waitForPoints(100 + 14)
        // The trip runs until now: wait for the clock to pass its last fix (an event, not
        // a deadline), then every point logged is inside it.
        let last = try #require(during.epochs.last).time
        waitUntil { Int64(Date().timeIntervalSince1970) > last }
        let running = try sandbox.overland.run(["trip", "--journal", sandbox.journal, "--json"])
        let trip = try #require(try JSONScan.object(running.stdout), "\(running)")
        #expect(trip["mode"] as? String == "bicycle")
        let runningPoints = trip["points"] as? Int ?? 0
        #expect(runningPoints >= 14, "\(trip)")
        #expect((trip["distance"] as? Int ?? 0) > 10, "a drive of 15 s: \(trip)")

        let stop = try sandbox.overland.run(["trip", "stop", "--journal", sandbox.journal])
        stop.expectExit(0)
        logger.kill(SIGHUP)
        #expect(waitUntil { !logger.hasPending(SIGHUP) })
        // After the stop, a drive later still (the recorder drops fixes older than its last
        // point as out of order): none of it is the trip's.
        let later = GeneratedDrive(epochs: 100, seed: 0x7219_2027, start: last + 30)
        logger.writeInput(Array(later.text.utf8))
        try waitForPoints(100 + 14 + 99)
        logger.closeInput()
        let result = logger.wait()
        result.expectExit(0)

        let records = try Self.records(sandbox)
        let tripID = try #require(Self.properties(records.first { Self.properties($0)["trip_id"] != nil } ?? [:])["trip_id"] as? String)
        #expect(tripID == String(startText))
        let tripRecords = records.filter { Self.properties($0)["type"] as? String == "trip" }
        #expect(tripRecords.count == 1)
        let tripRecord = try #require(tripRecords.first)
        let properties = Self.properties(tripRecord)
        #expect(properties["mode"] as? String == "bicycle")
        #expect(properties["start"] as? String == tripID)
        #expect(properties["stopped_automatically"] as? Bool == false)
        #expect((properties["distance"] as? Int ?? 0) > 10)
        #expect(Self.properties(properties["start_location"] as? [String: Any] ?? [:])["trip_id"] as? String == tripID)
        #expect(tripRecord["geometry"] is [String: Any], "a trip record has the last position as geometry")
        // Points before the start and after the stop carry no trip_id; those between do,
        // and they are the trip's points.
        let stamped = records.map { Self.properties($0)["trip_id"] as? String }
        #expect(stamped.prefix(99).allSatisfy { $0 == nil })
        #expect(stamped.suffix(50).allSatisfy { $0 == nil })
        let stampedCount = stamped.filter { $0 == tripID }.count
        #expect(stampedCount >= 14 && stampedCount == runningPoints, "\(stampedCount) stamped, \(runningPoints) in the trip")
        let verify = try sandbox.overland.run(["journal", "verify", "--journal", sandbox.journal])
        verify.expectExit(0)
        let after = try sandbox.overland.run(["trip", "--journal", sandbox.journal])
        #expect(after.stdoutText == "no trip\n")
    }

    @Test func tripErrorsAndTheRememberedMode() throws {
        let sandbox = try LogSandbox()
        // A journal named by --journal must exist: a typo does not make a new one.
        let typo = try sandbox.overland.run(["trip", "start", "--journal", sandbox.journal, "--mode", "boat"])
        #expect(typo.exitStatus == 66 && typo.stderrLines.count == 1 && typo.stderrText.contains(sandbox.journal), "\(typo)")
        #expect(!StatusCommandFiles.exists(sandbox.journal), "nothing created at \(sandbox.journal)")
        _ = try Journal(path: sandbox.journal, create: true)
        let stopNone = try sandbox.overland.run(["trip", "stop", "--journal", sandbox.journal])
        #expect(stopNone.exitStatus != 0 && stopNone.stderrLines.count == 1, "\(stopNone)")
        let badMode = try sandbox.overland.run(["trip", "start", "--journal", sandbox.journal, "--mode", "hovercraft"])
        #expect(badMode.exitStatus == 64 && badMode.stderrText.contains("scooter"), "allowed modes named: \(badMode)")
        #expect(try sandbox.overland.run(["trip", "start", "--journal", sandbox.journal, "--mode", "boat"]).exitStatus == 0)
        let twice = try sandbox.overland.run(["trip", "start", "--journal", sandbox.journal])
        #expect(twice.exitStatus == 64 && twice.stderrText.contains("already running"), "\(twice)")
        #expect(try sandbox.overland.run(["trip", "stop", "--journal", sandbox.journal]).exitStatus == 0)
        // The last mode used is the default next time, as in the app.
        let again = try sandbox.overland.run(["trip", "start", "--journal", sandbox.journal])
        #expect(again.stdoutText.hasPrefix("boat trip started"), "\(again)")
        let mode = try sandbox.overland.run(["config", "get", "trip_mode"])
        #expect(mode.stdoutText == "boat\n", "\(mode)")
        for arguments in [["trip", "--help"], ["trip", "start", "--help"], ["trip", "stop", "--help"], ["status", "--help"]] {
            #expect(try sandbox.overland.run(arguments).exitStatus == 0)
        }
    }

    /// `trip stop` killed after committing the trip record, before clearing the trip: the
    /// trip still looks active, and stopping it again clears it without a second record.
    @Test func aStopCutShortWritesOneRecord() throws {
        let sandbox = try LogSandbox()
        _ = try Journal(path: sandbox.journal, create: true)
        #expect(try sandbox.overland.run(["trip", "start", "--journal", sandbox.journal, "--mode", "car"]).exitStatus == 0)
        let epochs = LogSamples.driveEpochs()
        let logged = try sandbox.log(["--journal", sandbox.journal], stdin: Array(epochs[0..<30].joined().utf8))
        #expect(logged.succeeded, "\(logged)")
        let crashed = try sandbox.overland.run(["trip", "stop", "--journal", sandbox.journal],
                                               environment: ["OVERLAND_FAULT_POINT": "trip.after-record"])
        #expect(crashed.termination == .signaled(SIGKILL), "\(crashed)")
        let status = try sandbox.overland.run(["status", "--journal", sandbox.journal])
        #expect(status.stdoutText.contains("car for "), "the trip is still running: \(status)")
        let stopped = try sandbox.overland.run(["trip", "stop", "--journal", sandbox.journal])
        #expect(stopped.succeeded, "\(stopped)")
        let tripRecords = try Self.records(sandbox).filter { Self.properties($0)["type"] as? String == "trip" }
        #expect(tripRecords.count == 1, "\(tripRecords)")
        #expect(try sandbox.overland.run(["trip", "show", "--journal", sandbox.journal]).stdoutText == "no trip\n")
    }

    /// Several stops at once (a user's and the logger's auto-stop, say): one writes the
    /// record, the others find no trip running.
    @Test func concurrentStopsWriteOneRecord() throws {
        let sandbox = try LogSandbox()
        _ = try Journal(path: sandbox.journal, create: true)
        let epochs = LogSamples.driveEpochs()
        for round in 0..<3 {
            #expect(try sandbox.overland.run(["trip", "start", "--journal", sandbox.journal, "--mode", "car"]).exitStatus == 0)
            let logged = try sandbox.log(["--journal", sandbox.journal],
                                         stdin: Array(epochs[(round * 20)..<(round * 20 + 20)].joined().utf8))
            #expect(logged.succeeded, "\(logged)")
            let stops = try (0..<4).map { _ in try sandbox.overland.start(["trip", "stop", "--journal", sandbox.journal]) }
            let results = stops.map { $0.wait() }
            #expect(results.filter { $0.exitStatus == 0 }.count == 1, "\(results)")
            #expect(results.allSatisfy { $0.exitStatus == 0 || $0.stderrText.contains("no trip is running") }, "\(results)")
        }
        let tripRecords = try Self.records(sandbox).filter { Self.properties($0)["type"] as? String == "trip" }
        #expect(tripRecords.count == 3, "one record per trip: \(tripRecords.count)")
    }

    /// First use: no journal at the default place is not an error; one the user named is.
    @Test func statusOnAFreshMachineSaysHowToStart() throws {
        let sandbox = try LogSandbox()
        let defaultJournal = sandbox.directory.appending("data/overland/journal")
        // Whatever the machine running the tests has at /var/lib/overland.
        let noPackage = ["OVERLAND_PACKAGED_JOURNAL": sandbox.directory.appending("no-package")]
        let text = try sandbox.overland.run(["status"], environment: noPackage)
        text.expectExit(0)
        #expect(text.stderr.isEmpty, "\(text)")
        #expect(text.stdoutText.hasPrefix("Nothing has been logged yet (no journal at \(defaultJournal)).\n"), "\(text.stdoutText)")
        #expect(text.stdoutText.contains("overland-log --gpsd"), "\(text.stdoutText)")
        #expect(text.stdoutText.contains("queued      0 points"), "\(text.stdoutText)")
        #expect(!StatusCommandFiles.exists(defaultJournal), "status creates nothing")
        let json = try sandbox.overland.run(["status", "--json"])
        json.expectExit(0)
        let object = try #require(try JSONScan.object(json.stdout), "\(json)")
        #expect(object["queued"] as? Int == 0 && object["last"] is NSNull, "\(object)")
        #expect(object["journal"] as? String == defaultJournal)

        // A journal named by --journal, OVERLAND_JOURNAL or the settings must exist: exit 66, one line.
        let named = sandbox.directory.appending("nowhere")
        let flag = try sandbox.overland.run(["status", "--journal", named])
        #expect(flag.exitStatus == 66 && flag.stdout.isEmpty, "\(flag)")
        #expect(flag.stderrLines == ["overland status: '\(named)' is not a usable journal: no such directory"], "\(flag)")
        let environment = try sandbox.overland.run(["status"], environment: ["OVERLAND_JOURNAL": named])
        #expect(environment.exitStatus == 66 && environment.stderrLines.count == 1, "\(environment)")
        try sandbox.writeSettings(#"{"journal": "\#(named)"}"#)
        let settings = try sandbox.overland.run(["status"])
        #expect(settings.exitStatus == 66 && settings.stderrLines.count == 1, "\(settings)")

        // Once something is logged to the default journal, status shows it.
        try FileManager.default.removeItem(atPath: sandbox.settingsPath)
        #expect(try sandbox.logger.run([LogSamples.bundled]).exitStatus == 0)
        let after = try sandbox.overland.run(["status"])
        #expect(after.exitStatus == 0 && !after.stdoutText.contains("Nothing has been logged"), "\(after)")
        #expect(after.stdoutText.contains("queued      31 points"), "\(after.stdoutText)")
    }

    @Test func statusShowsTheLastPointAndTheQueue() throws {
        let sandbox = try LogSandbox()
        #expect(try sandbox.logger.run(["--journal", sandbox.journal, try sandbox.driveFile()]).exitStatus == 0)
        try sandbox.writeSettings(#"{"endpoint": "https://example.com/overland", "token": "a-secret-token-4242"}"#)
        chmod(sandbox.settingsPath, 0o600)  // a settings file with a token that others can read is warned about
        let text = try sandbox.overland.run(["status", "--journal", sandbox.journal])
        text.expectExit(0)
        #expect(text.stdoutText.contains("queued      5597 points"), "\(text.stdoutText)")
        #expect(text.stdoutText.contains("45.2728667, -79.4821983"), "the drive's last position: \(text.stdoutText)")
        #expect(text.stdoutText.contains("last sent   never"))
        #expect(!text.stdoutText.contains("4242") && !text.stdoutText.contains("secret") && text.stdoutText.contains("(token ••••)"),
                "no part of the token shown: \(text.stdoutText)")
        let json = try sandbox.overland.run(["status", "--journal", sandbox.journal, "--json"])
        let object = try #require(try JSONScan.object(json.stdout), "\(json)")
        #expect(object["queued"] as? Int == 5597)
        #expect(Self.properties(object["last"] as? [String: Any] ?? [:])["timestamp"] as? String == "2020-02-14T19:44:19Z")
        #expect(object["trip"] is NSNull)
        #expect(!json.stdoutText.contains("4242") && !json.stdoutText.contains("secret"))
        let missing = try sandbox.overland.run(["status", "--journal", sandbox.directory.appending("nowhere")])
        #expect(missing.exitStatus == 66 && missing.stderrLines.count == 1, "\(missing)")
    }
}
