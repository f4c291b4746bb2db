import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The sample data the `overland-log` tests read, all inside the repository: the demo
/// capture, gpsd's regression captures (`Tests/Fixtures/gpsd`, BSD-2-Clause, see its README),
/// gpsd JSON, and a generated drive (GeneratedDrive).
enum LogSamples {
    /// `<repo>/Tests/EndToEndTests/LogTestSupport.swift` -> `<repo>`.
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let fixtures = repository + "/Tests/Fixtures"

    /// The demo capture (a copy of gpsd's quectel-l76k-nmea.log), 5 Hz.
    static let bundled = repository + "/samples/quectel-l76k.nmea"
    /// A 98-minute drive: 5,597 epochs of GGA, GSA, RMC, VTG at about 1 Hz, CRLF, on 2020-02-14.
    static let drive = GeneratedDrive.standard
    /// gpsd JSON recorded from gpsd 3.22 (see that directory's README).
    static let gpsdFixtures = repository + "/Tests/OverlandInputTests/Fixtures"

    static func capture(_ name: String) -> String { fixtures + "/gpsd/\(name).log" }

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The drive's epochs, each its four lines with their CRLF, in order.
    static func driveEpochs() -> [String] { drive.epochs.map(\.text) }

    /// The UTC time of a drive epoch ("180542" -> seconds since 1970): the drive is on one day.
    static func driveEpochTime(_ epoch: String) -> Int64 {
        let time = epoch.utf8.dropFirst(7).prefix(6).map { Int64($0) - 48 }
        guard time.count == 6, time.allSatisfy({ (0...9).contains($0) }), let first = drive.epochs.first else { return -1 }
        let day = first.time - first.time % 86_400
        return day + (time[0] * 10 + time[1]) * 3600 + (time[2] * 10 + time[3]) * 60 + time[4] * 10 + time[5]
    }

    /// The fixes gpsd reported for a capture (`NAME.truth.jsonl`).
    static func truth(_ name: String) throws -> [LogTruthFix] {
        let text = String(decoding: try bytes(fixtures + "/gpsd/\(name).truth.jsonl"), as: UTF8.self)
        return try text.split(separator: "\n").map { line in
            guard let object = try JSONScan.object(line.utf8),
                  let fix = LogTruthFix(object) else {
                throw ToolRunnerError(description: "not a gpsd truth fix: \(line)")
            }
            return fix
        }
    }
}

extension LogSandbox {
    /// Writes the generated drive into the sandbox and returns its path.
    func driveFile() throws -> String { try file("drive.nmea", text: LogSamples.drive.text) }
}

/// One line of a gpsd truth file.
struct LogTruthFix {
    var seconds: Double
    var latitude: Double
    var longitude: Double
    var altitude: Double?
    var speed: Double?
    var reported: Set<String>

    init?(_ object: [String: Any]) {
        guard let seconds = object["t"] as? NSNumber, let latitude = object["lat"] as? NSNumber,
              let longitude = object["lon"] as? NSNumber else { return nil }
        self.seconds = seconds.doubleValue
        self.latitude = latitude.doubleValue
        self.longitude = longitude.doubleValue
        altitude = (object["altMSL"] as? NSNumber)?.doubleValue
        speed = (object["speed"] as? NSNumber)?.doubleValue
        reported = Set(object["reported"] as? [String] ?? [])
    }

    /// The whole second the fix falls in: its point's timestamp.
    var wholeSecond: Int64 { Int64(seconds.rounded(.down)) }
}

/// One record read back from a journal, parsed as a receiver would.
struct LogRecord {
    var sequence: UInt64
    var line: String
    var object: [String: Any]

    var properties: [String: Any] { object["properties"] as? [String: Any] ?? [:] }
    var coordinates: [Double] { ((object["geometry"] as? [String: Any])?["coordinates"] as? [NSNumber])?.map(\.doubleValue) ?? [] }
    var longitude: Double { coordinates.first ?? .nan }
    var latitude: Double { coordinates.count > 1 ? coordinates[1] : .nan }
    var timestampText: String { properties["timestamp"] as? String ?? "" }
    /// The timestamp in seconds since 1970.
    var timestamp: Int64 { LogTime.parse(timestampText) ?? -1 }
    var altitude: Int? { (properties["altitude"] as? NSNumber)?.intValue }
    var speed: Double? { (properties["speed"] as? NSNumber)?.doubleValue }
    var deviceID: String? { properties["device_id"] as? String }

    /// The raw JSON text of a key's value in the line, as a strict receiver sees it.
    func raw(_ key: String) -> String? { JSONScan.rawValue(of: key, in: line) }
}

/// UTC times as the protocol writes them.
enum LogTime {
    /// "2020-02-14T18:05:42Z" -> seconds since 1970.
    static func parse(_ text: String) -> Int64? {
        guard let match = text.wholeMatch(of: /(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)Z/),
              let year = Int64(match.1), let month = Int64(match.2), let day = Int64(match.3),
              let hour = Int64(match.4), let minute = Int64(match.5), let second = Int64(match.6) else { return nil }
        // Days from civil (Howard Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return days * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// Seconds since 1970 -> "2020-02-14T18:05:42Z".
    static func format(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec)
    }
}

/// A private world for one `overland-log` test: its own journal, settings file, HOME,
/// XDG directories, and none of the OVERLAND_* variables of whoever runs the tests, so
/// that the developer's real journal and settings are never read or touched.
final class LogSandbox: @unchecked Sendable {
    let directory: TemporaryDirectory
    let logger: ToolRunner
    let overland: ToolRunner

    init() throws {
        directory = try TemporaryDirectory(prefix: "overland-log")
        let environment: [String: String?] = [
            "HOME": directory.appending("home"),
            "XDG_CONFIG_HOME": directory.appending("config"),
            "XDG_DATA_HOME": directory.appending("data"),
            "OVERLAND_CONFIG": nil, "OVERLAND_URL": nil, "OVERLAND_TOKEN": nil,
            "OVERLAND_DEVICE_ID": nil, "OVERLAND_JOURNAL": nil,
        ]
        var logger = ToolRunner(product: "overland-log")
        logger.environment = environment
        var overland = ToolRunner(product: "overland")
        overland.environment = environment
        self.logger = logger
        self.overland = overland
    }

    var journal: String { directory.appending("journal") }
    /// The default settings file here ($XDG_CONFIG_HOME/overland/settings.json).
    var settingsPath: String { directory.appending("config/overland/settings.json") }

    /// Writes the settings file (the default one unless `path` is given).
    func writeSettings(_ text: String, to path: String? = nil) throws {
        let path = path ?? settingsPath
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// A fake battery (a `/sys/class/power_supply/NAME` directory) for `battery_path`.
    func fakeBattery(capacity: Int = 80, status: String = "Discharging") throws -> String {
        let path = directory.appending("BAT0")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, value) in [("type", "Battery"), ("capacity", "\(capacity)"), ("status", status)] {
            try Data((value + "\n").utf8).write(to: URL(fileURLWithPath: path + "/" + name))
        }
        return path
    }

    /// Writes `bytes` to a file in the sandbox and returns its path.
    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = directory.appending(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func file(_ name: String, text: String) throws -> String { try file(name, Array(text.utf8)) }

    /// Runs `overland-log --journal JOURNAL ARGUMENTS`.
    func log(_ arguments: [String], environment: [String: String?] = [:], stdin: [UInt8]? = nil,
             timeout: Duration = ToolRunner.hangGuard) throws -> ToolResult {
        try logger.run(["--journal", journal] + arguments, environment: environment, stdin: stdin, timeout: timeout)
    }

    /// Runs `overland ARGUMENTS --journal JOURNAL` (e.g. `journal verify`).
    func overlandJournal(_ arguments: String...) throws -> ToolResult {
        try overland.run(arguments + ["--journal", journal])
    }

    /// Every record in the journal, in sequence order, read in-process; damage is an issue.
    func records(sourceLocation: SourceLocation = #_sourceLocation) throws -> [LogRecord] {
        let journal = try Journal(path: self.journal)
        let reader = try journal.records(from: 0, onIssue: { issue in
            Issue.record("journal issue: \(issue)", sourceLocation: sourceLocation)
        })
        var records: [LogRecord] = []
        while let record = try reader.next() {
            let line = String(decoding: record.line, as: UTF8.self)
            guard let object = try JSONScan.object(line.utf8) else {
                throw ToolRunnerError(description: "record \(record.sequence) is not a JSON object: \(line)")
            }
            records.append(LogRecord(sequence: record.sequence, line: line, object: object))
        }
        return records
    }

    /// How many records the journal holds (0 when it does not exist yet).
    func recordCount() -> UInt64 {
        guard let journal = try? Journal(path: self.journal), let stats = try? journal.statistics() else { return 0 }
        return stats.records
    }

    /// The segment files, by path.
    func segments() throws -> [String] {
        let directory = journal + "/segments"
        return try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".jsonl.gz") }.sorted().map { directory + "/" + $0 }
    }

    /// A FIFO in the sandbox, for feeding a running logger's standard input.
    func fifo(_ name: String = "input.fifo") throws -> LogFIFO { try LogFIFO(path: directory.appending(name)) }

    /// Starts `overland-log --journal JOURNAL ARGUMENTS` reading standard input from the
    /// FIFO, and opens the FIFO for writing. The test keeps the write end: the logger sees
    /// end of input only when the test closes it, so a stop can be told apart from an end.
    func startLogging(_ arguments: [String], from fifo: LogFIFO, environment: [String: String?] = [:]) throws -> RunningTool {
        let shell = ToolRunner(executable: "/bin/sh")
        var merged = logger.environment.merging(environment) { $1 }
        merged["LOG_FIFO"] = fifo.path
        let child = try shell.start(["-c", "exec \"$0\" \"$@\" < \"$LOG_FIFO\"", logger.executable, "--journal", journal] + arguments,
                                    environment: merged)
        try fifo.openForWriting(timeout: ToolRunner.hangGuard)
        return child
    }
}

/// The write end of a named pipe, opened close-on-exec (tests run in parallel: a leaked
/// write end in another test's child would keep our reader from seeing end of input).
final class LogFIFO: @unchecked Sendable {
    let path: String
    private var fd: Int32 = -1

    init(path: String) throws {
        guard mkfifo(path, 0o600) == 0 else { throw ToolRunnerError(description: "mkfifo \(path): errno \(errno)") }
        self.path = path
    }

    deinit { close() }

    /// Waits for a reader to open the other end, then opens the write end.
    func openForWriting(timeout: Duration) throws {
        var failure: Int32 = 0
        waitUntil(timeout: timeout) {
            fd = Glibc.open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            failure = fd < 0 && errno != ENXIO ? errno : 0
            return fd >= 0 || failure != 0
        }
        guard fd >= 0 else { throw ToolRunnerError(description: "no reader opened \(path): errno \(failure)") }
    }

    /// Writes everything, waiting while the pipe is full; false if the reader went away.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool { PipeWrite.all(bytes, to: fd) }

    func write(_ text: String) { write(Array(text.utf8)) }

    /// Bytes written but not yet read by the other end.
    var unread: Int32 {
        var count: Int32 = 0
        _ = ioctl(fd, UInt(FIONREAD), &count)
        return count
    }

    /// Waits until the reader has taken everything written. The logger decodes a chunk before
    /// it looks for a signal again, so a signal sent after this acts on everything written.
    func waitUntilRead() {
        _ = waitUntil { unread == 0 }
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}

extension RunningTool {
    /// Whether the process has `path` open (a serial port: the logger listens to it).
    func hasOpen(_ path: String) -> Bool {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path),
              let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return false }
        let wanted = target.hasPrefix("/") ? target : (path as NSString).deletingLastPathComponent + "/" + target
        return descriptors.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) == wanted }
    }

    /// Whether `signal` waits, blocked, for the process to take it (`/proc/PID/status`:
    /// SigPnd for the thread, ShdPnd for the process).
    func hasPending(_ signal: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
        return status.split(separator: "\n").contains { line in
            guard line.hasPrefix("SigPnd:") || line.hasPrefix("ShdPnd:"),
                  let mask = UInt64(line.split(separator: "\t").last ?? "", radix: 16) else { return false }
            return mask & (1 << UInt64(signal - 1)) != 0
        }
    }

    /// True while the process runs (not yet exited, or a zombie not yet reaped by `wait`).
    var isRunning: Bool {
        guard let state = processState("/proc/\(pid)/stat") else { return false }
        return state != "Z" && state != "X"
    }
}

/// The keys every location point carries (protocol section 1).
let logAlwaysPresentKeys = ["timestamp", "altitude", "speed", "course", "horizontal_accuracy", "vertical_accuracy",
                            "speed_accuracy", "course_accuracy", "motion", "battery_state", "battery_level", "wifi",
                            "device_id"]

/// True when a raw JSON number is written as an integer (no fraction, no exponent).
func logIsIntegerText(_ text: String?) -> Bool {
    guard let text else { return false }
    let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
    return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
}

/// True when a raw JSON number has at most `places` decimals and no exponent.
func logHasAtMostDecimals(_ text: String?, _ places: Int) -> Bool {
    guard let text else { return false }
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count <= 2, logIsIntegerText(String(parts[0])) else { return false }
    return parts.count == 1 || (!parts[1].isEmpty && parts[1].count <= places && parts[1].allSatisfy { $0.isASCII && $0.isNumber })
}

/// Metres between two positions (equirectangular; exact enough below a kilometre).
func logDistance(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double) -> Double {
    let metresPerDegree = 6_371_008.8 * Double.pi / 180
    let north = (latitude2 - latitude1) * metresPerDegree
    let east = (longitude2 - longitude1) * metresPerDegree * cos(latitude1 * .pi / 180)
    return (north * north + east * east).squareRoot()
}

/// An NMEA sentence with its checksum and CRLF: `nmea("GPGGA,...")` -> "$GPGGA,...*hh\r\n".
func nmea(_ body: String) -> String {
    let checksum = body.utf8.reduce(UInt8(0), ^)
    return "$" + body + "*" + String(format: "%02X", checksum) + "\r\n"
}

