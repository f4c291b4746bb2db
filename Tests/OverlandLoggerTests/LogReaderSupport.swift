import Foundation
import OverlandJournal
import OverlandLogger
import OverlandInput
import OverlandRecorder
import Testing

/// An NMEA sentence with its checksum and CRLF (for `GeneratedNMEA`).
func nmea(_ body: String) -> String {
    let checksum = body.utf8.reduce(UInt8(0), ^)
    return "$" + body + "*" + String(format: "%02X", checksum) + "\r\n"
}

/// A monotonic clock that moves only when the code under test waits or sleeps.
final class FakeClock: @unchecked Sendable {
    var now = 1000.0
    var sleeps: [Double] = []

    func sleep(_ seconds: Double) {
        sleeps.append(seconds)
        now += seconds
    }
}

/// A live input as a script: bytes arrive, the line stays quiet for a while (time passes on
/// the fake clock, in the waits the reader asks for), something is looked at, the input ends.
final class ScriptedSource: ByteSource {
    enum Step {
        case bytes([UInt8])
        case quiet(Double)
        /// Runs when the reader gets there: a look at the journal mid-stream.
        case look(() -> Void)
    }

    private var steps: [Step]
    private let clock: FakeClock
    private(set) var waits: [Double] = []
    private(set) var isClosed = false
    let wakesOnSignal = true

    init(_ steps: [Step], clock: FakeClock) {
        self.steps = steps.reversed()
        self.clock = clock
    }

    func wait(seconds: Double) -> Bool {
        waits.append(seconds)
        runLooks()
        guard case .quiet(let remaining)? = steps.last else { return true }
        // A clock always moves a little, even for a wait of nothing.
        let passed = min(max(seconds, 0.001), remaining)
        clock.now += passed
        steps.removeLast()
        if remaining - passed > 1e-9 { steps.append(.quiet(remaining - passed)) }
        runLooks()
        return false
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> ByteRead {
        runLooks()
        switch steps.last {
        case .bytes(let bytes)?:
            steps.removeLast()
            let count = min(bytes.count, buffer.count)
            buffer.copyBytes(from: bytes.prefix(count))
            if count < bytes.count { steps.append(.bytes(Array(bytes.dropFirst(count)))) }
            return .bytes(count)
        case .quiet?: return .again
        case .look?, nil: return .end
        }
    }

    func close() { isClosed = true }

    private func runLooks() {
        while case .look(let body)? = steps.last {
            steps.removeLast()
            body()
        }
    }
}

/// A journal in a temporary directory, a session over it and a reader on a fake clock.
final class ReaderHarness {
    let directory: String
    let journal: Journal
    let appender: JournalAppender
    let session: LoggingSession
    let reader: LogReader
    let clock = FakeClock()

    init(commitInterval: Double, format: InputFormatChoice = .automatic) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("logger-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        journal = try Journal(path: directory + "/journal", create: true, deviceID: "test", machine: "test")
        var policy = JournalPolicy()
        policy.commitInterval = commitInterval
        appender = try JournalAppender(journal: journal, policy: policy)
        var configuration = RecorderConfiguration()
        configuration.deviceID = "test"
        session = LoggingSession(appender: appender, recorder: Recorder(configuration: configuration),
                                 device: DeviceStatusReader(powerSupplyRoot: directory + "/none", networkRoot: directory + "/none"))
        reader = LogReader(session: session, inputFormat: format, datePolicy: { _ in .fromStreamOnly })
        let clock = clock
        session.clock = { clock.now }
        reader.sleep = { clock.sleep($0) }
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// A live input reading `steps`.
    func live(_ steps: [ScriptedSource.Step], name: String = "scripted",
              reopen: (() -> (any ByteSource)?)? = nil) -> LogInput {
        LogInput(name: name, source: ScriptedSource(steps, clock: clock), isLive: true, size: nil, reopen: reopen)
    }

    /// Records committed to the journal so far.
    var committed: Int { session.recordsAppended - appender.pendingRecords }
}

/// `text`'s bytes.
func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
