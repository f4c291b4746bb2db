#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A loopback port on which every connection is refused, reserved for the rest of the test
/// process: a TCP socket bound to 127.0.0.1 and never listening. A port bound and then
/// closed can be taken at once by another test's server (the suites run in parallel), which
/// then accepts the connection instead of refusing it.
public enum RefusingPort {
    /// A new such port; its socket stays open until the process exits.
    public static func reserve() -> Int { LoopbackPort.reserve(listening: false) }
}

/// A loopback port that accepts connections and never answers, reserved for the rest of
/// the test process: a TCP socket on 127.0.0.1 that listens and is never read, so the kernel
/// completes each handshake and nothing more comes (a broker that never sends CONNACK).
public enum SilentPort {
    /// A new such port; its socket stays open until the process exits.
    public static func reserve() -> Int { LoopbackPort.reserve(listening: true) }
}

/// A TCP socket bound to a free port of 127.0.0.1, listening or not, kept open until the
/// process exits.
private enum LoopbackPort {
    public static func reserve(listening: Bool) -> Int {
        let opened = LoopbackSocket.open(backlog: listening ? 64 : nil)
        precondition(opened != nil, "bind 127.0.0.1:0\(listening ? " and listen" : ""): errno \(errno)")
        return opened!.port
    }
}

/// A TCP socket on a free port of 127.0.0.1 (close-on-exec: no child process inherits it),
/// listening with `backlog` unless nil: what every loopback stand-in of the tests (a gpsd,
/// a broker) starts from. The caller owns the descriptor. Nil, with errno set, on failure.
public enum LoopbackSocket {
    public static func open(backlog: Int32?) -> (descriptor: Int32, port: Int)? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound, backlog.map({ listen(descriptor, $0) == 0 }) ?? true else {
            let saved = errno
            close(descriptor)
            errno = saved
            return nil
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }
}
