import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What `overland-log` does with input it should not trust blindly: a glitched date, a file
/// that is not NMEA, a capture imported twice, an import cut short.
@Suite("overland-log: dates, unrecognised input, re-imports, interruptions")
struct LogInputTrustTests {
    /// One RMC dated 2079 (a cold start) among good epochs: dropped, counted; later fixes logged.
    @Test func oneGlitchedDateDoesNotLatch() throws {
        let sandbox = try LogSandbox()
        var text = GeneratedNMEA.epochs(0..<10)
        text += GeneratedNMEA.epoch(10, dateOverride: "140279")
        text += GeneratedNMEA.epochs(11..<40)
        let path = try sandbox.file("glitch.nmea", text: text)
        let result = try sandbox.log([path, "--stats"])
        #expect(result.succeeded, "\(result)")
        let times = try sandbox.records().map(\.timestamp)
        #expect(times == (0..<40).filter { $0 != 10 }.map { GeneratedNMEA.time($0) })
        #expect(result.stderrText.contains("1 fix dated in the future"), "\(result.stderrText)")
    }

    /// A live receiver that rolled back 1024 weeks: dates moved forward, counted. (Files
    /// are taken as they are: an old capture is old.)
    @Test func weekRolloverIsCorrectedOnLiveInput() throws {
        let sandbox = try LogSandbox()
        // 2020-02-14 minus 1024 weeks = 2000-06-30.
        let rolledBack = GeneratedNMEA.defaultStart - 1024 * 7 * 86_400
        let result = try sandbox.log(["--stats"], stdin: Array(GeneratedNMEA.epochs(0..<5, start: rolledBack).utf8))
        #expect(result.succeeded, "\(result)")
        #expect(try sandbox.records().map(\.timestamp) == (0..<5).map { GeneratedNMEA.time($0) })
        #expect(result.stderrText.contains("5 week rollover corrections"), "\(result.stderrText)")
        let file = try sandbox.file("old.nmea", text: GeneratedNMEA.epochs(0..<5, start: rolledBack))
        let other = try LogSandbox()
        #expect(try other.log([file]).succeeded)
        #expect(try other.records().map(\.timestamp) == (0..<5).map { GeneratedNMEA.time($0, start: rolledBack) })
    }

    @Test func aFileWithNothingRecognisableIsExit65() throws {
        let sandbox = try LogSandbox()
        let result = try sandbox.log(["/bin/ls"])
        #expect(result.termination == .exited(65), "\(result)")
        #expect(result.stderrLines.count == 1, "\(result.stderrText)")
        let line = try #require(result.stderrLines.first)
        #expect(line.contains("'/bin/ls'") && line.contains("not gpsd JSON, u-blox UBX or NMEA 0183") && line.contains("binary data"), "\(line)")
        #expect(sandbox.recordCount() == 0)

        let text = try sandbox.file("notes.txt", text: "shopping list\neggs\nmilk\n")
        let second = try sandbox.log([text])
        #expect(second.termination == .exited(65))
        #expect(second.stderrText.contains("bytes of text"), "\(second.stderrText)")

        // Sentences without a fix are NMEA all the same: exit 0.
        let void = try sandbox.file("void.nmea", text: nmea("GPRMC,120000.00,V,,,,,,,010124,,,N"))
        #expect(try sandbox.log([void]).succeeded)
    }

    /// A live stream that produces no fix for a while says so, once.
    @Test func liveStreamWithoutAFixSaysSoOnce() throws {
        let sandbox = try LogSandbox()
        let fifo = try sandbox.fifo()
        let child = try sandbox.startLogging(["--no-fix-warning", "2", "--commit-interval", "0"], from: fifo)
        fifo.write(nmea("GPRMC,120000.00,V,,,,,,,010124,,,N"))
        // Two seconds on the logger's clock (`LogReaderTests` checks the time on a fake one).
        #expect(child.waitForStderr(containing: "no fix for"))
        // `overland status` shows it while the logger runs.
        let status = try sandbox.overland.run(["status", "--journal", sandbox.journal])
        #expect(status.stdoutText.contains("standard input: no fix for"), "\(status)")
        // Fixes again: the status line goes.
        fifo.write(GeneratedNMEA.epochs(0..<4))
        #expect(child.waitForStderr(containing: "standard input: fixes again"))
        let later = try sandbox.overland.run(["status", "--journal", sandbox.journal])
        #expect(!later.stdoutText.contains("no fix for"), "\(later)")
        fifo.close()
        let result = child.wait()
        #expect(result.succeeded, "\(result)")
        let warnings = result.stderrLines.filter { $0.contains("no fix for") }
        #expect(warnings.count == 1, "\(result.stderrText)")
        #expect(warnings.first?.contains("standard input") == true)
        #expect(result.stderrText.contains("standard input: fixes again"), "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.journal + "/state/input.json"))
    }

    @Test func reimportingAddsNothingAndOverlapsKeepWhatIsNew() throws {
        let sandbox = try LogSandbox()
        let first = try sandbox.file("a.nmea", text: GeneratedNMEA.epochs(0..<100))
        #expect(try sandbox.log([first]).succeeded)
        #expect(sandbox.recordCount() == 100)
        let again = try sandbox.log([first, "--stats"])
        #expect(again.succeeded, "\(again)")
        #expect(sandbox.recordCount() == 100, "nothing added")
        #expect(again.stderrText.contains("100 already in the journal"), "\(again.stderrText)")
        // An overlapping capture: 50..<150 adds 100..<150 only.
        let overlap = try sandbox.file("b.nmea", text: GeneratedNMEA.epochs(50..<150))
        #expect(try sandbox.log([overlap]).succeeded)
        let times = try sandbox.records().map(\.timestamp)
        #expect(times == (0..<150).map { GeneratedNMEA.time($0) })
        // Without the index file (deleted), the journal's records rebuild it.
        try FileManager.default.removeItem(atPath: sandbox.journal + "/state/times")
        #expect(try sandbox.log([overlap]).succeeded)
        #expect(sandbox.recordCount() == 150)
    }

    /// A logger killed before saving its index: the next run catches up from the records.
    @Test func indexCatchesUpAfterKillNine() throws {
        let sandbox = try LogSandbox()
        let fifo = try sandbox.fifo()
        let child = try sandbox.startLogging(["--commit-interval", "0"], from: fifo)
        fifo.write(GeneratedNMEA.epochs(0..<30))
        // The 30th epoch completes when the input goes quiet; each is committed at once.
        #expect(waitUntil { sandbox.recordCount() >= 30 })
        child.kill(SIGKILL)
        _ = child.wait()
        fifo.close()
        #expect(sandbox.recordCount() == 30)
        #expect(!FileManager.default.fileExists(atPath: sandbox.journal + "/state/times"))
        let path = try sandbox.file("same.nmea", text: GeneratedNMEA.epochs(0..<40))
        #expect(try sandbox.log([path]).succeeded)
        #expect(try sandbox.records().map(\.timestamp) == (0..<40).map { GeneratedNMEA.time($0) })
    }

    /// SIGINT during a file import: committed, says how far, exit 130; running it again
    /// finishes it without duplicates.
    @Test func interruptedImportExits130AndResumes() throws {
        let sandbox = try LogSandbox()
        var text = ""
        for block in 0..<40 { text += GeneratedNMEA.epochs(block * 5000..<(block + 1) * 5000) }
        let path = try sandbox.file("big.nmea", text: text)
        // The logger pauses itself once its second commit is on disk
        // (OVERLAND_FAULT_POINT=...:stop); the SIGINT waits, pending, until it goes on: the
        // import is under way when the signal comes, whatever the machine's speed.
        let child = try sandbox.logger.start(["--journal", sandbox.journal, path],
                                             environment: ["OVERLAND_FAULT_POINT": "append.after-sync:2:stop"])
        try #require(waitUntil { child.isStopped || !child.isRunning }, "\(child.stderrSoFar)")
        child.kill(SIGINT)
        child.kill(SIGCONT)
        let result = child.wait()
        let committed = sandbox.recordCount()
        #expect(result.termination == .exited(130), "\(result)")
        #expect(result.stderrText.contains("interrupted: '\(path)' read to"), "\(result.stderrText)")
        #expect(committed > 0 && committed < 200_000, "\(committed) committed")
        let again = try sandbox.log([path])
        #expect(again.succeeded, "\(again)")
        #expect(sandbox.recordCount() == 200_000)
    }

    /// SIGTERM on a live stream stays a clean exit 0.
    @Test func sigtermOnALiveStreamIsExit0() throws {
        let sandbox = try LogSandbox()
        let fifo = try sandbox.fifo()
        let child = try sandbox.startLogging([], from: fifo)
        fifo.write(GeneratedNMEA.epochs(0..<5))
        fifo.waitUntilRead()
        child.kill(SIGTERM)
        let result = child.wait()
        fifo.close()
        #expect(result.termination == .exited(0), "\(result)")
        #expect(sandbox.recordCount() == 5)
    }

    /// A 2020 drive imported after a 2024 one: stats show the real span, export says the
    /// journal is not in time order.
    @Test func statsShowTheRealSpanAndExportSaysWhenOutOfOrder() throws {
        let sandbox = try LogSandbox()
        let newer = try sandbox.file("newer.nmea", text: GeneratedNMEA.epochs(0..<20, start: 1_717_891_200)) // 2024-06-09
        let older = try sandbox.file("older.nmea", text: GeneratedNMEA.epochs(0..<20)) // 2020-02-14
        #expect(try sandbox.log([newer]).succeeded)
        #expect(try sandbox.log([older]).succeeded)
        let stats = try sandbox.overlandJournal("journal", "stats")
        #expect(stats.succeeded, "\(stats)")
        #expect(stats.stdoutText.contains("from      2020-02-14T18:05:42Z"), "\(stats.stdoutText)")
        #expect(stats.stdoutText.contains("to        2024-06-09T00:00:19Z"), "\(stats.stdoutText)")
        #expect(stats.stdoutText.contains("not in time order: 20 records"), "\(stats.stdoutText)")
        let export = try sandbox.overlandJournal("export", "--format", "csv")
        #expect(export.succeeded, "\(export)")
        #expect(export.stderrText.contains("not in time order: 20 points"), "\(export.stderrText)")
        #expect(export.stderrText.contains("written oldest first"), "\(export.stderrText)")
        // Written oldest first in every format: the 2020 drive, then the 2024 one.
        let csvTimes = export.stdoutText.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }.map { String($0.prefix(20)) }
        #expect(csvTimes.count == 40 && csvTimes == csvTimes.sorted(), "\(csvTimes)")
        #expect(csvTimes.first == "2020-02-14T18:05:42Z" && csvTimes.last == "2024-06-09T00:00:19Z", "\(csvTimes)")
        let gpx = try sandbox.overlandJournal("export", "--format", "gpx")
        let gpxTimes = gpx.stdoutText.components(separatedBy: "<time>").dropFirst().map { String($0.prefix(20)) }
        #expect(gpxTimes == csvTimes, "\(gpxTimes)")
        let geojson = try sandbox.overlandJournal("export", "--format", "geojson")
        let geojsonTimes = geojson.stdoutText.components(separatedBy: "\"timestamp\":\"").dropFirst().map { String($0.prefix(20)) }
        #expect(geojsonTimes == csvTimes, "\(geojsonTimes)")
        // In time order: no warning.
        let clean = try LogSandbox()
        #expect(try clean.log([older]).succeeded)
        #expect(try clean.overlandJournal("export", "--format", "gpx").stderrText.isEmpty)
    }
}
