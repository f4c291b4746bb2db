#if canImport(Glibc)
import Glibc
#endif
import OverlandLogger
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

    /// A descriptor (signalfd) that is readable while one of the watched signals is pending,
    /// for poll: the logger sleeps until input, a due commit or a signal instead of waking
    /// four times a second to look. Nothing is read from it: ``take()`` takes the signal,
    /// and the descriptor is no longer readable. -1 if the kernel refused one.
    static func descriptor() -> Int32 {
        var set = watched
        return signalfd(-1, &set, O_NONBLOCK | O_CLOEXEC)
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

/// signalfd(2) from <sys/signalfd.h>, which the Glibc module does not import: its flags are
/// O_NONBLOCK and O_CLOEXEC's values (SFD_NONBLOCK, SFD_CLOEXEC).
@_silgen_name("signalfd")
private func signalfd(_ fd: Int32, _ mask: UnsafePointer<sigset_t>, _ flags: Int32) -> Int32
