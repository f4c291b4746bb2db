import OverlandJournal
import OverlandInput
import OverlandProtocol

/// From fixes to the journal: the recorder's filters and events, the records they lead to,
/// and commits per the journal's policy. It reads nothing and owns no terminal or signals:
/// the command's reader (`overland-log`'s input loop) hands it the fixes of its inputs.
public final class LoggingSession {
    public let appender: JournalAppender
    public var recorder: Recorder
    /// The monotonic clock records wait by for their commit (a test's, to drive the
    /// commit interval without waiting).
    public var clock: () -> Double = { monotonicSeconds() }
    private let device: DeviceStatusReader

    /// Called when a commit fails: the records stay in memory and the next commit tries
    /// again on a new segment.
    public var onCommitFailure: (JournalError) -> Void = { _ in }
    /// Called when auto-pause begins (the time of the fix), e.g. to end the active trip.
    public var onPause: (Int64) -> Void = { _ in }

    /// The seconds the journal holds points for, per device: fixes of those seconds (of
    /// this device) are not logged again. Nil: no such check.
    public var timeIndex: JournalTimeIndex?
    /// The configured device id and its time index key (computed once per id).
    private var deviceKey: (id: String, key: [UInt8]) = ("", LocationFeature.deviceKey(""))

    private func key(of deviceID: String) -> [UInt8] {
        if deviceKey.id != deviceID { deviceKey = (deviceID, LocationFeature.deviceKey(deviceID)) }
        return deviceKey.key
    }

    public private(set) var decoderStatistics = DecoderStatistics()
    public private(set) var recordsAppended = 0
    public private(set) var commitFailures = 0

    public init(appender: JournalAppender, recorder: Recorder, device: DeviceStatusReader) {
        self.appender = appender
        self.recorder = recorder
        self.device = device
    }

    /// Starts an unrelated stream (a new input): the last point is forgotten.
    public func startStream() {
        recorder.startNewStream()
    }

    /// Adds the statistics of an input read to its end.
    public func addDecoderStatistics(_ statistics: DecoderStatistics) {
        decoderStatistics.add(statistics)
    }

    /// Turns fixes into points and records, appended to the journal; empties `fixes`.
    public func record(_ fixes: inout [Fix]) {
        guard !fixes.isEmpty else { return }
        let snapshot = device.snapshot(now: clock())
        var line: [UInt8] = []
        for fix in fixes {
            if let timeIndex, timeIndex.contains(device: key(of: recorder.configuration.deviceID), second: fix.time) {
                // The second just logged (or noted) is in the index too: a fix of it is
                // the receiver's rate, not a capture imported again.
                if recorder.isSameSecondAsPrevious(fix) {
                    recorder.noteSameSecond(fix)
                } else {
                    recorder.noteAlreadyLogged(fix)
                }
                continue
            }
            for event in recorder.process(fix, device: snapshot, payloadSize: fixes.count) {
                switch event {
                case .point(let point):
                    timeIndex?.insert(device: key(of: point.deviceID), second: point.timestamp)
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
            try line.withUnsafeBytes { try appender.append($0, checkJSON: false, now: clock()) }
            recordsAppended += 1
        } catch {
            // The encoders only write valid JSON; a refusal would be a bug, not input.
            assertionFailure("encoder produced an invalid record: \(error)")
        }
    }

    /// A file is read as fast as it can be: its commits due by size are compressed and
    /// written on a second thread while this one decodes on. A live stream, and a commit
    /// due by time (`--commit-interval 0` asks for one per point), commit here and now.
    public func commitIfDue(inBackground: Bool = false) {
        guard appender.commitIsDue(now: clock(), bulk: inBackground) else { return }
        guard inBackground, appender.pendingBytes >= appender.policy.bulkCommitBytes else { commit(); return }
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
        } catch {
            commitFailures += 1
            onCommitFailure(error)
            return false
        }
        // A long-running logger saves the time index now and then, so that after a power
        // loss the next start catches up on minutes of records, not on weeks.
        // Seconds held in memory are merged into the file once they are many, so that
        // memory does not grow with an import of irregular points.
        if let timeIndex, monotonicSeconds() - lastIndexSave >= Self.timeIndexSaveInterval
            || timeIndex.heldRuns >= Self.timeIndexHeldRuns {
            try? saveTimeIndex()
        }
        return true
    }

    /// Seconds between saves of the time index while logging.
    public static let timeIndexSaveInterval = 600.0
    /// Runs of seconds held in memory before the time index is saved (about 2 MB).
    public static let timeIndexHeldRuns = 50_000
    private var lastIndexSave = monotonicSeconds()

    /// Writes the time index (journal-format.md), covering every committed record: call
    /// after a successful commit, with nothing pending.
    public func saveTimeIndex() throws(JournalError) {
        guard let timeIndex, appender.pendingRecords == 0 else { return }
        lastIndexSave = monotonicSeconds()
        try timeIndex.save(through: try appender.journal.endSequence())
    }
}
