#if canImport(Glibc)
import Glibc
#endif
import OverlandJSON
import OverlandJournal
import OverlandInput
import OverlandRecorder

/// One input stream for the logger: a file, a serial port, standard input or gpsd's socket.
public struct LogInput {
    /// How the input is named in messages ("capture.nmea", "standard input").
    public var name: String
    public var source: any ByteSource
    /// A live stream (pipe, terminal, serial port, socket): waited on with a deadline, dated
    /// by the system clock when the stream carries no date. Otherwise a file, read in bulk.
    public var isLive: Bool
    /// Bytes in the input, when known (for progress).
    public var size: Int?
    /// For inputs that come back (a serial port unplugged and plugged in again, gpsd
    /// restarted): called after the input ended or failed, ever less often
    /// (`ReconnectBackoff`: 0.5 s, doubling to `longestWait`), until it returns a new source
    /// to read. Nil: the end of the input is the end.
    public var reopen: (() -> (any ByteSource)?)?
    /// The longest wait between two calls of `reopen`.
    public var longestWait: Double

    public init(name: String, source: any ByteSource, isLive: Bool, size: Int?, longestWait: Double = ReconnectBackoff.longest,
                reopen: (() -> (any ByteSource)?)? = nil) {
        self.name = name
        self.source = source
        self.isLive = isLive
        self.size = size
        self.reopen = reopen
        self.longestWait = longestWait
    }
}

/// Why a session stopped reading before the end of its input.
public enum StopRequest: Sendable, Equatable {
    /// Stop now, commit, exit (SIGTERM, SIGINT).
    case stop
    /// Reload the settings (SIGHUP, or the settings file changed), then go on.
    case reload
}

/// How reading one input ended.
public struct LogRunResult: Sendable {
    /// False when told to stop before the end of the input.
    public var finished: Bool
    /// Bytes read.
    public var bytesRead: Int
    /// Whether anything in the input was recognised by an input format.
    public var recognisedAnything: Bool
    /// When nothing was recognised: what the input held instead.
    public var contentDescription: String
    /// What this input's decoder read, skipped and emitted.
    public var statistics: DecoderStatistics
}

/// `overland-log`'s input loop: reads one input (a file in bulk; a live stream waited on,
/// waking for due commits, signals, and the quiet interval that completes a cycle; a port
/// or gpsd socket reopened when it comes back), decodes it with the input format detected
/// or chosen, and hands the fixes to the ``LoggingSession``. Time is ``clock`` and waits are
/// the source's and ``sleep``: a test drives both.
public final class LogReader {
    public let session: LoggingSession
    public var inputFormat: InputFormatChoice
    public var datePolicy: (LogInput) -> DatePolicy
    /// Called after each chunk of input with (input, bytes read so far).
    public var onProgress: (LogInput, Int) -> Void = { _, _ in }
    /// Called to reload the settings; returns the new recorder configuration.
    public var onReload: () -> RecorderConfiguration? = { nil }
    /// Called once when a live input has produced no fix for ``noFixNotice`` seconds (since
    /// it was opened, or since its last fix), with the input, the seconds and what its
    /// decoder read so far.
    public var onNoFix: (LogInput, Double, DecoderStatistics) -> Void = { _, _, _ in }
    /// Called when a live input produces a fix again after ``onNoFix``.
    public var onFixAgain: (LogInput) -> Void = { _ in }
    /// Called once when a reopenable input is lost (it ended or failed), and once when it is
    /// back (`ReconnectBackoff`: reopened, it delivered a fix or stayed open 30 s); not for
    /// every try in between.
    public var onDisconnect: (LogInput) -> Void = { _ in }
    public var onReconnect: (LogInput) -> Void = { _ in }
    /// The monotonic clock, in seconds (the session's, by which commits are due).
    public var clock: () -> Double { session.clock }
    /// Waits between reopening tries (woken early by a signal in the logger).
    public var sleep: (Double) -> Void = { usleep(UInt32($0 * 1_000_000)) }
    /// Unix time now, for the fix time gate (a fix dated in the future).
    public var wallClock: @Sendable () -> Int64 = { Int64(time(nil)) }
    /// Seconds without a fix on a live input before ``onNoFix`` is called.
    public var noFixNotice = 60.0
    /// The longest a live input's wait lasts when a signal wakes it: `checkSignals` is
    /// called at least this often (the settings and trip files are looked at every 2 s).
    public var idleInterval = 2.0
    /// Without a source woken by signals: how often they are looked for, the latency of a stop.
    public static let signalLookInterval = 0.25

    public init(session: LoggingSession, inputFormat: InputFormatChoice, datePolicy: @escaping (LogInput) -> DatePolicy) {
        self.session = session
        self.inputFormat = inputFormat
        self.datePolicy = datePolicy
    }

    /// Reads `input` to its end, or until `checkSignals` says stop.
    public func run(_ input: LogInput, checkSignals: () -> StopRequest?) -> LogRunResult {
        var pass = ReadPass(reader: self, input: input)
        session.startStream()
        defer { if input.reopen != nil { pass.source?.close() } }
        while pass.step(checkSignals: checkSignals) {}
        // The last reporting cycle is complete once the input ends or we are told to stop.
        pass.finishStream()
        session.addDecoderStatistics(pass.decoder.statistics)
        return LogRunResult(finished: !pass.stopped, bytesRead: pass.total, recognisedAnything: pass.decoder.recognisedAnything,
                            contentDescription: pass.decoder.contentDescription, statistics: pass.decoder.statistics)
    }
}

/// The state of one input's reading: its decoder, its times, its reconnection.
private struct ReadPass {
    let reader: LogReader
    let input: LogInput
    var decoder: FixSource
    var source: (any ByteSource)?
    var buffer = [UInt8](repeating: 0, count: 65_536)
    var fixes: [Fix] = []
    var total = 0
    var stopped = false
    var quiet = QuietInterval()
    var lastData: Double
    var lastFix: Double
    var toldNoFix = false
    var backoff: ReconnectBackoff

    init(reader: LogReader, input: LogInput) {
        self.reader = reader
        self.input = input
        decoder = FixSource(choice: reader.inputFormat, datePolicy: reader.datePolicy(input), isLive: input.isLive,
                            now: reader.wallClock)
        source = input.source
        lastData = reader.clock()
        lastFix = lastData
        backoff = ReconnectBackoff(openedAt: lastData, longestWait: input.longestWait)
    }

    var session: LoggingSession { reader.session }

    /// One turn of the loop: false when reading is over.
    mutating func step(checkSignals: () -> StopRequest?) -> Bool {
        if let request = checkSignals() {
            if request == .stop { stopped = true; return false }
            if let configuration = reader.onReload() { session.recorder.configuration = configuration }
        }
        guard let source else { return false }
        if input.isLive && !source.wait(seconds: waitSeconds(source)) {
            idle()
            return true
        }
        switch buffer.withUnsafeMutableBytes({ source.read(into: $0) }) {
        case .again: return true
        case .end: return reopen(checkSignals: checkSignals)
        case .bytes(let count):
            received(count)
            return true
        }
    }

    /// How long a live input may wait: until a due commit, a signal look, the quiet interval
    /// that completes the open reporting cycle, or the no-fix notice.
    func waitSeconds(_ source: any ByteSource) -> Double {
        let now = reader.clock()
        let longest = source.wakesOnSignal ? reader.idleInterval : LogReader.signalLookInterval
        var wait = min(longest, session.appender.secondsUntilCommit(now: now) ?? longest)
        if decoder.hasOpenCycle { wait = min(wait, lastData + quiet.seconds - now) }
        if !toldNoFix { wait = min(wait, lastFix + reader.noFixNotice - now) }
        return max(wait, 0)
    }

    /// A wait ended without bytes: complete a cycle gone quiet, commit what is due.
    mutating func idle() {
        if decoder.hasOpenCycle && reader.clock() - lastData >= quiet.seconds {
            decoder.closeCycle(into: &fixes)
        }
        noteFixes()
        session.record(&fixes)
        session.commitIfDue()
    }

    mutating func received(_ count: Int) {
        total += count
        buffer.withUnsafeBytes { decoder.push(UnsafeRawBufferPointer(rebasing: $0[0..<count]), into: &fixes) }
        if input.isLive { lastData = reader.clock() }
        noteFixes()
        session.record(&fixes)
        reader.onProgress(input, total)
        session.commitIfDue(inBackground: !input.isLive)
    }

    /// The input ended: the end, unless it comes back.
    mutating func reopen(checkSignals: () -> StopRequest?) -> Bool {
        guard let reopen = input.reopen else { return false }
        finishStream()
        session.commit()
        source?.close()
        source = nil
        if backoff.ended() == .lost { reader.onDisconnect(input) }
        var stop = false
        let opened = backoff.reopen(now: reader.clock, sleep: reader.sleep, shouldStop: {
            if checkSignals() == .stop { stop = true }
            return stop
        }, open: reopen)
        stopped = stop
        guard let opened else { return false }
        source = opened
        lastData = reader.clock()
        return true
    }

    /// Ends the decoder's stream (the input ended, for good or until it is reopened) and
    /// records what it completes.
    mutating func finishStream() {
        decoder.finish(into: &fixes)
        session.record(&fixes)
    }

    /// Live inputs: learns the fix rate, and says when fixes stop and start again.
    mutating func noteFixes() {
        guard input.isLive else { return }
        for fix in fixes { quiet.observe(fix) }
        let now = reader.clock()
        if input.reopen != nil, backoff.observe(fix: !fixes.isEmpty, at: now) == .back { reader.onReconnect(input) }
        if !fixes.isEmpty {
            lastFix = now
            if toldNoFix { reader.onFixAgain(input) }
            toldNoFix = false
        } else if !toldNoFix && now - lastFix >= reader.noFixNotice {
            toldNoFix = true
            reader.onNoFix(input, now - lastFix, decoder.statistics)
        }
    }
}
