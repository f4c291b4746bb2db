import OverlandJSON
import OverlandJournal
import OverlandLogger
import OverlandInput
import OverlandRecorder

/// Reading the inputs in turn, then committing, and what the run says at the end.
extension LogRun {
    func execute() throws -> Outcome {
        defer { InputState.clear(in: run.journal) }
        var failure: CommandFailure?
        var interruption: (signal: Int32, message: String)?
        for name in command.files.isEmpty ? ["-"] : command.files {
            let input: LogInput
            do { input = try Self.opening { try opener.open(name) } } catch { run.session.commit(); throw error } // keep the earlier inputs' points
            // A reopenable input's sources belong to the reader; the others are closed here.
            defer { if input.reopen == nil { input.source.close() } }
            let result = run.reader.run(input, checkSignals: run.checkSignals)
            Terminal.clearProgress()
            if let problem = result.problem(with: input) {
                if let earlier = failure { Self.say(earlier.message) }
                failure = CommandFailure(problem, status: .dataError)
            }
            if !result.finished {
                interruption = Self.interruption(input, result)
                break
            }
        }
        try run.finish()
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
        opener.sleep = run.reader.sleep
        opener.notice = { Self.say($0) }
        opener.tellsRate = Terminal.stderrIsTerminal
        return opener
    }

    /// A file import cut short by a signal: committed, but not a success, so that
    /// `overland-log cap.nmea && rm cap.nmea` keeps the capture. Nil for a live input.
    static func interruption(_ input: LogInput, _ result: LogRunResult) -> (signal: Int32, message: String)? {
        guard !input.isLive, let signal = Signals.lastStop else { return nil }
        return (signal, result.interruption(of: input))
    }

    /// `--stats`: what the decoders read and what the recorder logged and dropped.
    func summary() -> String {
        run.session.statisticsLines.map { "overland-log: " + $0 }.joined(separator: "\n")
    }
}
