#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import OverlandJSON
import OverlandJournal
import OverlandNMEA
import OverlandProtocol
import OverlandRecorder
import OverlandSettings
import OverlandJSON

/// `overland-log`: NMEA 0183 or gpsd JSON in, Overland points into the journal.
public struct LogCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "overland-log",
        abstract: "Log GPS fixes from NMEA 0183 or gpsd JSON into an Overland journal.",
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

    @Argument(help: "NMEA or gpsd JSON files to read, in order (default: standard input).")
    var files: [String] = []

    @OptionGroup var journalOptions: JournalOptions

    @Option(help: "Input format: auto (detected from the first bytes), nmea, gpsd (gpspipe -w JSON), or ubx (u-blox UBX with NMEA).")
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
            help: "Seconds a live input may go without a fix before a warning on standard error (default 60).")
    var noFixWarning: Double = 60

    @Flag(help: "Print what was read, skipped and logged on standard error at exit.")
    var stats = false

    public init() {}

    public func validate() throws {
        if let date, parsedDate(date) == nil {
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
        var outcome = Outcome(summary: "")
        try reportingFailures("overland-log") {
            outcome = try execute()
            if stats { Terminal.error(outcome.summary) }
            if let failure = outcome.failure { throw failure }
        }
        if let exitStatus = outcome.exitStatus { throw ExitCode(exitStatus) }
    }

    /// The recorder's configuration from the settings (the trip profile while a trip
    /// runs), with this command's flags on top.
    private func recorderConfiguration(_ settings: Settings, trip: Trip?) -> RecorderConfiguration {
        var configuration = settings.recorderConfiguration(deviceID: DeviceIdentity.resolve(flag: deviceID, settings: settings),
                                                           duringTrip: trip != nil)
        configuration.tripStart = trip?.start
        if let minimumInterval { configuration.minimumInterval = minimumInterval }
        if let minimumDistance { configuration.minimumDistance = minimumDistance }
        return configuration
    }

    /// What a run did, and the failure to report after the statistics.
    private struct Outcome {
        var summary: String
        var failure: CommandFailure?
        /// 128 + the signal, for a file import cut short by SIGINT (130) or SIGTERM (143).
        var exitStatus: Int32?
    }

    /// The gpsd at `name` (`-`: the default), or a usage error naming what is wrong.
    private func gpsdClient(_ name: String) throws -> GPSDClient {
        guard let client = GPSDClient(name == "-" ? nil : name) else {
            throw CommandFailure("--gpsd '\(Terminal.printable(name))': use HOST, HOST:PORT or [IPv6]:PORT "
                                 + "(a host name or address, a port from 1 to 65535)", status: .usage)
        }
        return client
    }

    private func execute() throws -> Outcome {
        // A gpsd address that cannot work is refused before the journal is touched.
        if gpsd { _ = try gpsdClient(files.first ?? "-") }
        // A mistake in the settings file never stops the logger: it logs with every key
        // that reads and the defaults for the rest, and says so once (the control
        // commands refuse the file until it is fixed; `overland status` shows it).
        let (loaded, problems) = try journalOptions.settingsOptions.loadTolerating()
        var settings = loaded
        for problem in problems { Terminal.error("overland-log: \(SettingsProblem.loggerNotice(problem))") }
        let settingsPath = journalOptions.settingsOptions.path
        if let off = TrackingNotice.line(for: settings, settingsPath: settingsPath) { Terminal.error("overland-log: " + off) }
        let journal = try Journal(path: journalOptions.path(with: settings), create: true,
                                  deviceID: DeviceIdentity.resolve(flag: deviceID, settings: settings),
                                  machine: UniqueID.ofThisMachine())
        let configuration = recorderConfiguration(settings, trip: try Trip.active(in: journal))
        var policy = JournalPolicy()
        policy.commitInterval = commitInterval ?? settings.commitInterval
        let issues = IssuePrinter(tool: "overland-log")
        let appender = try JournalAppender(journal: journal, policy: policy, onIssue: issues.handler)
        // A journal whose numbers are used up (a hostile copy may claim 2^53) takes no
        // point: say so now rather than read the input into memory for nothing.
        let next = max(try journal.endSequence(), try journal.cursor())
        if next >= SequenceNumber.limit { throw JournalError.full(path: journal.path, next: next) }

        let fixedDate = date.flatMap(parsedDate)
        let session = LoggingSession(
            appender: appender,
            recorder: Recorder(configuration: configuration),
            device: DeviceStatusReader(batteryPath: settings.batteryPath)
        )
        var fullError: JournalError?
        let reader = LogReader(session: session, inputFormat: gpsd ? .gpsd : input, datePolicy: { input in
            if let fixedDate { return .fixed(year: fixedDate.0, month: fixedDate.1, day: fixedDate.2) }
            return input.isLive ? .systemClock(now: { Journal.currentTime() }) : .fromStreamOnly
        })
        // What the journal already holds is not logged again (a capture imported twice).
        let timeIndex = try journal.timeIndex(key: LocationFeature.pointKey(in:))
        session.timeIndex = timeIndex
        let reportRebuild = { (told: String?) -> String? in
            guard let reason = timeIndex.rebuilt, reason != told else { return told }
            Terminal.error("overland-log: \(journal.statePath(of: JournalTimeIndex.stateName)): \(reason); rebuilt from the journal's records")
            return reason
        }
        let toldRebuild = reportRebuild(nil)
        reader.noFixNotice = noFixWarning
        reader.onNoFix = { input, seconds in
            let whole = CheckedInteger.rounded(seconds, in: 0...Int(Int32.max)) ?? 0
            Terminal.error("overland-log: \(input.name): no fix for \(whole) s: \(reader.liveStatistics.summary())")
            InputState.write(.init(input: input.name, since: Journal.currentTime() - Int64(whole), pid: getpid()), in: journal)
        }
        defer { InputState.clear(in: journal) }
        reader.onDisconnect = { input in
            Terminal.error("overland-log: \(input.name): gone; waiting for it to come back")
        }
        reader.onReconnect = { input in
            Terminal.error("overland-log: \(input.name): back")
        }
        reader.onFixAgain = { input in
            Terminal.error("overland-log: \(input.name): fixes again")
            InputState.clear(in: journal)
        }
        session.onCommitFailure = { error in
            // A full journal will take nothing more: stop (below) and say so once, at the end.
            if case .full = error {
                fullError = error
                return
            }
            Terminal.error("overland-log: \(error); points are kept in memory and written again at the next commit")
        }
        // SIGHUP, or a change of the settings file or of the trip, reloads both; a settings
        // file that no longer loads keeps the last good settings running.
        let settingsWatcher = FileChangeWatcher(path: journalOptions.settingsOptions.path)
        let tripWatcher = FileChangeWatcher(path: journal.statePath(of: Trip.stateName))
        reader.onReload = {
            do {
                let wasOff = TrackingChange.isOff(settings)
                settings = try journalOptions.settings()
                if wasOff != TrackingChange.isOff(settings) {
                    Terminal.error("overland-log: " + (TrackingNotice.line(for: settings, settingsPath: settingsPath) ?? "tracking is on again"))
                }
                appender.policy.commitInterval = commitInterval ?? settings.commitInterval
                return recorderConfiguration(settings, trip: try Trip.active(in: journal))
            } catch {
                Terminal.error("overland-log: settings not reloaded: \(error)")
                return nil
            }
        }
        // A trip ends by itself when auto-pause begins, as in the app.
        session.onPause = { _ in
            do {
                try withExtendedLifetime(Trip.lockForChange(in: journal)) {
                    guard let trip = try Trip.active(in: journal) else { return }
                    let record = try TripStopper.record(for: trip, in: journal, settings: settings, stoppedAutomatically: true)
                    if !record.isAlreadyWritten {
                        try appender.append(record.line)
                        try appender.commit()
                    }
                    try Trip.clear(in: journal)
                }
                if let configuration = reader.onReload() { session.recorder.configuration = configuration }
            } catch {
                Terminal.error("overland-log: the trip could not be stopped automatically: \(error)")
            }
        }
        reader.signalDescriptor = Signals.descriptor()
        defer { if reader.signalDescriptor >= 0 { close(reader.signalDescriptor) } }
        let checkSignals = { () -> StopRequest? in
            let now = monotonicSeconds()
            if fullError != nil { return .stop }
            if let request = Signals.take() { return request }
            // Both watchers look, whichever changed.
            let changed = [settingsWatcher.hasChanged(now: now), tripWatcher.hasChanged(now: now)]
            return changed.contains(true) ? .reload : nil
        }
        reader.onProgress = { input, done in
            guard let size = input.size, size > 0 else { return }
            Terminal.progress("\(input.name): \(done * 100 / size)%")
        }

        var failure: CommandFailure?
        var interruption: (signal: Int32, message: String)?
        var exitStatus: Int32?
        var inputs = files.isEmpty ? ["-"] : files
        inputs.reverse()
        while let name = inputs.popLast() {
            let input: LogInput
            do { input = try open(name, sleep: reader.sleep) } catch { session.commit(); throw error } // keep the earlier inputs' points
            // A reopenable input's descriptors belong to the session.
            defer { if input.fileDescriptor != 0 && input.reopen == nil { close(input.fileDescriptor) } }
            let result = reader.run(input, checkSignals: checkSignals)
            Terminal.clearProgress()
            let shownName = input.name == "standard input" ? input.name : "'\(input.name)'"
            var problem: String?
            if result.finished && result.bytesRead > 0 && !result.recognisedAnything {
                // Input with nothing recognisable: the user's to fix (wrong file, wrong port speed).
                problem = "\(shownName): not NMEA 0183 or gpsd JSON: \(result.contentDescription)"
            } else if result.finished, result.statistics.fixes == 0, result.statistics.undatedFixes > 0 {
                // Times of day and no date (GGA only): nothing was logged, the user must say the day.
                let count = result.statistics.undatedFixes
                problem = "\(shownName): \(count) \(count == 1 ? "fix has" : "fixes have") no date (times of day only: " +
                    "no RMC or ZDA sentence\(input.isLive ? ", and not within 10 minutes of the system clock" : "")); " +
                    "give the UTC date of the first fix with --date YYYY-MM-DD"
            }
            if let problem {
                if let earlier = failure {
                    Terminal.error("overland-log: \(earlier.message)")
                }
                failure = CommandFailure(problem, status: .dataError)
            }
            if !result.finished {
                if !input.isLive, let signal = Signals.lastStop {
                    // A file import cut short: committed below, but not a success, so that
                    // `overland-log cap.nmea && rm cap.nmea` keeps the capture.
                    let done = input.size.map { size in
                        "\(result.bytesRead * 100 / max(size, 1))% (\(result.bytesRead) of \(size) bytes)"
                    } ?? "\(result.bytesRead) bytes"
                    interruption = (signal, "interrupted: '\(input.name)' read to \(done); the points read are " +
                        "committed; run it again to finish (what the journal holds is not logged twice)")
                }
                break
            }
        }
        guard session.commit() else {
            if let fullError { throw fullError }
            throw CommandFailure("points not yet written remain unsaved: the journal cannot be written", status: .ioError)
        }
        do {
            // Covers what is committed now; a failure costs only a catch-up read next time.
            try session.saveTimeIndex()
        } catch {
            // The points are committed; the next run reads the newest records instead.
            Terminal.error("overland-log: \(error); the time index is caught up from the journal next time")
        }
        try? appender.sealIfDue()
        _ = reportRebuild(toldRebuild)
        if let interruption {
            Terminal.error("overland-log: \(interruption.message)")
            failure = nil
            exitStatus = 128 + interruption.signal
        }
        let recorder = session.recorder.statistics
        return Outcome(summary: """
            overland-log: \(session.decoderStatistics.summary())
            overland-log: \(Plural.count(recorder.fixes, "fix")), \(Plural.count(session.recordsAppended, "point")) logged; dropped: \
            \(recorder.droppedInterval) by min time, \(recorder.droppedDistance) by min distance, \
            \(recorder.droppedAccuracy) by accuracy, \(recorder.droppedOutOfOrder) out of order, \
            \(recorder.droppedNotSignificant) not significant, \(recorder.droppedTrackingOff) with tracking off\
            \(recorder.droppedSameSecond > 0 ? ", \(recorder.droppedSameSecond) same second as the previous fix" : "")\
            \(recorder.droppedAlreadyLogged > 0 ? ", \(recorder.droppedAlreadyLogged) already in the journal" : "")\
            \(recorder.droppedStationary > 0 ? ", \(recorder.droppedStationary) standing still" : "")\
            \(recorder.valuesLeftOut > 0 ? "; \(recorder.valuesLeftOut) \(recorder.valuesLeftOut == 1 ? "value" : "values") out of range left out of the points" : "")
            """, failure: failure, exitStatus: exitStatus)
    }

    /// Connects to gpsd; waits (signals honoured, `sleep` woken by them) while gpsd is not up
    /// yet, since the logger may start before it at boot, trying ever less often
    /// (`ReconnectBackoff`). The input reconnects the same way whenever gpsd goes away.
    private func openGPSD(_ client: GPSDClient, sleep: (Double) -> Void) throws -> LogInput {
        let input = { (fd: Int32) in
            LogInput(name: client.name, fileDescriptor: fd, isLive: true, size: nil, reopen: { client.connect().fd })
        }
        let (fd, error) = client.connect()
        if let fd { return input(fd) }
        Terminal.error("overland-log: \(client.name): \(error ?? "cannot connect"); trying again, "
                       + "less often the longer it stays away (every \(Int(ReconnectBackoff.longest)) s at most)")
        var backoff = ReconnectBackoff.waiting()
        guard let fd = backoff.reopen(now: { monotonicSeconds() }, sleep: sleep, shouldStop: { Signals.take() == .stop },
                                      open: { client.connect().fd }) else {
            throw CommandFailure("stopped while waiting for \(client.name)", status: .ok)
        }
        return input(fd)
    }

    /// Opens a serial port in raw mode at --baud, else at the rate detected; the input
    /// reopens the port when it comes back after an unplug.
    private func openPort(_ name: String, fd: Int32) throws -> LogInput {
        let rate: Int
        var stopRequested = false
        if let baud {
            guard SerialPort.configure(fd, rate: baud) else {
                let reason = String(cString: strerror(errno)).lowercased()
                close(fd)
                throw CommandFailure("cannot set '\(name)' to \(baud) baud: \(reason)", status: .ioError)
            }
            rate = baud
        } else if let detected = SerialPort.detectRate(fd, shouldStop: {
            if Signals.take() == .stop { stopRequested = true }
            return stopRequested
        }) {
            rate = detected
            if Terminal.stderrIsTerminal { Terminal.error("overland-log: \(name): \(rate) baud") }
        } else if stopRequested {
            close(fd)
            throw CommandFailure("stopped while detecting the rate of '\(name)'", status: .ok)
        } else {
            rate = SerialPort.usualRates[0]
            _ = SerialPort.configure(fd, rate: rate)
            Terminal.error("overland-log: \(name): no NMEA or UBX at \(SerialPort.usualRates.map(String.init).joined(separator: ", ")) baud; " +
                           "reading at \(rate) (set the rate with --baud)")
        }
        return LogInput(name: name, fileDescriptor: fd, isLive: true, size: nil, longestWait: ReconnectBackoff.first, reopen: {
            let reopened = Glibc.open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
            guard reopened >= 0 else { return nil }
            guard SerialPort.configure(reopened, rate: rate) else {
                close(reopened)
                return nil
            }
            return reopened
        })
    }

    private func open(_ name: String, sleep: (Double) -> Void) throws -> LogInput {
        if gpsd { return try openGPSD(try gpsdClient(name), sleep: sleep) }
        let fd: Int32
        if name == "-" {
            fd = 0
        } else {
            fd = Glibc.open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
            if fd < 0 {
                throw CommandFailure("cannot open '\(name)': \(String(cString: strerror(errno)).lowercased())", status: .noInput)
            }
        }
        var info = stat()
        fstat(fd, &info)
        let isFile = (info.st_mode & S_IFMT) == S_IFREG
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw CommandFailure("cannot read '\(name)': is a directory", status: .noInput)
        }
        if name != "-" && (info.st_mode & S_IFMT) == S_IFCHR && SerialPort.isPort(fd) {
            return try openPort(name, fd: fd)
        }
        if let baud {
            if fd != 0 { close(fd) }
            throw CommandFailure("--baud \(baud): '\(name)' is not a serial port", status: .usage)
        }
        return LogInput(name: name == "-" ? "standard input" : name, fileDescriptor: fd, isLive: !isFile,
                        size: isFile ? Int(info.st_size) : nil)
    }

    private func parsedDate(_ text: String) -> (Int, Int, Int)? {
        let parts = text.split(separator: "-")
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1980...2200).contains(year), CivilDate(year: year, month: month, day: day) != nil else { return nil }
        return (year, month, day)
    }
}

extension InputFormatChoice: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument) }
    public static var allValueStrings: [String] { allNames }
}
