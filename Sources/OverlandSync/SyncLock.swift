#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one-run-at-a-time lock of a journal's sync: an exclusive, non-blocking `flock` on
/// `state/sync.lock`. The kernel releases it when the process ends, however it ends, so a
/// killed run never leaves a stale lock behind.
final class SyncLock {
    private let fd: Int32

    private init(fd: Int32) {
        self.fd = fd
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }

    /// Takes the lock at `path`, creating the file (0600) if needed; nil when another run
    /// (in this process or another) holds it.
    static func acquire(_ path: String) throws(PrivateFile.Failure) -> SyncLock? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd < 0 { throw PrivateFile.Failure("cannot open lock", path) }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            let code = errno
            close(fd)
            if code == EWOULDBLOCK { return nil }
            throw PrivateFile.Failure("cannot lock", path, code: code)
        }
        return SyncLock(fd: fd)
    }
}
