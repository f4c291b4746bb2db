#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writing to a pipe or FIFO opened O_NONBLOCK, as the tests feed a live input: the one
/// copy of the loop.
public enum PipeWrite {
    /// Writes all of `bytes` to `fd`, waiting while the pipe is full; false once the reader
    /// is gone (or any other error).
    @discardableResult
    public static func all(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if written > 0 {
                offset += written
            } else if written < 0 && (errno == EAGAIN || errno == EINTR) {
                var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&descriptor, 1, 100)
            } else {
                return false
            }
        }
        return true
    }
}
