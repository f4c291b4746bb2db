#if canImport(Glibc)
import Glibc
#endif

/// Where an input's bytes come from: a descriptor in the logger (`DescriptorSource`), a
/// script in the tests, so that the read loop's timing (quiet intervals, commits, the no-fix
/// notice, reconnection) is driven by an injected clock instead of sleeps.
public protocol ByteSource: AnyObject {
    /// Waits at most `seconds` for bytes: true when a read would not block, false when the
    /// time passed or a stop or reload may be waiting (a signal).
    func wait(seconds: Double) -> Bool
    /// Reads what has arrived into `buffer`.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> ByteRead
    /// Whether a signal wakes `wait` at once: then the loop may wait long; otherwise it looks
    /// for signals every ``LogReader/signalLookInterval``.
    var wakesOnSignal: Bool { get }
    /// Releases the source (closes its descriptor); reads after it end.
    func close()
}

/// What one read gave.
public enum ByteRead: Equatable, Sendable {
    /// This many bytes (more than zero).
    case bytes(Int)
    /// Nothing yet, read again (EINTR, EAGAIN).
    case again
    /// The end of the input, or a vanished device (EIO, ENXIO).
    case end
}

/// A file descriptor read with poll(2) and read(2), beside a signal descriptor that wakes a
/// wait (`signalfd`; -1: none).
public final class DescriptorSource: ByteSource {
    public let fileDescriptor: Int32
    private let signalDescriptor: Int32
    /// Whether ``close()`` closes the descriptor (not standard input).
    private let owned: Bool
    private var closed = false

    public init(fileDescriptor: Int32, signalDescriptor: Int32 = -1, owned: Bool = true) {
        self.fileDescriptor = fileDescriptor
        self.signalDescriptor = signalDescriptor
        self.owned = owned
    }

    deinit { close() }

    public var wakesOnSignal: Bool { signalDescriptor >= 0 }

    public func wait(seconds: Double) -> Bool {
        var descriptors = [pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: signalDescriptor, events: Int16(POLLIN), revents: 0)]
        let milliseconds = Int32((min(max(seconds, 0), 86_400) * 1000).rounded(.up))
        let ready = poll(&descriptors, signalDescriptor >= 0 ? 2 : 1, milliseconds)
        return ready > 0 && descriptors[0].revents != 0
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) -> ByteRead {
        let count = Glibc.read(fileDescriptor, buffer.baseAddress!, buffer.count)
        if count > 0 { return .bytes(count) }
        if count < 0 && (errno == EINTR || errno == EAGAIN) { return .again }
        return .end
    }

    public func close() {
        guard !closed else { return }
        closed = true
        if owned { _ = Glibc.close(fileDescriptor) }
    }
}
