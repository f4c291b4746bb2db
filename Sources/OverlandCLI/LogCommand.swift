#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import OverlandJSON
import OverlandJournal
import OverlandLogger
import OverlandInput
import OverlandProtocol
import OverlandRecorder
import OverlandSettings

/// `overland-log`: NMEA 0183 or gpsd JSON in, Overland points into the journal.
public struct LogCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "overland-log",
        abstract: "Log GPS fixes (\(InputDecoders.titles)) into an Overland journal.",
        discussion: """
            Reads standard input, or each FILE in turn, until its end, and appends every \
            accepted fix as an Overland location point to the journal:

              gpspipe -r | overland-log            NMEA relayed by gpsd
              gpspipe -w | overland-log            gpsd's own JSON reports (TPV)
              overland-log /dev/ttyACM0            a receiver's serial port (raw mode,
                                                   rate detected, or --baud 9600;
                                                   reopened when plugged back in)
              overland-log --gpsd [HOST[:PORT]]    gpsd's socket (default localhost:2947;
                                                   reconnects when gpsd restarts)
              overland-log capture.nmea more.nmea  files, e.g. an old capture

            Points are committed (written and fsynced) at least every --commit-interval \
            seconds, and at once on end of input, SIGTERM and SIGINT. A live fix is complete \
            as its epoch's last sentence arrives (learned from the receiver) or when the input \
            goes quiet. SIGTERM or SIGINT on a live stream: exit 0; a file import cut short: \
            what was read is committed, the command says how far it got and exits 130 \
            (SIGINT) or 143 (SIGTERM); run it again to finish: fixes the journal already \
            holds are not logged twice. SIGHUP reloads the settings. Exit status 65 when an \
            input holds nothing recognisable, 66 when an input cannot be opened, 74 when the \
            journal cannot be written.

            Dates: from RMC or ZDA sentences. A stream with only times of day is dated by \
            --date, else (when reading live) by the system clock if the fix time is within \
            10 minutes of it; otherwise its fixes are skipped and counted, never guessed.

            Each point carries device_id (--device-id, else $OVERLAND_DEVICE_ID, else the host \
            name), battery state and level from /sys/class/power_supply (no battery: unknown \
            and 0), the SSID of the connected Wi-Fi network (from `iw`, else `iwgetid`; else \
            ""), and motion inferred from speed (below 0.5 m/s stationary, 2.2 walking, 4.2 \
            running, 8.3 cycling, above that driving).

            Settings ('overland config'; trip.* ones while a trip runs):
              tracking_enabled false     log nothing (also tracking_mode off)
              tracking_mode significant  only points 500 m apart (both: all)
              min_time, min_distance     at least that long, that far apart
              desired_accuracy           drop fixes less accurate than that
                                         (nav and best keep every fix)
              pause_automatically        no points after 5 min within 25 m;
                                         resume beyond resume_with_geofence
                                         (off: 50 m); a running trip ends
              visit_tracking             3 min within 50 m is a visit record
              wifi_zone                  on that Wi-Fi, report its position
              include_tracking_stats     stats on points; action records
              include_unique_id          unique_id from /etc/machine-id,
                                         hashed (never the raw id)
              integer_speed, profile     receiver quirks: applied when sending
              stationary_filter          one point while still (speed and
                                         distance within the fix's accuracy);
                                         the first move is logged at once
              commit_interval, device_id, battery_path, journal
            """,
        version: OverlandVersion.current
    )

    @Argument(help: "Files to read (\(InputDecoders.titles)), in order (default: standard input).")
    var files: [String] = []

    @OptionGroup var journalOptions: JournalOptions

    @Option(help: ArgumentHelp("Input format: \(InputDecoders.help)."))
    var input: InputFormatChoice = .automatic

    @Option(help: ArgumentHelp("The UTC date of the first fix, for streams that carry only times of day.", valueName: "yyyy-mm-dd"))
    var date: String?

    @Option(name: .customLong("device-id"), help: "The device id stamped on every point (1 to 50 characters).")
    var deviceID: String?

    @Option(name: .customLong("commit-interval"), help: ArgumentHelp(
        "How long points may wait in memory before they are fsynced: seconds, or 5s, 1m (0: every point; default: the settings' commit_interval, 5 s).",
        valueName: "interval"))
    var commitIntervalText: String?

    /// --commit-interval in seconds (validated).
    var commitInterval: Double? { commitIntervalText.flatMap(Interval.seconds) }

    @Option(name: .customLong("min-time"), help: ArgumentHelp(
        "At least this long between points: whole seconds from 1, or 5s, 1m (default: the settings' min_time, 1 s).",
        valueName: "interval"))
    var minimumIntervalText: String?

    /// --min-time in whole seconds (validated).
    var minimumInterval: Int64? { minimumIntervalText.flatMap(Interval.seconds).flatMap(CheckedInteger.rounded).map { Int64($0) } }

    @Option(name: .customLong("min-distance"), help: "At least this many metres between points (default: the settings' min_distance, off).")
    var minimumDistance: Double?

    @Option(help: ArgumentHelp("Serial ports: the rate in baud (default: detected among 9600, 4800, 38400, 115200, 19200, 57600, 230400).",
                               valueName: "rate"))
    var baud: Int?

    @Flag(help: "Read from gpsd's socket (the argument, if any, is HOST, HOST:PORT or [IPv6]:PORT; default localhost:2947).")
    var gpsd = false

    @Option(name: .customLong("no-fix-warning"),
            help: ArgumentHelp("Seconds a live input may go without a fix before a warning on standard error.", valueName: "seconds"))
    var noFixWarning: Double = 60

    @Flag(help: "Print what was read, skipped and logged on standard error at exit.")
    var stats = false

    public init() {}

    public func validate() throws {
        if let date, CivilDate(parsing: date) == nil {
            throw ValidationError("--date '\(date)' is not a date: use YYYY-MM-DD, e.g. 2024-06-01")
        }
        if let text = commitIntervalText {
            guard let seconds = Interval.seconds(text) else {
                throw ValidationError("--commit-interval '\(text)' is not an interval: use \(Interval.syntax)")
            }
            guard (0...3600).contains(seconds) else {
                throw ValidationError("--commit-interval '\(text)' is out of range: use 0 to 3600 seconds")
            }
        }
        if let text = minimumIntervalText {
            guard let seconds = Interval.seconds(text) else {
                throw ValidationError("--min-time '\(text)' is not an interval: use \(Interval.syntax)")
            }
            guard seconds == seconds.rounded(.down), seconds <= 86_400 * 366 else {
                throw ValidationError("--min-time '\(text)': use whole seconds, at most a year")
            }
            // Points have whole-second timestamps: one a second is the most there can be.
            guard seconds >= 1 else {
                throw ValidationError("--min-time '\(text)': points have whole-second timestamps, so 1 s is the shortest: use 1 s to a year")
            }
        }
        if let baud, !SerialPort.supportedRates.contains(baud) {
            throw ValidationError("--baud \(baud) is not a serial rate: use one of \(SerialPort.supportedRates.map(String.init).joined(separator: ", "))")
        }
        if gpsd && files.count > 1 {
            throw ValidationError("--gpsd takes at most one HOST[:PORT]")
        }
        if gpsd && baud != nil { throw ValidationError("--baud is for serial ports, not --gpsd") }
        if !(1...86_400).contains(noFixWarning) {
            throw ValidationError("--no-fix-warning \(noFixWarning) is out of range: use 1 to 86400 seconds")
        }
        if let minimumDistance, minimumDistance < 0 { throw ValidationError("--min-distance must be 0 or more metres") }
        if let deviceID {
            do { _ = try DeviceID.validate(deviceID) } catch { throw ValidationError("--device-id: \(error)") }
        }
    }

    public func run() throws {
        Signals.block()
        var outcome = LogRun.Outcome(summary: "")
        try reportingFailures("overland-log") {
            outcome = try LogRun(command: self).execute()
            if stats { Terminal.error(outcome.summary) }
            if let failure = outcome.failure { throw failure }
        }
        if let exitStatus = outcome.exitStatus { throw ExitCode(exitStatus) }
    }

    /// The recorder's configuration from the settings (the trip profile while a trip
    /// runs), with this command's flags on top.
    func recorderConfiguration(_ settings: Settings, trip: Trip?) -> RecorderConfiguration {
        var configuration = settings.recorderConfiguration(deviceID: DeviceIdentity.resolve(flag: deviceID, settings: settings),
                                                           duringTrip: trip != nil)
        configuration.tripStart = trip?.start
        if let minimumInterval { configuration.minimumInterval = minimumInterval }
        if let minimumDistance { configuration.minimumDistance = minimumDistance }
        return configuration
    }

    /// `--date`, when given: the UTC date of the first fix.
    var fixedDate: (year: Int, month: Int, day: Int)? { date.flatMap(CivilDate.init(parsing:)).map { ($0.year, $0.month, $0.day) } }
}

extension InputFormatChoice: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument) }
    public static var allValueStrings: [String] { allNames }
}
