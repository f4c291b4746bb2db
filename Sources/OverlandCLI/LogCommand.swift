#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import OverlandJournal
import OverlandNMEA
import OverlandProtocol
import OverlandRecorder
import OverlandSettings

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
              overland-log < /dev/ttyACM0          a receiver's serial port
              overland-log capture.nmea more.nmea  files, e.g. an old capture

            Points are committed (written and fsynced) at least every --commit-interval \
            seconds, and at once on end of input, SIGTERM and SIGINT; the exit status is then \
            0. SIGHUP reloads the settings. Exit status 66 when an input cannot be opened, \
            74 when the journal cannot be written.

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
              commit_interval, device_id, battery_path, journal
            """
    )

    @Argument(help: "NMEA or gpsd JSON files to read, in order (default: standard input).")
    var files: [String] = []

    @OptionGroup var journalOptions: JournalOptions

    @Option(help: "Input format: auto (detected from the first line), nmea, or gpsd (gpspipe -w JSON).")
    var input: InputFormatChoice = .automatic

    @Option(help: ArgumentHelp("The UTC date of the first fix, for streams that carry only times of day.", valueName: "yyyy-mm-dd"))
    var date: String?

    @Option(name: .customLong("device-id"), help: "The device id stamped on every point (1 to 50 characters).")
    var deviceID: String?

    @Option(name: .customLong("commit-interval"), help: "Seconds points may wait in memory before they are fsynced (0: every point; default 5).")
    var commitInterval: Double?

    @Option(name: .customLong("min-time"), help: "At least this many seconds between points (default: the settings' min_time, 1 s).")
    var minimumInterval: Int64?

    @Option(name: .customLong("min-distance"), help: "At least this many metres between points (default: the settings' min_distance, off).")
    var minimumDistance: Double?

    @Flag(help: "Print what was read, skipped and logged on standard error at exit.")
    var stats = false

    public init() {}

    public func validate() throws {
        if let date, parsedDate(date) == nil {
            throw ValidationError("--date '\(date)' is not a date: use YYYY-MM-DD, e.g. 2024-06-01")
        }
        if let commitInterval, !(0...3600).contains(commitInterval) {
            throw ValidationError("--commit-interval \(commitInterval) is out of range: use 0 to 3600 seconds")
        }
        if let minimumInterval, minimumInterval < 0 { throw ValidationError("--min-time must be 0 or more seconds") }
        if let minimumDistance, minimumDistance < 0 { throw ValidationError("--min-distance must be 0 or more metres") }
        if let deviceID {
            do { _ = try DeviceID.validate(deviceID) } catch { throw ValidationError("--device-id: \(error)") }
        }
    }

    public func run() throws {
        Signals.block()
        try reportingFailures("overland-log") {
            let summary = try execute()
            if stats { Terminal.error(summary) }
        }
    }

    /// The recorder's configuration from the settings (the trip profile while a trip
    /// runs), with this command's flags on top.
    private func recorderConfiguration(_ settings: Settings, trip: Trip?) -> RecorderConfiguration {
        var configuration = settings.recorderConfiguration(deviceID: DeviceIdentity.resolve(flag: deviceID, settings: settings),
                                                           duringTrip: trip != nil)
        configuration.tripID = trip?.id
        if let minimumInterval { configuration.minimumInterval = minimumInterval }
        if let minimumDistance { configuration.minimumDistance = minimumDistance }
        return configuration
    }

    private func execute() throws -> String {
        var settings = try journalOptions.settings()
        let journal = try Journal(path: journalOptions.path(with: settings), create: true,
                                  deviceID: DeviceIdentity.resolve(flag: deviceID, settings: settings),
                                  machine: UniqueID.ofThisMachine())
        let configuration = recorderConfiguration(settings, trip: try Trip.active(in: journal))
        var policy = JournalPolicy()
        policy.commitInterval = commitInterval ?? settings.commitInterval
        let issues = IssuePrinter(tool: "overland-log")
        let appender = try JournalAppender(journal: journal, policy: policy, onIssue: issues.handler)

        let fixedDate = date.flatMap(parsedDate)
        let session = LoggingSession(
            appender: appender,
            recorder: Recorder(configuration: configuration),
            device: DeviceStatusReader(batteryPath: settings.batteryPath),
            inputFormat: input,
            datePolicy: { input in
                if let fixedDate { return .fixed(year: fixedDate.0, month: fixedDate.1, day: fixedDate.2) }
                return input.isLive ? .systemClock(now: { Journal.currentTime() }) : .fromStreamOnly
            }
        )
        session.onCommitFailure = { error in
            Terminal.error("overland-log: \(error); points are kept in memory and written again at the next commit")
        }
        // SIGHUP, or a change of the settings file or of the trip, reloads both; a settings
        // file that no longer loads keeps the last good settings running.
        let settingsWatcher = FileChangeWatcher(path: journalOptions.settingsOptions.path)
        let tripWatcher = FileChangeWatcher(path: journal.statePath(of: Trip.stateName))
        session.onReload = {
            do {
                settings = try journalOptions.settings()
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
                if let configuration = session.onReload() { session.recorder.configuration = configuration }
            } catch {
                Terminal.error("overland-log: the trip could not be stopped automatically: \(error)")
            }
        }
        let checkSignals = { () -> StopRequest? in
            let now = monotonicSeconds()
            if let request = Signals.take() { return request }
            // Both watchers look, whichever changed.
            let changed = [settingsWatcher.hasChanged(now: now), tripWatcher.hasChanged(now: now)]
            return changed.contains(true) ? .reload : nil
        }
        session.onProgress = { input, done in
            guard let size = input.size, size > 0 else { return }
            Terminal.progress("\(input.name): \(done * 100 / size)%")
        }

        var inputs = files.isEmpty ? ["-"] : files
        inputs.reverse()
        while let name = inputs.popLast() {
            let input: LogInput
            do { input = try open(name) } catch { session.commit(); throw error } // keep the earlier inputs' points
            defer { if input.fileDescriptor != 0 { close(input.fileDescriptor) } }
            let finished = session.run(input, checkSignals: checkSignals)
            Terminal.clearProgress()
            if !finished { break }
        }
        guard session.commit() else {
            throw CommandFailure("points not yet written remain unsaved: the journal cannot be written", status: .ioError)
        }
        try? appender.sealIfDue()
        let recorder = session.recorder.statistics
        return """
            overland-log: \(session.decoderStatistics.summary())
            overland-log: \(recorder.fixes) fixes, \(session.recordsAppended) points logged; dropped: \
            \(recorder.droppedInterval) by min time, \(recorder.droppedDistance) by min distance, \
            \(recorder.droppedAccuracy) by accuracy, \(recorder.droppedOutOfOrder) out of order, \
            \(recorder.droppedNotSignificant) not significant, \(recorder.droppedTrackingOff) with tracking off
            """
    }

    private func open(_ name: String) throws -> LogInput {
        let fd: Int32
        if name == "-" {
            fd = 0
        } else {
            fd = Glibc.open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
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
        return LogInput(name: name == "-" ? "standard input" : name, fileDescriptor: fd, isLive: !isFile,
                        size: isFile ? Int(info.st_size) : nil)
    }

    private func parsedDate(_ text: String) -> (Int, Int, Int)? {
        let parts = text.split(separator: "-")
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1980...2200).contains(year), (1...12).contains(month), (1...31).contains(day) else { return nil }
        return (year, month, day)
    }
}

extension InputFormatChoice: ExpressibleByArgument {}
