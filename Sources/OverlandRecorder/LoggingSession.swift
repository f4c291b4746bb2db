#if canImport(Glibc)
import Glibc
#endif
import OverlandJournal
import OverlandNMEA
import OverlandProtocol

/// One input stream for the logger: a file, a serial port or standard input.
public struct LogInput: Sendable {
    /// How the input is named in messages ("capture.nmea", "standard input").
    public var name: String
    public var fileDescriptor: Int32
    /// A live stream (pipe, terminal, serial port, socket): waited on with a deadline, dated
    /// by the system clock when the stream carries no date. Otherwise a file, read in bulk.
    public var isLive: Bool
    /// Bytes in the input, when known (for progress).
    public var size: Int?

    public init(name: String, fileDescriptor: Int32, isLive: Bool, size: Int?) {
        self.name = name
        self.fileDescriptor = fileDescriptor
        self.isLive = isLive
        self.size = size
    }
}

/// Why a session stopped reading before the end of its input.
public enum StopRequest: Sendable, Equatable {
    /// Stop now, commit, exit (SIGTERM, SIGINT).
    case stop
    /// Reload the settings (SIGHUP, or the settings file changed), then go on.
    case reload
}

/// The logger's main loop: reads inputs, decodes fixes, turns them into points and
/// appends them to the journal, committing per the journal's policy. It owns no terminal
/// and no signals: the caller passes a function that says when to stop or reload.
public final class LoggingSession {
    public let appender: JournalAppender
    public var recorder: Recorder
    public var inputFormat: InputFormatChoice
    public var datePolicy: (LogInput) -> DatePolicy
    private let device: DeviceStatusReader

    /// Called when a commit fails: the records stay in memory and the next commit tries
    /// again on a new segment.
    public var onCommitFailure: (JournalError) -> Void = { _ in }
    /// Called after each chunk of input with (input, bytes read so far).
    public var onProgress: (LogInput, Int) -> Void = { _, _ in }
    /// Called when auto-pause begins (the time of the fix), e.g. to end the active trip.
    public var onPause: (Int64) -> Void = { _ in }
    /// Called to reload the settings; returns the new recorder configuration.
    public var onReload: () -> RecorderConfiguration? = { nil }

    public private(set) var decoderStatistics = DecoderStatistics()
    public private(set) var recordsAppended = 0
    public private(set) var commitFailures = 0

    public init(appender: JournalAppender, recorder: Recorder, device: DeviceStatusReader,
                inputFormat: InputFormatChoice = .automatic, datePolicy: @escaping (LogInput) -> DatePolicy) {
        self.appender = appender
        self.recorder = recorder
        self.device = device
        self.inputFormat = inputFormat
        self.datePolicy = datePolicy
    }

    /// Reads `input` to its end, or until `checkSignals` says stop. Returns false when
    /// told to stop.
    public func run(_ input: LogInput, checkSignals: () -> StopRequest?) -> Bool {
        var source = FixSource(choice: inputFormat, datePolicy: datePolicy(input))
        recorder.startNewStream()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var fixes: [Fix] = []
        var total = 0
        var stopped = false
        reading: while true {
            if let request = checkSignals() {
                if request == .stop { stopped = true; break reading }
                if let configuration = onReload() { recorder.configuration = configuration }
            }
            if input.isLive {
                // Wait for input, but wake for due commits and for signals.
                let wait = min(0.25, appender.secondsUntilCommit() ?? 0.25)
                var descriptor = pollfd(fd: input.fileDescriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, Int32((wait * 1000).rounded(.up)))
                if ready == 0 || (ready < 0 && errno == EINTR) {
                    commitIfDue()
                    continue
                }
            }
            let count = buffer.withUnsafeMutableBytes { read(input.fileDescriptor, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                break reading // a vanished serial device ends this input like end of file
            }
            if count == 0 { break reading }
            total += count
            buffer.withUnsafeBytes { source.push(UnsafeRawBufferPointer(rebasing: $0[0..<count]), into: &fixes) }
            record(&fixes)
            onProgress(input, total)
            commitIfDue(inBackground: !input.isLive)
        }
        // The last reporting cycle is complete once the input ends or we are told to stop.
        source.finish(into: &fixes)
        record(&fixes)
        decoderStatistics.add(source.statistics)
        return !stopped
    }

    private func record(_ fixes: inout [Fix]) {
        guard !fixes.isEmpty else { return }
        let snapshot = device.snapshot(now: monotonicSeconds())
        var line: [UInt8] = []
        for fix in fixes {
            for event in recorder.process(fix, device: snapshot, payloadSize: fixes.count) {
                switch event {
                case .point(let point):
                    line.removeAll(keepingCapacity: true)
                    point.encodeJSONLine(into: &line)
                    append(line)
                case .paused(let time, _, _):
                    appendAction("paused_location_updates", at: time, device: snapshot)
                    onPause(time)
                case .resumed(let time, let exitedRegion):
                    if exitedRegion { appendAction("exited_pause_region", at: time, device: snapshot) }
                    appendAction("resumed_location_updates", at: time, device: snapshot)
                case .visit(let latitude, let longitude, let arrival, let departure):
                    let visit = VisitRecord(latitude: latitude, longitude: longitude, arrival: arrival, departure: departure,
                                            horizontalAccuracy: 50, device: metadata(snapshot))
                    append(visit.jsonLine())
                }
            }
        }
        fixes.removeAll(keepingCapacity: true)
    }

    private func metadata(_ snapshot: DeviceSnapshot) -> DeviceMetadata {
        DeviceMetadata(deviceID: recorder.configuration.deviceID, batteryState: snapshot.batteryState,
                       batteryLevel: snapshot.batteryLevel, wifi: snapshot.wifi)
    }

    /// Action records have no geometry, which some receivers refuse: only with tracking stats.
    private func appendAction(_ action: String, at time: Int64, device snapshot: DeviceSnapshot) {
        guard recorder.configuration.trackingStats != nil else { return }
        append(ActionRecord(action: action, timestamp: time, device: metadata(snapshot)).jsonLine())
    }

    private func append(_ line: [UInt8]) {
        do {
            // Through the contiguous-bytes entry: the generic one costs a copy's worth per record.
            try line.withUnsafeBytes { try appender.append($0, checkJSON: false) }
            recordsAppended += 1
        } catch {
            // The encoders only write valid JSON; a refusal would be a bug, not input.
            assertionFailure("encoder produced an invalid record: \(error)")
        }
    }

    /// A file is read as fast as it can be: its commits due by size are compressed and
    /// written on a second thread while this one decodes on. A live stream, and a commit
    /// due by time (`--commit-interval 0` asks for one per point), commit here and now.
    private func commitIfDue(inBackground: Bool = false) {
        guard appender.commitIsDue() else { return }
        guard inBackground, appender.pendingBytes >= appender.policy.commitBytes else { commit(); return }
        do {
            try appender.commitInBackground()
        } catch {
            commitFailures += 1
            onCommitFailure(error)
        }
    }

    /// Commits what waits; a failure is reported and retried at the next commit.
    @discardableResult
    public func commit() -> Bool {
        if let failure = appender.finishBackgroundCommit() {
            // Its records wait again: the commit below writes them.
            commitFailures += 1
            onCommitFailure(failure)
        }
        do {
            try appender.commit()
            return true
        } catch {
            commitFailures += 1
            onCommitFailure(error)
            return false
        }
    }
}

/// Which decoder reads the input.
public enum InputFormatChoice: String, Sendable, CaseIterable {
    case automatic = "auto"
    case nmea
    case gpsd
}
