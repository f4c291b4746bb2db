#if canImport(Glibc)
import Glibc
#endif
import OverlandJSON
import OverlandJournal
import OverlandNMEA
import OverlandRecorder

/// One input stream for the logger: a file, a serial port or standard input.
struct LogInput: Sendable {
    /// How the input is named in messages ("capture.nmea", "standard input").
    var name: String
    var fileDescriptor: Int32
    /// A live stream (pipe, terminal, serial port, socket): waited on with a deadline, dated
    /// by the system clock when the stream carries no date. Otherwise a file, read in bulk.
    var isLive: Bool
    /// Bytes in the input, when known (for progress).
    var size: Int?
    /// For inputs that come back (a serial port unplugged and plugged in again, gpsd
    /// restarted): called after the input ended or failed, ever less often
    /// (`ReconnectBackoff`: 0.5 s, doubling to 30 s), until it returns a new descriptor to
    /// read on. The session then owns the descriptors it got,
    /// and closes the last one. Nil: the end of the input is the end.
    var reopen: (@Sendable () -> Int32?)?
    /// The longest wait between two calls of `reopen`.
    var longestWait: Double

    init(name: String, fileDescriptor: Int32, isLive: Bool, size: Int?, longestWait: Double = ReconnectBackoff.longest,
         reopen: (@Sendable () -> Int32?)? = nil) {
        self.name = name
        self.fileDescriptor = fileDescriptor
        self.isLive = isLive
        self.size = size
        self.reopen = reopen
        self.longestWait = longestWait
    }
}

/// Why a session stopped reading before the end of its input.
enum StopRequest: Sendable, Equatable {
    /// Stop now, commit, exit (SIGTERM, SIGINT).
    case stop
    /// Reload the settings (SIGHUP, or the settings file changed), then go on.
    case reload
}

/// `overland-log`'s input loop: reads one input (a file in bulk; a live stream with poll,
/// waking for due commits, signals, and the quiet interval that completes a cycle; a port
/// or gpsd socket reopened when it comes back), decodes it with the input format detected
/// or chosen, and hands the fixes to the ``LoggingSession``.
final class LogReader {
    let session: LoggingSession
    var inputFormat: InputFormatChoice
    var datePolicy: (LogInput) -> DatePolicy
    /// Called after each chunk of input with (input, bytes read so far).
    var onProgress: (LogInput, Int) -> Void = { _, _ in }
    /// Called to reload the settings; returns the new recorder configuration.
    var onReload: () -> RecorderConfiguration? = { nil }
    /// The statistics of the input being read, as of the last ``onNoFix``.
    private(set) var liveStatistics = DecoderStatistics()

    init(session: LoggingSession, inputFormat: InputFormatChoice, datePolicy: @escaping (LogInput) -> DatePolicy) {
        self.session = session
        self.inputFormat = inputFormat
        self.datePolicy = datePolicy
    }

    /// How reading one input ended.
    struct RunResult: Sendable {
        /// False when told to stop before the end of the input.
        var finished: Bool
        /// Bytes read.
        var bytesRead: Int
        /// Whether anything in the input was NMEA or gpsd JSON (a sentence or report of any type).
        var recognisedAnything: Bool
        /// When nothing was recognised: what the input held instead.
        var contentDescription: String
        /// What this input's decoder read, skipped and emitted.
        var statistics: DecoderStatistics
    }

    /// Called once when a live input has produced no fix for ``noFixNotice`` seconds (since
    /// it was opened, or since its last fix), with the input and the seconds.
    var onNoFix: (LogInput, Double) -> Void = { _, _ in }
    /// Called once when a reopenable input is lost (it ended or failed), and once when it is
    /// back (`ReconnectBackoff`: reopened, it delivered a fix or stayed open 30 s); not for
    /// every try in between.
    var onDisconnect: (LogInput) -> Void = { _ in }
    var onReconnect: (LogInput) -> Void = { _ in }
    /// The monotonic clock, in seconds.
    var clock: () -> Double = { monotonicSeconds() }
    /// Called when a live input produces a fix again after ``onNoFix``.
    var onFixAgain: (LogInput) -> Void = { _ in }
    /// Seconds without a fix on a live input before ``onNoFix`` is called.
    var noFixNotice = 60.0
    /// A descriptor readable while a signal waits (``Signals/descriptor()``), polled beside a
    /// live input; -1: none, and signals are looked for every ``signalLookInterval``.
    var signalDescriptor: Int32 = -1
    /// The longest a live input's poll sleeps: `checkSignals` is called at least this often
    /// (the settings and trip files are looked at every 2 s). Without a signal descriptor,
    /// a quarter of a second, the latency of a stop.
    var idleInterval = 2.0
    static let signalLookInterval = 0.25

    /// Sleeps `seconds`, woken early by a signal (`signalDescriptor`, when there is one).
    func sleep(_ seconds: Double) {
        guard signalDescriptor >= 0 else {
            usleep(UInt32(seconds * 1_000_000))
            return
        }
        var descriptor = pollfd(fd: signalDescriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, Int32((seconds * 1000).rounded(.up)))
    }

    /// Reads `input` to its end, or until `checkSignals` says stop.
    func run(_ input: LogInput, checkSignals: () -> StopRequest?) -> RunResult {
        var source = FixSource(choice: inputFormat, datePolicy: datePolicy(input), isLive: input.isLive)
        session.startStream()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var fixes: [Fix] = []
        var total = 0
        var stopped = false
        var quiet = QuietInterval()
        var fd = input.fileDescriptor
        defer { if input.reopen != nil && fd >= 0 { close(fd) } }
        var lastData = monotonicSeconds()
        var lastFix = lastData
        var toldNoFix = false
        var backoff = ReconnectBackoff(openedAt: clock(), longestWait: input.longestWait)
        func noteFixes() {
            guard input.isLive else { return }
            for fix in fixes { quiet.observe(fix) }
            if input.reopen != nil, backoff.observe(fix: !fixes.isEmpty, at: clock()) == .back { onReconnect(input) }
            let now = monotonicSeconds()
            if !fixes.isEmpty {
                lastFix = now
                if toldNoFix { onFixAgain(input) }
                toldNoFix = false
            } else if !toldNoFix && now - lastFix >= noFixNotice {
                toldNoFix = true
                liveStatistics = source.statistics
                onNoFix(input, now - lastFix)
            }
        }
        reading: while true {
            if let request = checkSignals() {
                if request == .stop { stopped = true; break reading }
                if let configuration = onReload() { session.recorder.configuration = configuration }
            }
            if input.isLive {
                // Wait for input, but wake for due commits, for signals, and when the input
                // has been quiet long enough to complete the open reporting cycle.
                let now = monotonicSeconds()
                let longest = signalDescriptor >= 0 ? idleInterval : Self.signalLookInterval
                var wait = min(longest, session.appender.secondsUntilCommit() ?? longest)
                if source.hasOpenCycle { wait = min(wait, max(0, lastData + quiet.seconds - now)) }
                if !toldNoFix { wait = min(wait, max(0, lastFix + noFixNotice - now)) }
                var descriptors = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                                   pollfd(fd: signalDescriptor, events: Int16(POLLIN), revents: 0)]
                let ready = poll(&descriptors, signalDescriptor >= 0 ? 2 : 1, Int32(CheckedInteger.roundedUp(min(max(wait, 0), 86_400) * 1000) ?? 1000))
                if ready == 0 || (ready < 0 && errno == EINTR) || (ready > 0 && descriptors[0].revents == 0) {
                    if source.hasOpenCycle && monotonicSeconds() - lastData >= quiet.seconds {
                        source.closeCycle(into: &fixes)
                    }
                    noteFixes()
                    session.record(&fixes)
                    session.commitIfDue()
                    continue
                }
            }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if count <= 0 {
                // End of input, or a vanished device (EIO, ENXIO): the end, unless it comes back.
                guard let reopen = input.reopen else { break reading }
                source.finish(into: &fixes)
                session.record(&fixes)
                session.commit()
                close(fd)
                fd = -1
                if backoff.ended() == .lost { onDisconnect(input) }
                let opened = backoff.reopen(now: clock, sleep: { self.sleep($0) }, shouldStop: {
                    if let request = checkSignals(), request == .stop { stopped = true }
                    return stopped
                }, open: reopen)
                guard let opened else { break reading }
                fd = opened
                lastData = monotonicSeconds()
                continue
            }
            total += count
            buffer.withUnsafeBytes { source.push(UnsafeRawBufferPointer(rebasing: $0[0..<count]), into: &fixes) }
            if input.isLive { lastData = monotonicSeconds() }
            noteFixes()
            session.record(&fixes)
            onProgress(input, total)
            session.commitIfDue(inBackground: !input.isLive)
        }
        // The last reporting cycle is complete once the input ends or we are told to stop.
        source.finish(into: &fixes)
        session.record(&fixes)
        session.addDecoderStatistics(source.statistics)
        return RunResult(finished: !stopped, bytesRead: total, recognisedAnything: source.recognisedAnything,
                         contentDescription: source.contentDescription, statistics: source.statistics)
    }

}
