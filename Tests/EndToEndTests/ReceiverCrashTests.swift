import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A receiver of one point per request (Traccar) has its cursor written every 100
/// requests (or 250 ms), not after each point: `overland-sync` killed with SIGKILL right
/// after a reply loses nothing, and the next run resends at most the one group not yet
/// written, in journal order.
@Suite struct ReceiverCrashTests {
    @Test func traccarKilledAfterAReplyResendsAtMostOneGroup() throws {
        let points = 300
        let sandbox = try ReliabilitySandbox(prefix: "overland-traccar-crash")
        try sandbox.logEpochs(0..<points)
        try sandbox.writeSettings(#"{"protocol": "traccar", "device_id": "van"}"#)
        let server = try LocalServer { _, _ in LocalServer.text(200, "") }
        defer { server.stop() }
        let arguments = ["--journal", sandbox.journal, "--url", server.url, "--now"]

        let killed = try sandbox.sync.run(arguments, environment: ["OVERLAND_FAULT_POINT": "sync.after-reply:150"])
        #expect(killed.termination == .signaled(SIGKILL), "\(killed)")
        let cursor = try sandbox.cursor()
        #expect(cursor < 150 && 150 - cursor <= 100, "the 150th reply is not written, the 50th is: cursor \(cursor)")
        #expect(server.requests.count == 150)

        let finished = try sandbox.sync.run(arguments)
        #expect(finished.succeeded, "\(finished)")
        #expect(try sandbox.cursor() == UInt64(points))
        let times = server.requests.compactMap { request -> String? in
            let root = (try? JSONScan.object(request.body))
            return (root?["location"] as? [String: Any])?["timestamp"] as? String
        }
        #expect(times.count == server.requests.count)
        #expect(Set(times).count == points, "every point reached the server")
        #expect(times.count - points == 150 - Int(cursor), "the only repeats are the unwritten group")
        let resumed = Array(times[150...])
        #expect(resumed == resumed.sorted(), "the second run sends in journal order")
    }
}
