import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Shared by the reliability suite (Reliability*, SyncCrash*, Fault*, Hostile*, Security*
// tests): how long to run, where to write the figures, a synthetic GPS stream, a private
// sandbox for the three tools, and the checks that say "nothing lost".

/// The suite's size. The CI form (no variables set) stays within a few minutes on two
/// cores; `scripts/soak` multiplies every count and changes every seed.
enum Soak {
    /// OVERLAND_SOAK_SCALE: a multiplier for kills, fault points sampled and fuzz inputs (1).
    static let scale: Int = {
        let raw = ProcessInfo.processInfo.environment["OVERLAND_SOAK_SCALE"].flatMap { Int($0) } ?? 1
        return min(max(raw, 1), 10_000)
    }()

    /// OVERLAND_SOAK_SEED: changes every seeded schedule (0 in CI, so CI repeats exactly).
    static let seed: UInt64 = ProcessInfo.processInfo.environment["OVERLAND_SOAK_SEED"].flatMap { UInt64($0) } ?? 0

    /// True in a soak run.
    static var isSoak: Bool { scale > 1 }

    /// `ci` in CI, `ci * scale` in a soak.
    static func count(_ ci: Int) -> Int { ci * scale }

    /// A generator for one test: its own constant, mixed with the soak seed.
    static func generator(_ base: UInt64) -> SeededGenerator {
        SeededGenerator(seed: base ^ (seed &* 0x9E37_79B9_7F4A_7C15) ^ (seed << 7))
    }
}

/// The published figures: each test reports what it tried and what it lost to the file
/// named by OVERLAND_RELIABILITY_REPORT (tab-separated lines, appended), which
/// `scripts/soak` sums into the table of docs/reliability.md.
enum Figures {
    static let path = ProcessInfo.processInfo.environment["OVERLAND_RELIABILITY_REPORT"].flatMap { $0.isEmpty ? nil : $0 }

    /// One line: area, what was counted, how many, how many records were lost, the test.
    static func record(_ area: String, _ what: String, _ count: Int, lost: Int = 0, test: String = #function) {
        guard let path else { return }
        let line = "\(area)\t\(what)\t\(count)\t\(lost)\t\(test)\n"
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = line.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress!, $0.count - 1) }
    }
}

/// A synthetic receiver: one GGA and one RMC per second from 2024-03-01T00:00:00Z, moving
/// about 2.5 m/s, so that every epoch becomes exactly one point under the default settings
/// (min_time 1 s) and every point has its own timestamp.
enum SyntheticDrive {
    static let start: Int64 = 1_709_251_200

    /// The time of epoch `index`, in seconds since 1970.
    static func time(_ index: Int) -> Int64 { start + Int64(index) }

    /// Epoch `index` as NMEA text (two sentences, CRLF).
    static func epoch(_ index: Int) -> String {
        var time = time_t(time(index))
        var parts = tm()
        gmtime_r(&time, &parts)
        let clock = String(format: "%02d%02d%02d.000", parts.tm_hour, parts.tm_min, parts.tm_sec)
        let date = String(format: "%02d%02d%02d", parts.tm_mday, parts.tm_mon + 1, parts.tm_year % 100)
        let latitude = 45.5 + Double(index % 20_000) * 0.00002
        let longitude = 77.7 + Double(index / 20_000) * 0.01
        let lat = String(format: "%02d%07.4f", Int(latitude), (latitude - Double(Int(latitude))) * 60)
        let lon = String(format: "%03d%07.4f", Int(longitude), (longitude - Double(Int(longitude))) * 60)
        return sentence("GPGGA,\(clock),\(lat),N,\(lon),W,1,08,1.0,100.0,M,,,,")
            + sentence("GPRMC,\(clock),A,\(lat),N,\(lon),W,5.0,10.0,\(date),,,A")
    }

    static func text(_ range: Range<Int>) -> String { range.map(epoch).joined() }

    static func sentence(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0), ^)
        return "$" + body + "*" + String(format: "%02X", checksum) + "\r\n"
    }

    /// The epoch a record line was made from (its `timestamp`), or nil.
    static func index(ofRecord line: String) -> Int? {
        guard let seconds = timestamp(in: line) else { return nil }
        return Int(seconds - start)
    }

    /// `"timestamp":"YYYY-MM-DDTHH:MM:SSZ"` in a record line, in seconds since 1970.
    static func timestamp(in line: String) -> Int64? {
        guard let range = line.range(of: "\"timestamp\":\"") else { return nil }
        let text = line[range.upperBound...].prefix(20)
        let digits = text.split(whereSeparator: { "-T:Z".contains($0) }).compactMap { Int64($0) }
        guard digits.count == 6, text.count == 20 else { return nil }
        var parts = tm()
        parts.tm_year = Int32(digits[0] - 1900)
        parts.tm_mon = Int32(digits[1] - 1)
        parts.tm_mday = Int32(digits[2])
        parts.tm_hour = Int32(digits[3])
        parts.tm_min = Int32(digits[4])
        parts.tm_sec = Int32(digits[5])
        return Int64(timegm(&parts))
    }
}

/// One record read back from a journal.
struct StoredRecord: Equatable, Sendable {
    var sequence: UInt64
    var line: String
}

/// A private world for one reliability test: its own journal, settings file, HOME and XDG
/// directories, and none of the OVERLAND_* variables of whoever runs the tests.
final class ReliabilitySandbox: @unchecked Sendable {
    let directory: TemporaryDirectory
    let environment: [String: String?]
    let log: ToolRunner
    let sync: ToolRunner
    let overland: ToolRunner

    init(prefix: String = "overland-reliability") throws {
        directory = try TemporaryDirectory(prefix: prefix)
        environment = [
            "HOME": directory.appending("home"),
            "XDG_CONFIG_HOME": directory.appending("config"),
            "XDG_DATA_HOME": directory.appending("data"),
            "XDG_STATE_HOME": directory.appending("state"),
            "OVERLAND_CONFIG": nil, "OVERLAND_URL": nil, "OVERLAND_TOKEN": nil, "OVERLAND_JOURNAL": nil, "OVERLAND_FAULT_POINT": nil,
            "OVERLAND_TEST_NOW": nil,
            // The device the journals are made for, so that the sync's copy detection
            // knows them as this machine's own.
            "OVERLAND_DEVICE_ID": "reliability",
        ]
        let environment = self.environment
        func runner(_ name: String) -> ToolRunner {
            var runner = ToolRunner(product: name)
            runner.environment = environment
            return runner
        }
        log = runner("overland-log")
        sync = runner("overland-sync")
        overland = runner("overland")
    }

    var journal: String { directory.appending("journal") }
    /// The default settings file ($XDG_CONFIG_HOME/overland/settings.json).
    var settingsPath: String { directory.appending("config/overland/settings.json") }

    /// Writes the settings file.
    func writeSettings(_ text: String) throws {
        try FileManager.default.createDirectory(atPath: (settingsPath as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: settingsPath))
        chmod(settingsPath, 0o600)
    }

    /// Writes `text` to a file in the sandbox and returns its path.
    func file(_ name: String, _ text: String) throws -> String {
        let path = directory.appending(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Logs epochs `range` of the synthetic drive from a file (a clean run).
    @discardableResult
    func logEpochs(_ range: Range<Int>, journal: String? = nil, extra: [String] = [],
                   sourceLocation: SourceLocation = #_sourceLocation) throws -> ToolResult {
        let input = try file("epochs-\(range.lowerBound)-\(range.upperBound).nmea", SyntheticDrive.text(range))
        let result = try log.run(["--journal", journal ?? self.journal, "--device-id", "reliability"] + extra + [input])
        #expect(result.succeeded, "overland-log: \(result)", sourceLocation: sourceLocation)
        return result
    }

    /// `overland journal verify --journal JOURNAL`.
    func verify(_ journal: String? = nil) throws -> ToolResult {
        try overland.run(["journal", "verify", "--journal", journal ?? self.journal])
    }

    /// Every record, in order, read in-process; issues are returned, not thrown.
    func records(_ journal: String? = nil) throws -> (records: [StoredRecord], issues: [JournalIssue]) {
        try Self.read(journal ?? self.journal)
    }

    static func read(_ path: String) throws -> (records: [StoredRecord], issues: [JournalIssue]) {
        let issues = IssueCollector()
        let journal = try Journal(path: path)
        let reader = try journal.records(from: 0, onIssue: issues.handler)
        var records: [StoredRecord] = []
        while let record = try reader.next() {
            records.append(StoredRecord(sequence: record.sequence, line: String(decoding: record.line, as: UTF8.self)))
        }
        return (records, issues.issues)
    }

    /// The journal's cursor (0 when there is none).
    /// The default reader's place (its progress record, else its cursor file).
    func cursor(_ journal: String? = nil) throws -> UInt64 { try Journal(path: journal ?? self.journal).cursor(for: .default) }

    /// Files (not directories) under `root`, relative, sorted.
    static func files(under root: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
        var files: [String] = []
        while let name = enumerator.nextObject() as? String {
            var info = stat()
            if lstat(root + "/" + name, &info) == 0 && (info.st_mode & S_IFMT) != S_IFDIR { files.append(name) }
        }
        return files.sorted()
    }
}

/// What "nothing lost" means for a journal written by the logger from the synthetic drive.
enum JournalInvariant {
    /// Sequence numbers 0, 1, 2, ... without a gap, each record a synthetic point, the
    /// epochs strictly increasing (in order, no duplicate). Returns the epochs.
    @discardableResult
    static func check(_ records: [StoredRecord], context: @autoclosure () -> String,
                      sourceLocation: SourceLocation = #_sourceLocation) -> [Int] {
        var epochs: [Int] = []
        for (index, record) in records.enumerated() {
            if record.sequence != UInt64(index) {
                Issue.record("\(context()): record \(index) has sequence \(record.sequence)", sourceLocation: sourceLocation)
                break
            }
            guard let epoch = SyntheticDrive.index(ofRecord: record.line) else {
                Issue.record("\(context()): record \(index) is not a point: \(record.line.prefix(200))", sourceLocation: sourceLocation)
                break
            }
            if let last = epochs.last, epoch <= last {
                Issue.record("\(context()): epoch \(epoch) after \(last) (duplicate or out of order)", sourceLocation: sourceLocation)
            }
            epochs.append(epoch)
        }
        return epochs
    }
}

/// The requests a server received from overland-sync, as ranges of journal records.
struct Delivery {
    struct Batch: Equatable {
        var range: Range<Int>
        var locations: String
    }

    var batches: [Batch] = []

    /// The raw text of the `locations` array of a request body (byte for byte as sent).
    static func rawLocations(_ body: [UInt8]) -> String? {
        JSONScan.rawValue(of: "locations", in: String(decoding: body, as: UTF8.self))
    }

    /// Maps each request to the journal records it carried: its locations must be journal
    /// lines, byte for byte, consecutive. `lines` are the journal's records in order.
    init(requests: [LocalServer.Request], lines: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        var position: [String: Int] = [:]
        for (index, line) in lines.enumerated() where position[line] == nil { position[line] = index }
        for (number, request) in requests.enumerated() {
            guard let raw = Self.rawLocations(request.body),
                  let array = try? JSONScan.value(raw.utf8) as? [Any] else {
                Issue.record("request \(number) has no locations array: \(request.bodyText.prefix(200))", sourceLocation: sourceLocation)
                continue
            }
            // Split the raw array into its elements' raw texts.
            let elements = Self.elements(of: raw)
            guard elements.count == array.count, let first = elements.first, let start = position[first] else {
                Issue.record("request \(number): locations are not journal records", sourceLocation: sourceLocation)
                continue
            }
            let expected = Array(lines[start..<min(lines.count, start + elements.count)])
            if expected != elements {
                Issue.record("request \(number): locations are not consecutive journal records, byte for byte",
                             sourceLocation: sourceLocation)
            }
            batches.append(Batch(range: start..<(start + elements.count), locations: raw))
        }
    }

    /// The top-level elements of a JSON array's raw text.
    static func elements(of raw: String) -> [String] {
        var elements: [String] = []
        var depth = 0, inString = false, escaped = false
        var start: String.Index?
        for index in raw.indices {
            let character = raw[index]
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                continue
            }
            switch character {
            case "\"": inString = true
            case "[", "{":
                depth += 1
                if depth == 2 { start = index }
            case "]", "}":
                if depth == 2, let begin = start { elements.append(String(raw[begin...index])) }
                depth -= 1
            default: break
            }
        }
        return elements
    }

    /// Every record delivered at least once, in order; a batch is sent again only right
    /// after itself (the batch in flight at a crash), byte for byte. Returns the resends.
    @discardableResult
    func check(total: Int, maximumResends: Int, context: @autoclosure () -> String,
               sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        var next = 0
        var resends = 0
        var previous: Batch?
        for (number, batch) in batches.enumerated() {
            if batch.range.lowerBound == next {
                next = batch.range.upperBound
            } else if let previous, previous == batch {
                resends += 1
            } else {
                let resend: String = previous.map { " or a resend of \($0.range)" } ?? ""
                Issue.record(Comment(rawValue: "\(context()): request \(number) carries \(batch.range), expected one from \(next)\(resend)"),
                             sourceLocation: sourceLocation)
                return resends
            }
            previous = batch
        }
        #expect(next == total, "\(context()): delivered up to \(next) of \(total)", sourceLocation: sourceLocation)
        #expect(resends <= maximumResends, "\(context()): \(resends) resends, at most \(maximumResends) allowed",
                sourceLocation: sourceLocation)
        return resends
    }
}

/// What this machine lets the fault tests do.
enum FaultTools {
    /// strace's path: a failed test naming it and scripts/install-dependencies when it is
    /// not installed.
    static func strace(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try SystemTool.require("strace", sourceLocation: sourceLocation)
    }

    /// strace is installed but may not trace or inject: the container forbids ptrace
    /// (seccomp, no CAP_SYS_PTRACE). No package can change that, so the strace tests are
    /// skipped then; a missing strace is not a reason (those tests fail, naming it).
    static let ptraceDenied: Bool = {
        guard let path = SystemTool.find("strace") else { return false }
        let result = try? ToolRunner(executable: path).run(["-f", "-o", "/dev/null", "-e", "inject=getpid:error=EPERM:when=1", "/bin/true"])
        return result?.succeeded != true
    }()
    static let ptraceDeniedReason: Comment = "ptrace is not permitted in this container (no package can allow it): strace cannot inject faults"

    /// We may mount (a tmpfs, a read-only bind mount): root with CAP_SYS_ADMIN.
    static let canMount: Bool = {
        guard geteuid() == 0, let directory = try? TemporaryDirectory(prefix: "overland-mount-probe") else { return false }
        guard let mounted = try? ToolRunner(executable: "/bin/mount").run(["-t", "tmpfs", "-o", "size=64k", "tmpfs", directory.path]),
              mounted.succeeded else { return false }
        _ = try? ToolRunner(executable: "/bin/umount").run([directory.path])
        return true
    }()

    /// Root, with a `nobody` account: the permission tests can switch to it. Not root (or
    /// no `nobody`) is something no install can give, so those tests are skipped then.
    static let canBecomeNobody = geteuid() == 0 && getpwnam("nobody") != nil

    /// A way to run a program as `nobody`: `setpriv` (util-linux), else `runuser`; a failed
    /// test naming setpriv when neither is installed.
    static func asNobody(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        if let setpriv = SystemTool.find("setpriv") {
            let group = getgrnam("nogroup") != nil ? "nogroup" : "nobody"
            return [setpriv, "--reuid=nobody", "--regid=\(group)", "--clear-groups"]
        }
        if let runuser = SystemTool.find("runuser") { return [runuser, "-u", "nobody", "--"] }
        return [try SystemTool.require("setpriv", sourceLocation: sourceLocation)]
    }

    /// Runs `mount ARGUMENTS` and expects success.
    static func mount(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try ToolRunner(executable: "/bin/mount").run(arguments)
        #expect(result.succeeded, "mount \(arguments): \(result)", sourceLocation: sourceLocation)
        if !result.succeeded { throw ToolRunnerError(description: "mount \(arguments) failed: \(result.stderrText)") }
    }

    static func unmount(_ path: String) {
        // Busy while a process still has a file open there: detached now, freed when it closes.
        if (try? ToolRunner(executable: "/bin/umount").run([path]))?.succeeded == true { return }
        _ = try? ToolRunner(executable: "/bin/umount").run(["-l", path])
    }
}

/// Copies a directory tree (a journal) to a new place.
func copyTree(_ source: String, to destination: String) throws {
    let result = try ToolRunner(executable: "/bin/cp").run(["-a", source, destination])
    if !result.succeeded { throw ToolRunnerError(description: "cp -a \(source) \(destination): \(result.stderrText)") }
}

/// Sleeps the calling thread for `milliseconds`.
func sleepMilliseconds(_ milliseconds: Int) {
    if milliseconds > 0 { usleep(UInt32(milliseconds) * 1000) }
}

/// A named pipe whose write end the test holds, for a logger that must see a live input
/// that does not end (ToolRunner's standard input closes when the test waits).
final class ReliabilityFIFO: @unchecked Sendable {
    let path: String
    private var fd: Int32 = -1

    init(path: String) throws {
        guard mkfifo(path, 0o600) == 0 else { throw ToolRunnerError(description: "mkfifo \(path): errno \(errno)") }
        self.path = path
    }

    deinit { close() }

    /// Starts `runner ARGUMENTS < FIFO` and opens the write end once it reads.
    func start(_ runner: ToolRunner, _ arguments: [String], environment: [String: String?] = [:]) throws -> RunningTool {
        var shell = ToolRunner(executable: "/bin/sh")
        shell.environment = runner.environment
        let child = try shell.start(["-c", "exec \"$0\" \"$@\" < \"$RELIABILITY_FIFO\"", runner.executable] + arguments,
                                    environment: environment.merging(["RELIABILITY_FIFO": path]) { $1 })
        // No reader yet is ENXIO: wait for the reader (the event), any other error ends it.
        var failure: Int32 = 0
        waitUntil {
            fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            failure = fd < 0 ? errno : 0
            return fd >= 0 || failure != ENXIO
        }
        guard fd >= 0 else { throw ToolRunnerError(description: "no reader opened \(path): errno \(failure)") }
        return child
    }

    /// Writes everything (waiting while the pipe is full); false once the reader is gone.
    @discardableResult
    func write(_ text: String) -> Bool { PipeWrite.all(Array(text.utf8), to: fd) }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}
