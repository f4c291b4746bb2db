import OverlandJSON
import OverlandJournal
import OverlandLogger
import OverlandInput
import OverlandRecorder

/// Reading the inputs in turn, then committing, and what the run says at the end.
extension LogRun {
    func execute() throws -> Outcome {
        defer { InputState.clear(in: journal) }
        var failure: CommandFailure?
        var interruption: (signal: Int32, message: String)?
        for name in command.files.isEmpty ? ["-"] : command.files {
            let input: LogInput
            do { input = try Self.opening { try opener.open(name) } } catch { session.commit(); throw error } // keep the earlier inputs' points
            // A reopenable input's sources belong to the reader; the others are closed here.
            defer { if input.reopen == nil { input.source.close() } }
            let result = reader.run(input, checkSignals: checkSignals)
            Terminal.clearProgress()
            if let problem = Self.problem(input, result) {
                if let earlier = failure { Self.say(earlier.message) }
                failure = CommandFailure(problem, status: .dataError)
            }
            if !result.finished {
                interruption = Self.interruption(input, result)
                break
            }
        }
        try finish()
        if let interruption {
            Self.say(interruption.message)
            return Outcome(summary: summary(), failure: nil, exitStatus: 128 + interruption.signal)
        }
        return Outcome(summary: summary(), failure: failure)
    }

    /// How inputs are opened: signals stop a wait, messages go to standard error.
    var opener: InputOpener {
        var opener = InputOpener()
        opener.baud = command.baud
        opener.gpsd = command.gpsd
        opener.signalDescriptor = signalDescriptor
        opener.shouldStop = { Signals.take() == .stop }
        opener.sleep = reader.sleep
        opener.notice = { Self.say($0) }
        opener.tellsRate = Terminal.stderrIsTerminal
        return opener
    }

    /// The user's to fix: an input with nothing recognisable (wrong file, wrong port
    /// speed), or times of day without a date (GGA only), so that nothing was logged.
    static func problem(_ input: LogInput, _ result: LogRunResult) -> String? {
        let shownName = input.name == "standard input" ? input.name : "'\(input.name)'"
        guard result.finished else { return nil }
        if result.bytesRead > 0 && !result.recognisedAnything {
            return "\(shownName): not \(InputDecoders.titles): \(result.contentDescription)"
        }
        guard result.statistics.fixes == 0, result.statistics.undatedFixes > 0 else { return nil }
        let count = result.statistics.undatedFixes
        return "\(shownName): \(count) \(count == 1 ? "fix has" : "fixes have") no date (times of day only: " +
            "no RMC or ZDA sentence\(input.isLive ? ", and not within 10 minutes of the system clock" : "")); " +
            "give the UTC date of the first fix with --date YYYY-MM-DD"
    }

    /// A file import cut short by a signal: committed, but not a success, so that
    /// `overland-log cap.nmea && rm cap.nmea` keeps the capture. Nil for a live input.
    static func interruption(_ input: LogInput, _ result: LogRunResult) -> (signal: Int32, message: String)? {
        guard !input.isLive, let signal = Signals.lastStop else { return nil }
        let done = input.size.map { size in
            "\(result.bytesRead * 100 / max(size, 1))% (\(result.bytesRead) of \(size) bytes)"
        } ?? "\(result.bytesRead) bytes"
        return (signal, "interrupted: '\(input.name)' read to \(done); the points read are " +
            "committed; run it again to finish (what the journal holds is not logged twice)")
    }

    /// Commits what waits, saves the time index, seals a segment that is due.
    func finish() throws {
        guard session.commit() else {
            if let fullError { throw fullError }
            throw CommandFailure("points not yet written remain unsaved: the journal cannot be written", status: .ioError)
        }
        do {
            // Covers what is committed now; a failure costs only a catch-up read next time.
            try session.saveTimeIndex()
        } catch {
            // The points are committed; the next run reads the newest records instead.
            Self.say("\(error); the time index is caught up from the journal next time")
        }
        try? appender.sealIfDue()
        toldRebuild = reportRebuild(told: toldRebuild)
    }

    /// `--stats`: what the decoders read and what the recorder logged and dropped.
    func summary() -> String {
        let recorder = session.recorder.statistics
        let optional: [(Int, String)] = [
            (recorder.droppedSameSecond, "same second as the previous fix"), (recorder.droppedAlreadyLogged, "already in the journal"),
            (recorder.droppedStationary, "standing still"),
        ]
        let more = optional.filter { $0.0 > 0 }.map { ", \($0.0) \($0.1)" }.joined()
        let leftOut = recorder.valuesLeftOut > 0
            ? "; \(Plural.count(recorder.valuesLeftOut, "value")) out of range left out of the points" : ""
        return """
            overland-log: \(session.decoderStatistics.summary())
            overland-log: \(Plural.count(recorder.fixes, "fix")), \(Plural.count(session.recordsAppended, "point")) logged; dropped: \
            \(recorder.droppedInterval) by min time, \(recorder.droppedDistance) by min distance, \
            \(recorder.droppedAccuracy) by accuracy, \(recorder.droppedOutOfOrder) out of order, \
            \(recorder.droppedNotSignificant) not significant, \(recorder.droppedTrackingOff) with tracking off\(more)\(leftOut)
            """
    }
}
