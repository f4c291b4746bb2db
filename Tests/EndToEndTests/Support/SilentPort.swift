#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A loopback port that accepts connections and never answers, reserved for the rest of
/// the test process: a TCP socket on 127.0.0.1 that listens and is never read, so the kernel
/// completes each handshake and nothing more comes (a broker that never sends CONNACK).
enum SilentPort {
    /// A new such port; its socket stays open until the process exits.
    static func reserve() -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        precondition(descriptor >= 0, "socket: errno \(errno)")
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
                    && listen(descriptor, 64) == 0
            }
        }
        precondition(listening, "listen on 127.0.0.1:0: errno \(errno)")
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
