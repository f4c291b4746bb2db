#if canImport(Glibc)
import Glibc
#endif
import OverlandJSON
import OverlandJournal
import OverlandLogger
import OverlandInput
import OverlandProtocol
import OverlandRecorder
import OverlandSettings

/// One `overland-log` run: the libraries (`OverlandLogger`'s reader and inputs, the
/// recorder's session, the journal) wired to the terminal, the signals and the settings
/// file. Every line it says goes to standard error.
final class LogRun {
    /// What a run did, and the failure to report after the statistics.
    struct Outcome {
        var summary: String
        var failure: CommandFailure?
        /// 128 + the signal, for a file import cut short by SIGINT (130) or SIGTERM (143).
        var exitStatus: Int32?
    }

    let command: LogCommand
    var settings: Settings
    let journal: Journal
    let appender: JournalAppender
    let session: LoggingSession
    let reader: LogReader
    let timeIndex: JournalTimeIndex
    let signalDescriptor = Signals.descriptor()
    let settingsWatcher: FileChangeWatcher
    let tripWatcher: FileChangeWatcher
    /// A full journal takes nothing more: the run stops and says so once, at the end.
    var fullError: JournalError?
    var toldRebuild: String?

    static func say(_ line: String) { Terminal.error("overland-log: " + line) }

    init(command: LogCommand) throws {
        self.command = command
        // A gpsd address that cannot work is refused before the journal is touched.
        if command.gpsd { _ = try Self.opening { try InputOpener.gpsdClient(command.files.first ?? "-") } }
        settings = try Self.loadSettings(command)
        journal = try Self.openJournal(command, settings: settings)
        var policy = JournalPolicy()
        policy.commitInterval = command.commitInterval ?? settings.commitInterval
        appender = try JournalAppender(journal: journal, policy: policy, onIssue: IssuePrinter(tool: "overland-log").handler)
        session = LoggingSession(appender: appender,
                                 recorder: Recorder(configuration: command.recorderConfiguration(settings, trip: try Trip.active(in: journal))),
                                 device: DeviceStatusReader(batteryPath: settings.batteryPath))
        let fixedDate = command.fixedDate
        reader = LogReader(session: session, inputFormat: command.gpsd ? .gpsd : command.input, datePolicy: { input in
            if let fixedDate { return .fixed(year: fixedDate.year, month: fixedDate.month, day: fixedDate.day) }
            return input.isLive ? .systemClock(now: { Journal.currentTime() }) : .fromStreamOnly
        })
        // What the journal already holds is not logged again (a capture imported twice).
        timeIndex = try journal.timeIndex(key: LocationFeature.pointKey(in:))
        session.timeIndex = timeIndex
        // SIGHUP, or a change of the settings file or of the trip, reloads both.
        settingsWatcher = FileChangeWatcher(path: command.journalOptions.settingsOptions.path)
        tripWatcher = FileChangeWatcher(path: journal.statePath(of: Trip.stateName))
        toldRebuild = reportRebuild(told: nil)
        wireReader()
        wireSession()
    }

    deinit {
        if signalDescriptor >= 0 { close(signalDescriptor) }
    }

    /// A mistake in the settings file never stops the logger: it logs with every key that
    /// reads and the defaults for the rest, and says so once (the control commands refuse
    /// the file until it is fixed; `overland status` shows it).
    private static func loadSettings(_ command: LogCommand) throws -> Settings {
        let (settings, problems) = try command.journalOptions.settingsOptions.loadTolerating()
        for problem in problems { say(problem.loggerNotice) }
        if let off = TrackingChange.notice(for: settings, settingsPath: command.journalOptions.settingsOptions.path) { say(off) }
        return settings
    }

    private static func openJournal(_ command: LogCommand, settings: Settings) throws -> Journal {
        let journal = try Journal(path: command.journalOptions.path(with: settings), create: true,
                                  deviceID: DeviceIdentity.resolve(flag: command.deviceID, settings: settings),
                                  machine: UniqueID.ofThisMachine())
        // A journal whose numbers are used up (a hostile copy may claim 2^53) takes no
        // point: say so now rather than read the input into memory for nothing.
        let next = max(try journal.endSequence(), try journal.cursor())
        if next >= SequenceNumber.limit { throw JournalError.full(path: journal.path, next: next) }
        return journal
    }

    /// The time index was rebuilt (damaged, or of another journal): said once per reason.
    func reportRebuild(told: String?) -> String? {
        guard let reason = timeIndex.rebuilt, reason != told else { return told }
        Self.say("\(journal.statePath(of: JournalTimeIndex.stateName)): \(reason); rebuilt from the journal's records")
        return reason
    }

    /// The library's errors as the command's failures.
    static func opening<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as InputOpenError {
            let status: ExitStatus = switch error.kind {
            case .noInput: .noInput
            case .usage: .usage
            case .ioError: .ioError
            case .stopped: .ok
            }
            throw CommandFailure(error.message, status: status)
        }
    }
}
