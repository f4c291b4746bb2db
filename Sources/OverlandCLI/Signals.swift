#if canImport(Glibc)
import Glibc
#endif
import OverlandRecorder

/// SIGTERM, SIGINT and SIGHUP, blocked and collected instead of delivered, so the logger
/// can finish its commit before exiting. Block before any thread starts: threads inherit
/// the mask.
enum Signals {
    private static var watched: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGHUP)
        return set
    }

    static func block() {
        var set = watched
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// The signal of the last stop request taken (SIGTERM or SIGINT), if any.
    nonisolated(unsafe) static var lastStop: Int32?

    /// Takes one pending signal, if any, without waiting.
    static func take() -> StopRequest? {
        var set = watched
        var zero = timespec(tv_sec: 0, tv_nsec: 0)
        let signal = sigtimedwait(&set, nil, &zero)
        switch signal {
        case SIGTERM, SIGINT:
            lastStop = signal
            return .stop
        case SIGHUP: return .reload
        default: return nil
        }
    }
}
