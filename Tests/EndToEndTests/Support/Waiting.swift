import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Waits for `condition` (a file a tool writes, a count of records, a port that listens):
/// looks every 5 ms until it holds; false if it never did before the hang guard. The one
/// poll of the end-to-end tests, for events nothing announces: a test waits for what it
/// needs to see (or, better, for a line a tool prints), never for a fixed time.
@discardableResult
func waitUntil(timeout: Duration = ToolRunner.hangGuard, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        usleep(5_000)
    }
    return true
}

/// A TCP port on 127.0.0.1.
enum LoopbackPort {
    /// True when something accepts connections on 127.0.0.1:`port` now.
    static func accepts(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// The state letter of a process or thread (`R`, `S`, `T` stopped, `Z` zombie...) from its
/// `/proc/.../stat`; nil when it is gone.
func processState(_ statPath: String) -> Character? {
    guard let stat = try? String(contentsOfFile: statPath, encoding: .utf8), let close = stat.lastIndex(of: ")"),
          let state = stat[close...].dropFirst(2).first else { return nil }
    return state
}
