import TestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 21: a gpsd that accepts and closes got 5,481 connections in 5 s and 10,962 log
/// lines from `overland-log --gpsd`; `--gpsd '[::1'` was accepted and retried forever.
@Suite("overland-log --gpsd: backing off from a gpsd that closes")
struct SecurityGPSDReconnectTests {
    /// A loopback server that sends gpsd's VERSION banner to each connection and closes it,
    /// noting when each came.
    final class ClosingServer: @unchecked Sendable {
        let port: Int
        private let descriptor: Int32
        private let condition = NSCondition()
        private var times: [ContinuousClock.Instant] = []

        init() throws {
            guard let (fd, port) = LoopbackSocket.open(backlog: 64) else {
                throw ToolRunnerError(description: "cannot listen: errno \(errno)")
            }
            descriptor = fd
            self.port = port
            let thread = Thread { [self] in acceptForever() }
            thread.start()
        }

        private func acceptForever() {
            let banner = Array(#"{"class":"VERSION","release":"3.25","rev":"3.25","proto_major":3,"proto_minor":15}"#.utf8) + [0x0A]
            while true {
                let client = accept(descriptor, nil, nil)
                if client < 0 {
                    if errno == EINTR { continue }
                    return
                }
                _ = banner.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(client)
                condition.lock()
                times.append(.now)
                condition.broadcast()
                condition.unlock()
            }
        }

        /// Waits for the `count`th connection (the event; the limit only ends a broken test).
        func waitForConnections(_ count: Int) -> [ContinuousClock.Instant] {
            condition.lock()
            defer { condition.unlock() }
            while times.count < count {
                if !condition.wait(until: Date().addingTimeInterval(120)) { break }
            }
            return times
        }

        var connections: [ContinuousClock.Instant] {
            condition.lock()
            defer { condition.unlock() }
            return times
        }
    }

    @Test func aGPSDThatAcceptsAndClosesIsToldOnceAndTriedEverLessOften() throws {
        let sandbox = try LogSandbox()
        let server = try ClosingServer()
        let child = try sandbox.logger.start(["--journal", sandbox.journal, "--gpsd", "127.0.0.1:\(server.port)"])
        defer { child.kill(SIGKILL); _ = child.wait() }
        // The first connection, then three more: waits of 0.5, 1 and 2 s between them.
        let times = server.waitForConnections(4)
        child.kill(SIGTERM)
        let result = child.wait()
        #expect(result.termination == .exited(0), "\(result)")
        try #require(times.count >= 4, "connections: \(times.count); \(result.stderrText)")
        let gaps = zip(times.dropFirst(), times).map { later, earlier in later - earlier }
        // The schedule itself (0.5, 1, 2 s) is proven on a fake clock (ReconnectBackoffTests).
        // Here a safety net against hammering: the times are stamped at accept(), so a gap
        // is shortened by as much as the accept before it came late; only the three gaps'
        // sum is bounded, far below its 3.5 s (before the fix: milliseconds).
        #expect(times[3] - times[0] >= .seconds(1), "gaps: \(gaps)")
        // Before the fix: thousands of connections and two lines each.
        #expect(server.connections.count <= 6, "\(server.connections.count) connections")
        let about = result.stderrLines.filter { $0.contains("gpsd at 127.0.0.1:\(server.port):") }
        #expect(about == ["overland-log: gpsd at 127.0.0.1:\(server.port): gone; waiting for it to come back"], "\(result.stderrText)")
    }

    @Test(arguments: ["[::1", "[::1]x", "127.0.0.1:0", "gps host", "host]:2947"])
    func anAddressThatCannotWorkIsAUsageError(address: String) throws {
        let sandbox = try LogSandbox()
        let child = try sandbox.logger.start(["--journal", sandbox.journal, "--gpsd", address])
        // Before the fix, '[::1' was retried forever: the limit only ends a broken test.
        let result = child.wait()
        result.expectExit(64)
        #expect(result.stderrLines == ["overland-log: --gpsd '\(address)': use HOST, HOST:PORT or [IPv6]:PORT "
                                       + "(a host name or address, a port from 1 to 65535)"], "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.journal), "the journal is not touched")
    }
}
