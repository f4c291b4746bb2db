#if canImport(Glibc)
import Glibc
#endif
import OverlandInput
import OverlandJSON
import OverlandJournal
import OverlandProtocol
import OverlandRecorder
import OverlandSettings

/// One `overland-log` run's parts wired together: the journal and its appender, the
/// recorder's session, the reader, the time index ("already in the journal"), reloads of
/// the settings and the trip, the automatic trip stop, the no-fix state. It prints
/// nothing: every line goes to ``Wiring/say``, progress to ``Wiring/progress``.
public final class LoggerRun {
    /// What the command decides: its flags, where its lines go, its signals.
    public struct Wiring {
        public var settingsPath: String
        /// The settings read again (SIGHUP, a change of the settings or of the trip).
        public var loadSettings: () throws -> Settings
        /// The recorder's configuration for the settings and the active trip.
        public var configuration: (Settings, Trip?) -> RecorderConfiguration
        /// `--commit-interval`, over the settings' one.
        public var commitInterval: Double?
        public var inputFormat: InputFormatChoice
        /// `--date`: the UTC date of the first fix.
        public var fixedDate: (year: Int, month: Int, day: Int)?
        /// Seconds without a fix on a live input before it is said.
        public var noFixWarning: Double
        public var onIssue: JournalIssueHandler
        /// One line for the user, without the tool's name.
        public var say: (String) -> Void
        /// A progress line (a terminal shows it, replaced by the next).
        public var progress: (String) -> Void
        /// A signal's request, if one came.
        public var takeSignal: () -> StopRequest?
        /// Readable when a signal came, to wake a sleep; -1 when there is none.
        public var signalDescriptor: Int32

        public init(settingsPath: String, loadSettings: @escaping () throws -> Settings,
                    configuration: @escaping (Settings, Trip?) -> RecorderConfiguration, commitInterval: Double?,
                    inputFormat: InputFormatChoice, fixedDate: (year: Int, month: Int, day: Int)?, noFixWarning: Double,
                    onIssue: @escaping JournalIssueHandler, say: @escaping (String) -> Void, progress: @escaping (String) -> Void,
                    takeSignal: @escaping () -> StopRequest?, signalDescriptor: Int32) {
            self.settingsPath = settingsPath
            self.loadSettings = loadSettings
            self.configuration = configuration
            self.commitInterval = commitInterval
            self.inputFormat = inputFormat
            self.fixedDate = fixedDate
            self.noFixWarning = noFixWarning
            self.onIssue = onIssue
            self.say = say
            self.progress = progress
            self.takeSignal = takeSignal
            self.signalDescriptor = signalDescriptor
        }
    }

    let wiring: Wiring
    public internal(set) var settings: Settings
    public let journal: Journal
    public let appender: JournalAppender
    public let session: LoggingSession
    public let reader: LogReader
    let timeIndex: JournalTimeIndex
    let settingsWatcher: FileChangeWatcher
    let tripWatcher: FileChangeWatcher
    /// A full journal takes nothing more: the run stops and says so once, at the end.
    var fullError: JournalError?
    var toldRebuild: String?

    /// Opens (creating) the journal at `journalPath` for `deviceID`, refused when its
    /// numbers are used up, and wires the run to it.
    public init(journalPath: String, deviceID: String, settings: Settings, wiring: Wiring) throws {
        self.wiring = wiring
        self.settings = settings
        journal = try Self.openJournal(journalPath, deviceID: deviceID)
        var policy = JournalPolicy()
        policy.commitInterval = wiring.commitInterval ?? settings.commitInterval
        appender = try JournalAppender(journal: journal, policy: policy, onIssue: wiring.onIssue)
        session = LoggingSession(appender: appender,
                                 recorder: Recorder(configuration: wiring.configuration(settings, try Trip.active(in: journal))),
                                 device: DeviceStatusReader(batteryPath: settings.batteryPath))
        let fixedDate = wiring.fixedDate
        reader = LogReader(session: session, inputFormat: wiring.inputFormat, datePolicy: { input in
            if let fixedDate { return .fixed(year: fixedDate.year, month: fixedDate.month, day: fixedDate.day) }
            return input.isLive ? .systemClock(now: { Journal.currentTime() }) : .fromStreamOnly
        })
        // What the journal already holds is not logged again (a capture imported twice).
        timeIndex = try journal.timeIndex(key: LocationFeature.pointKey(in:))
        session.timeIndex = timeIndex
        // SIGHUP, or a change of the settings file or of the trip, reloads both.
        settingsWatcher = FileChangeWatcher(path: wiring.settingsPath)
        tripWatcher = FileChangeWatcher(path: journal.statePath(of: Trip.stateName))
        toldRebuild = reportRebuild(told: nil)
        wireReader()
        wireSession()
    }

    private static func openJournal(_ path: String, deviceID: String) throws -> Journal {
        let journal = try Journal(path: path, create: true, deviceID: deviceID, machine: UniqueID.ofThisMachine())
        // A journal whose numbers are used up (a hostile copy may claim 2^53) takes no
        // point: say so now rather than read the input into memory for nothing.
        let next = max(try journal.endSequence(), try journal.cursor())
        if next >= SequenceNumber.limit { throw JournalError.full(path: journal.path, next: next) }
        return journal
    }

    /// The time index was rebuilt (damaged, or of another journal): said once per reason.
    func reportRebuild(told: String?) -> String? {
        guard let reason = timeIndex.rebuilt, reason != told else { return told }
        wiring.say("\(journal.statePath(of: JournalTimeIndex.stateName)): \(reason); rebuilt from the journal's records")
        return reason
    }

    /// Commits what waits, saves the time index, seals a segment that is due. Throws the
    /// journal's being full, or `LoggerRunError.unsaved`.
    public func finish() throws {
        guard session.commit() else {
            if let fullError { throw fullError }
            throw LoggerRunError.unsaved
        }
        do {
            // Covers what is committed now; a failure costs only a catch-up read next time.
            try session.saveTimeIndex()
        } catch {
            // The points are committed; the next run reads the newest records instead.
            wiring.say("\(error); the time index is caught up from the journal next time")
        }
        try? appender.sealIfDue()
        toldRebuild = reportRebuild(told: toldRebuild)
    }
}

/// Why a run's points were not all saved.
public enum LoggerRunError: Error, Sendable, CustomStringConvertible {
    /// The last commit failed: points not yet written are lost with the process.
    case unsaved

    public var description: String { "points not yet written remain unsaved: the journal cannot be written" }
}
