#if canImport(Glibc)
import Glibc
#endif
import OverlandJournal
import OverlandLogger
import OverlandRecorder
import OverlandSettings

/// One `overland-log` run: `OverlandLogger`'s run (`LoggerRun`) wired to standard error,
/// the signals and the settings file, and the inputs read in turn.
final class LogRun {
    /// What a run did, and the failure to report after the statistics.
    struct Outcome {
        var summary: String
        var failure: CommandFailure?
        /// 128 + the signal, for a file import cut short by SIGINT (130) or SIGTERM (143).
        var exitStatus: Int32?
    }

    let command: LogCommand
    let signalDescriptor: Int32
    let run: LoggerRun

    static func say(_ line: String) { Terminal.error("overland-log: " + line) }

    init(command: LogCommand) throws {
        self.command = command
        // A gpsd address that cannot work is refused before the journal is touched.
        if command.gpsd { _ = try Self.opening { try InputOpener.gpsdClient(command.files.first ?? "-") } }
        let settings = try Self.loadSettings(command)
        let options = command.journalOptions
        let descriptor = Signals.descriptor()
        signalDescriptor = descriptor
        let wiring = LoggerRun.Wiring(
            settingsPath: options.settingsOptions.path, loadSettings: { try options.settings() },
            configuration: { command.recorderConfiguration($0, trip: $1) }, commitInterval: command.commitInterval,
            inputFormat: command.gpsd ? .gpsd : command.input, fixedDate: command.fixedDate, noFixWarning: command.noFixWarning,
            onIssue: IssuePrinter(tool: "overland-log").handler, say: Self.say, progress: Terminal.progress,
            takeSignal: Signals.take, signalDescriptor: descriptor)
        do {
            run = try LoggerRun(journalPath: options.path(with: settings),
                                deviceID: DeviceIdentity.resolve(flag: command.deviceID, settings: settings), settings: settings, wiring: wiring)
        } catch {
            if descriptor >= 0 { close(descriptor) }
            throw error
        }
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
