import TestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The sources users plug in: a serial port (a `socat` pseudo-terminal pair stands in for a
/// USB receiver: raw mode and rate are checked on the port, an unplug is socat going away)
/// and gpsd's socket (gpsfake runs a real gpsd on a port of its own). Both need their tool:
/// scripts/install-dependencies installs socat and gpsd.
@Suite("overland-log: serial ports and gpsd")
struct LogSourcesTests {
    /// A pseudo-terminal pair: the logger opens `port`, the test writes to `feed`.
    final class PTYPair {
        let port: String
        let feed: String
        private var socat: RunningTool?
        private var feedFD: Int32 = -1

        init(directory: TemporaryDirectory) throws {
            port = directory.appending("gps")
            feed = directory.appending("feed")
            try start()
        }

        deinit { stop() }

        func start() throws {
            let runner = ToolRunner(executable: try SystemTool.require("socat"))
            socat = try runner.start(["pty,raw,echo=0,link=\(port)", "pty,raw,echo=0,link=\(feed)"])
            guard waitUntil({ FileManager.default.fileExists(atPath: port) && FileManager.default.fileExists(atPath: feed) }) else {
                throw ToolRunnerError(description: "socat made no pty pair")
            }
            feedFD = open(feed, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
            guard feedFD >= 0 else { throw ToolRunnerError(description: "cannot open \(feed): errno \(errno)") }
        }

        /// Unplugs: socat goes away with both ptys (the logger's read fails).
        func stop() {
            if feedFD >= 0 { close(feedFD) }
            feedFD = -1
            socat?.kill(SIGTERM)
            _ = socat?.wait()
            socat = nil
        }

        /// Writes everything, waiting while the pty is full (until it can take more).
        func write(_ text: String) { PipeWrite.all(Array(text.utf8), to: feedFD) }

        /// The port's terminal settings, as the logger left them.
        func settings() -> termios? {
            let fd = open(port, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var settings = termios()
            return tcgetattr(fd, &settings) == 0 ? settings : nil
        }
    }

    /// Feeds epochs from `first` on, as a receiver talks all along (the pty paces the
    /// writes), until `done`; returns the next epoch's index.
    @discardableResult
    static func feed(_ pair: PTYPair, from first: Int, until done: () -> Bool) -> Int {
        var index = first
        while !done() && index < first + 100_000 {
            pair.write(GeneratedNMEA.epoch(index))
            index += 1
        }
        return index
    }

    static func waitForRecords(_ sandbox: LogSandbox, atLeast count: UInt64) -> UInt64 {
        waitUntil { sandbox.recordCount() >= count }
        return sandbox.recordCount()
    }

    @Test func baudOptionSetsRawModeAndTheRate() throws {
        let sandbox = try LogSandbox()
        let pair = try PTYPair(directory: sandbox.directory)
        defer { pair.stop() }
        let child = try sandbox.logger.start(["--journal", sandbox.journal, "--commit-interval", "0", pair.port, "--baud", "4800"])
        defer { child.kill(SIGKILL); _ = child.wait() }
        pair.write(GeneratedNMEA.epochs(0..<10))
        #expect(Self.waitForRecords(sandbox, atLeast: 10) == 10)
        let settings = try #require(pair.settings())
        var copy = settings
        #expect(cfgetispeed(&copy) == speed_t(B4800))
        #expect(settings.c_lflag & tcflag_t(ICANON) == 0, "raw: no line editing")
        #expect(settings.c_lflag & tcflag_t(ECHO) == 0, "raw: no echo")
        #expect(settings.c_iflag & tcflag_t(ICRNL) == 0, "raw: no CR translation")
        #expect(settings.c_cflag & tcflag_t(CLOCAL) != 0, "modem lines ignored")
        child.kill(SIGTERM)
        let result = child.wait()
        #expect(result.termination == .exited(0), "\(result)")
    }

    @Test func rateIsDetectedWithoutBaud() throws {
        let sandbox = try LogSandbox()
        let pair = try PTYPair(directory: sandbox.directory)
        defer { pair.stop() }
        let child = try sandbox.logger.start(["--journal", sandbox.journal, "--commit-interval", "0", pair.port])
        defer { child.kill(SIGKILL); _ = child.wait() }
        // The receiver talks all along; detection listens, then the logger reads on.
        Self.feed(pair, from: 0) { sandbox.recordCount() >= 20 }
        #expect(sandbox.recordCount() >= 20)
        let settings = try #require(pair.settings())
        var copy = settings
        // A pseudo-terminal passes every rate: the first tried is the one found.
        #expect(cfgetispeed(&copy) == speed_t(B9600))
        child.kill(SIGTERM)
        let result = child.wait()
        #expect(result.termination == .exited(0), "\(result)")
    }

    @Test func unpluggedPortIsReopenedWhenItComesBack() throws {
        let sandbox = try LogSandbox()
        let pair = try PTYPair(directory: sandbox.directory)
        let child = try sandbox.logger.start(["--journal", sandbox.journal, "--commit-interval", "0", pair.port, "--baud", "9600"])
        defer { child.kill(SIGKILL); _ = child.wait(); pair.stop() }
        pair.write(GeneratedNMEA.epochs(0..<10))
        #expect(Self.waitForRecords(sandbox, atLeast: 10) == 10)
        pair.stop()
        #expect(child.waitForStderr(containing: "gone; waiting for it to come back"), "the logger waits for the port")
        try pair.start()
        // Until the logger has the port again (it looks twice a second) what is written may
        // be lost: the receiver talks on until points come.
        Self.feed(pair, from: 10) { sandbox.recordCount() >= 20 }
        #expect(child.waitForStderr(containing: ": back"))
        child.kill(SIGTERM)
        let result = child.wait()
        #expect(result.termination == .exited(0), "\(result)")
        let times = try sandbox.records().map(\.timestamp)
        #expect(times.prefix(10) == ArraySlice((0..<10).map { GeneratedNMEA.time($0) }))
        #expect(times.count >= 20 && times == times.sorted() && Set(times).count == times.count, "\(times)")
    }

    /// A silent port while the rate is detected: SIGTERM stops it at once, exit 0.
    @Test func sigtermDuringRateDetectionStops() throws {
        let sandbox = try LogSandbox()
        let pair = try PTYPair(directory: sandbox.directory)
        defer { pair.stop() }
        let child = try sandbox.logger.start(["--journal", sandbox.journal, pair.port])
        #expect(waitUntil { child.hasOpen(pair.port) }, "the logger listens to the port")
        child.kill(SIGTERM)
        let result = child.wait()
        #expect(result.termination == .exited(0), "\(result)")
        // Every rate tried, it would say so and read on at 9600 until the signal.
        #expect(!result.stderrText.contains("baud; reading at"), "stopped during detection: \(result.stderrText)")
    }

    @Test func baudOnAFileIsAUsageError() throws {
        let sandbox = try LogSandbox()
        let file = try sandbox.file("a.nmea", text: GeneratedNMEA.epochs(0..<2))
        let result = try sandbox.log([file, "--baud", "9600"])
        result.expectExit(64)
        #expect(try sandbox.log([file, "--baud", "1234"]).exitStatus == 64)
    }

    /// `--gpsd 127.0.0.1:PORT`: started before gpsd, it waits; it reads gpsd's TPV reports,
    /// and when gpsd goes away and comes back it reconnects.
    @Test func gpsdSocketWithReconnect() throws {
        let sandbox = try LogSandbox()
        let port = LogGPSD.freePort()
        let child = try sandbox.logger.start(["--journal", sandbox.journal, "--commit-interval", "0", "--stats",
                                              "--gpsd", "127.0.0.1:\(port)"])
        defer { child.kill(SIGKILL); _ = child.wait() }
        #expect(child.waitForStderr(containing: "trying again"), "waits for gpsd")

        // Generated epochs of the last hours (gpsd itself moves dates before its build date
        // by 1024 weeks), fed one sentence per 10 ms: gpsd starts feeding when its first
        // client connects (the check for its port may be that client). gpsfake replays the
        // capture over and over until it is stopped, so no time window decides whether the
        // logger, trying again ever less often (0.5 s, 1 s, 2 s, ...), connects while gpsd
        // still feeds: it waits for the points themselves.
        let recent = Int64(Date().timeIntervalSince1970) / 60 * 60 - 7200
        let firstCapture = try sandbox.file("first.nmea", text: GeneratedNMEA.epochs(0..<100, start: recent))
        let first = try Self.startGPSFake(port: port, capture: firstCapture)
        let firstCount = Self.waitForRecords(sandbox, atLeast: 10)
        #expect(firstCount >= 10, "points from the first gpsd")
        // gpsd stops (as on `systemctl restart gpsd`).
        first.killGroup(SIGTERM)
        _ = first.wait()
        #expect(child.waitForStderr(containing: "gone; waiting for it to come back"), "gpsd gone: the logger waits for it")

        // Second gpsd on the same port: an hour later, new to the journal.
        let start = recent + 3600
        let capture = try sandbox.file("second.nmea", text: GeneratedNMEA.epochs(0..<100, start: start))
        let second = try Self.startGPSFake(port: port, capture: capture)
        let fromSecond = { (try? sandbox.records().filter { $0.timestamp >= start && $0.timestamp < start + 100 }.count) ?? 0 }
        #expect(waitUntil { fromSecond() >= 10 }, "points from the second gpsd after reconnecting")
        second.killGroup(SIGKILL)
        _ = second.wait()
        child.kill(SIGTERM)
        let result = child.wait()
        #expect(result.termination == .exited(0), "\(result)")
        #expect(result.stderrText.contains("TPV reports"), "\(result.stderrText)")
        #expect(result.stderrText.contains("gpsd at 127.0.0.1:\(port): back"), "\(result.stderrText)")
    }

    static func startGPSFake(port: UInt16, capture: String) throws -> RunningTool {
        let gpsfake = try #require(LogGPSD.gpsfake, "gpsfake is installed by scripts/install-dependencies")
        let child = try ToolRunner(executable: "/bin/sh").start(
            ["-c", #"exec "$0" -q -c 0.01 -P "$1" "$2" >/dev/null 2>&1"#, gpsfake, "\(port)", capture])
        guard LogGPSD.waitForListener(port: port, timeout: ToolRunner.hangGuard) else {
            child.killGroup(SIGKILL)
            throw ToolRunnerError(description: "gpsfake did not start gpsd on port \(port): \(child.wait())")
        }
        return child
    }
}

/// u-blox UBX mixed with NMEA, through the logger: points carry the receiver's accuracies.
/// Generated frames with known values, and one of gpsd's captures; the unit tests check
/// each field, the golden tests every capture.
@Suite("overland-log: u-blox UBX")
struct LogUBXTests {
    static func frame(_ messageClass: UInt8, _ id: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let body = [messageClass, id, UInt8(payload.count & 0xFF), UInt8(payload.count >> 8)] + payload
        var a: UInt8 = 0, b: UInt8 = 0
        for byte in body { a = a &+ byte; b = b &+ a }
        return [0xB5, 0x62] + body + [a, b]
    }

    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }

    /// NAV-PVT at 2026-11-20T12:30:(15 + index)Z, hAcc 1.234 m, vAcc 2.5 m, sAcc 0.21 m/s, headAcc 0.75°.
    static func pvt(_ index: Int) -> [UInt8] {
        var p = le(UInt32(417_600_000 + index * 1000)) + le(UInt16(2026)) + [11, 20, 12, 30, UInt8(15 + index), 0x07]
        p += le(UInt32(25)) + le(Int32(0)) + [3, 0x01, 0, 14]
        p += le(Int32(-1_223_320_708)) + le(Int32(476_062_095 + index * 100))
        p += le(Int32(30_500)) + le(Int32(52_250)) + le(UInt32(1234)) + le(UInt32(2500))
        p += le(Int32(0)) + le(Int32(0)) + le(Int32(0)) + le(Int32(13_900)) + le(Int32(27_150_000))
        p += le(UInt32(210)) + le(UInt32(75_000)) + le(UInt16(133)) + [0, 0, 0, 0, 0, 0] + le(Int32(0)) + le(Int16(0)) + le(UInt16(0))
        return frame(0x01, 0x07, p)
    }

    @Test func ubxPointsCarryTheReceiversAccuracies() throws {
        let sandbox = try LogSandbox()
        var bytes: [UInt8] = []
        for index in 0..<10 {
            bytes += Array(nmea("GNRMC,1230\(15 + index).00,A,4736.37257,N,12219.92425,W,27.020,271.50,201126,,,A").utf8)
            bytes += Self.pvt(index)
        }
        let path = try sandbox.file("ublox.ubx", bytes)
        let result = try sandbox.log([path, "--stats"])
        #expect(result.succeeded, "\(result)")
        #expect(result.stderrText.contains("10 UBX frames (10 NAV-PVT/SOL)"), "\(result.stderrText)")
        let records = try sandbox.records()
        #expect(records.count == 10)
        let first = try #require(records.first)
        #expect(first.timestampText == "2026-11-20T12:30:15Z")
        #expect(first.raw("horizontal_accuracy") == "1")
        #expect(first.raw("vertical_accuracy") == "3")
        #expect(first.raw("speed_accuracy") == "0.21")
        #expect(first.raw("course_accuracy") == "0.75")
        #expect(first.altitude == 52)
        // The same bytes read as --input nmea: UBX skipped, NMEA fixes without accuracy.
        let other = try LogSandbox()
        #expect(try other.log([path, "--input", "nmea"]).succeeded)
        #expect(try other.records().first?.raw("speed_accuracy") == "-1")
    }

    /// gpsd's ZED-F9P capture (Tests/Fixtures/gpsd/ublox-zed-f9p-hp.log, BSD-2-Clause): 29
    /// epochs of NAV-PVT among eleven NAV messages each, ended by NAV-EOE, after gpsd's
    /// header lines. gpsd reported 21:19:20 to 21:19:48 (ublox-zed-f9p-hp.tpv.jsonl).
    @Test func gpsdUBXCaptureImportsEveryEpoch() throws {
        let sandbox = try LogSandbox()
        let result = try sandbox.log([LogSamples.capture("ublox-zed-f9p-hp"), "--stats"])
        #expect(result.succeeded, "\(result)")
        #expect(result.stderrText.contains("(29 NAV-PVT/SOL)"), "\(result.stderrText)")
        let records = try sandbox.records()
        #expect(records.count == 29)
        let first = try #require(records.first), last = try #require(records.last)
        #expect(first.timestampText == "2019-04-22T21:19:20Z" && last.timestampText == "2019-04-22T21:19:48Z")
        #expect(abs(first.latitude - -45.8775286) < 1e-6 && abs(first.longitude - 170.5001306) < 1e-6)
        #expect(abs(last.latitude - -45.877543) < 1e-6 && abs(last.longitude - 170.5000994) < 1e-6)
        #expect(first.altitude == 27, "hMSL 27.443 m")
        #expect(first.raw("horizontal_accuracy") == "14" && first.raw("vertical_accuracy") == "13", "hAcc 14.481 m, vAcc 12.898 m")
        #expect(records.map(\.timestamp) == records.map(\.timestamp).sorted())
    }
}
