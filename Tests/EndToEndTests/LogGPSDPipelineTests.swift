import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real gpsd tools, when installed (Debian: gpsd and gpsd-clients): `gpsfake` replays a
/// capture through a real gpsd on a pseudo-terminal, and `gpspipe -r` / `gpspipe -w` pipe
/// its NMEA or JSON into the logger, as the README tells users to.
enum LogGPSD {
    static func find(_ tool: String) -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") + ":/usr/sbin:/sbin"
        return path.split(separator: ":").map { "\($0)/\(tool)" }.first { access($0, X_OK) == 0 }
    }

    static let gpsfake = find("gpsfake")
    static let gpspipe = find("gpspipe")
    static let available = gpsfake != nil && gpspipe != nil && find("gpsd") != nil

    /// gpsfake and gpspipe; a missing one is a failure, not a skip: scripts/install-dependencies installs them.
    static func tools(sourceLocation: SourceLocation = #_sourceLocation) throws -> (gpsfake: String, gpspipe: String) {
        try #require(available, "gpsfake, gpspipe and gpsd are not installed (Debian packages gpsd and gpsd-clients): run `bash scripts/install-dependencies`",
                     sourceLocation: sourceLocation)
        return (try #require(gpsfake, sourceLocation: sourceLocation), try #require(gpspipe, sourceLocation: sourceLocation))
    }

    /// The capture replayed: a Unicore UM621 from 2024 (gpsd 3.22 moves pre-2017 dates by
    /// 1024 weeks), 15 epochs at 1 Hz, about 2 s through gpsfake.
    static let capture = "unicore-um621"

    /// A TCP port nobody listens on now.
    static func freePort() -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    /// True once something accepts connections on 127.0.0.1:port.
    static func waitForListener(port: UInt16, timeout: Duration) -> Bool {
        waitUntil(timeout: timeout) { LoopbackPort.accepts(Int(port)) }
    }

    /// The seconds of gpsd's truth for the capture, and what gpsd 3.22 itself reports
    /// differently: it also reports 00:07:05 (the NMEA golden test explains that epoch),
    /// and its error estimate for 00:07:10 exceeds the default desired accuracy (100 m).
    static func expectation() throws -> (truth: [Int64: LogTruthFix], allowed: Set<Int64>) {
        var truth: [Int64: LogTruthFix] = [:]
        for fix in try LogSamples.truth(capture) where truth[fix.wholeSecond] == nil { truth[fix.wholeSecond] = fix }
        return (truth, Set(truth.keys).union([try #require(LogTime.parse("2024-06-09T00:07:05Z"))]))
    }

    /// Checks the logged points against gpsd's truth: known seconds only, in order, at
    /// gpsd's positions, and most of them (a client that connects late misses the start).
    static func check(_ records: [LogRecord], minimum: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (truth, allowed) = try expectation()
        #expect(records.count >= minimum, "\(records.count) points", sourceLocation: sourceLocation)
        #expect(zip(records, records.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp }, sourceLocation: sourceLocation)
        for record in records {
            #expect(allowed.contains(record.timestamp), "\(record.timestampText) is not in the capture", sourceLocation: sourceLocation)
            LogRecordCheck.check(record, sourceLocation: sourceLocation)
            guard let fix = truth[record.timestamp] else { continue }
            let distance = logDistance(latitude1: fix.latitude, longitude1: fix.longitude,
                                       latitude2: record.latitude, longitude2: record.longitude)
            #expect(distance <= 0.1, "\(record.timestampText): \(distance) m", sourceLocation: sourceLocation)
        }
    }
}

@Suite("overland-log: the real gpsd pipeline", .serialized)
struct LogGPSDPipelineTests {
    /// `gpsfake -p` is itself gpsd's first client and prints its JSON: deterministic.
    @Test func gpsfakeJSONIntoTheLogger() throws {
        let tools = try LogGPSD.tools()
        let sandbox = try LogSandbox()
        let shell = ToolRunner(executable: "/bin/sh")
        let result = try shell.run(
            ["-c", #"set -e; "$GPSFAKE" -1 -q -p -r '?WATCH={"json":true}' "$CAPTURE" 2>/dev/null | "$LOGGER" --journal "$JOURNAL" --stats"#],
            environment: sandbox.logger.environment.merging([
                "GPSFAKE": tools.gpsfake, "CAPTURE": LogSamples.capture(LogGPSD.capture),
                "LOGGER": sandbox.logger.executable, "JOURNAL": sandbox.journal,
            ]) { $1 })
        let records = (try? sandbox.records()) ?? []
        // gpsfake needs a pseudo-terminal and must be able to start gpsd.
        try #require(!records.isEmpty || result.stderrText.contains("TPV reports"), "gpsfake did not replay the capture: \(result)")
        #expect(result.succeeded, "\(result)")
        #expect(result.stderrText.contains("TPV reports"), "read as gpsd JSON: \(result.stderrText)")
        try LogGPSD.check(records, minimum: 12)
    }

    /// `gpspipe -r` (NMEA, after gpsd's JSON greeting) and `gpspipe -w` (JSON) from a
    /// gpsd started by gpsfake on a port of its own.
    @Test(arguments: ["-r", "-w"])
    func gpspipeIntoTheLogger(mode: String) throws {
        let tools = try LogGPSD.tools()
        let sandbox = try LogSandbox()
        let port = LogGPSD.freePort()
        // Its -p output goes to /dev/null: unread in a pipe, it would fill it and stall the replay.
        let gpsfake = try ToolRunner(executable: "/bin/sh").start(
            ["-c", #"exec "$0" -1 -q -p -P "$1" "$2" >/dev/null 2>&1"#, tools.gpsfake, "\(port)",
             LogSamples.capture(LogGPSD.capture)])
        defer { gpsfake.killGroup(SIGKILL); _ = gpsfake.wait() }
        guard LogGPSD.waitForListener(port: port, timeout: ToolRunner.hangGuard) else {
            gpsfake.killGroup(SIGKILL)
            let failed = gpsfake.wait()
            Issue.record("gpsfake did not start gpsd on port \(port): \(failed)")
            return
        }
        let shell = ToolRunner(executable: "/bin/sh")
        let result = try shell.run(
            ["-c", #""$GPSPIPE" "$MODE" -n 100000 "127.0.0.1:$PORT" | "$LOGGER" --journal "$JOURNAL" --stats"#],
            environment: sandbox.logger.environment.merging([
                "GPSPIPE": tools.gpspipe, "MODE": mode, "PORT": "\(port)",
                "LOGGER": sandbox.logger.executable, "JOURNAL": sandbox.journal,
            ]) { $1 })
        #expect(result.succeeded, "\(result)")
        #expect(!result.timedOut)
        // gpsfake started feeding when its own client connected: gpspipe may miss the first
        // epochs, never the rest. Auto-detection must see past gpsd's JSON greeting.
        let expected = mode == "-r" ? "sentences" : "TPV reports"
        #expect(result.stderrText.contains(expected), "\(mode) read as \(expected): \(result.stderrText)")
        try LogGPSD.check(try sandbox.records(), minimum: 8)
        let finished = gpsfake.wait()
        #expect(!finished.timedOut, "gpsfake -1 ends after one pass")
    }
}
